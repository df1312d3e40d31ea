"""tuning-codegen: render tuning manifests into marked regions of source files.

This package runs on every commit, so it imports only the standard library, PyYAML
and click (a hook run that touches no table: PyYAML alone, see ``cli``); it runs git
itself where it needs git (``tuning_codegen.commit``), and never imports pandas.
"""
