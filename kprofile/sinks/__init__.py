"""The sinks: what a run writes besides its report. ``output`` (``-o``: a new
manifest), ``update`` (``--update``: a curated manifest edited in place, as a
compare-and-swap) and ``files`` (CSVs and PNGs), all through the code generator's one
all-or-nothing writer (``tuning_codegen.transaction``)."""
