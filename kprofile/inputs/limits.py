"""What one input may make, whatever its size on disk.

A small file can still make a huge table: a CSV whose rows each name parameters of
their own, a spec string of a million tokens, one line of a gigabyte, a pickle that
repeats one long spec string a million times by reference. Each limit below is checked
before the memory it guards is allocated, and a file over it is refused with one line
naming the limit (exit status 2 when no input is left). Real kbench results stay far
below every one of them (docs/kprofile.md, "Limits").
"""

from __future__ import annotations

MAX_LINE_BYTES = 1 << 20  # one line of a CSV file
MAX_FIELD_CHARS = 1 << 20  # one field of a CSV file (a quoted field may span lines)
MAX_COLUMNS = 10_000  # columns of a results table (CSV header, pickled frame)
MAX_PARAMS = 1_000  # distinct parameter names in one file (spec strings, YAML params)
MAX_SPEC_CHARS = 65_536  # characters of one spec string
MAX_SPEC_TOKENS = 1_000  # NAME=value tokens of one spec string
MAX_CELLS = 100_000_000  # rows x columns, rows x parameters, spec tokens of a file
MAX_SHAPES = 100_000  # distinct shapes (or -p groups) one analysis reports on
MAX_MATRIX_CELLS = 20_000_000  # --cover shapes x configs, --ranges points x configs
DEFAULT_MAX_ROWS = 10_000_000  # rows a spec YAML may expand to (--max-rows)
MAX_FAILURES_BYTES = 1 << 26  # kbench's NAME.failures.json (each point's stderr too)
MAX_FAILURES = 1_000_000  # failed points in one NAME.failures.json
