"""A data-only decoder for kbench result pickles.

Nothing in a pickle is run: the stream is scanned and bounded, the unpickler builds
inert records instead of calling anything, and the records are rebuilt as validated
data with public numpy/pandas constructors. See ``decode`` for the entry points.
"""

from kprofile.inputs.pickles.decode import decode_pickle, read_pickle
from kprofile.inputs.pickles.errors import RefusedPickle

__all__ = ["RefusedPickle", "decode_pickle", "read_pickle"]
