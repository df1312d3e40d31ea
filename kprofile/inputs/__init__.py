"""Reading what the user hands kprofile: result pickles and CSVs, spec and manifest
YAMLs, spec strings, and the expression language of ``--query`` and spec ``rules``."""
