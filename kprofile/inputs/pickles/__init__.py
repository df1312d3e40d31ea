"""A data-only decoder for kbench result pickles: nothing in a file is ever run.

Three steps, each in its own modules:

1. ``scan`` (with ``opcodes``): one linear pass over the opcode stream, before any
   object exists. Refused: persistent ids, out-of-band buffers, extension codes,
   INST/OBJ and sets; lengths past the end of the file; memo writes past the memo
   (a 5-byte LONG_BINPUT would make the C unpickler clear gigabytes); over 4096 dict
   items (colliding keys make dict building quadratic); integers over 256 bytes;
   streams whose objects would take over 16x the file size + 64 MiB.
2. ``unpickler`` (with ``names`` and ``records``): the C unpickler over the bytes in
   memory, its ``find_class`` returning this package's stand-ins for the globals a
   pandas 2.x/3.x DataFrame pickle names (numpy 1.x/2.x paths alike). A stand-in
   called or instantiated only records a ``Call``; BUILD records its state once;
   nothing can be assigned on a stand-in or a record. Other globals are refused.
3. ``decode`` (with ``values``, ``scalars``, ``timezones``, ``dtypes``, ``arrays``,
   ``objects``, ``typed``, ``extension``, ``index``, ``frame``): a walk of the
   recorded tree with a depth limit and a budget of elements and bytes (8x the file
   size + 64 MiB), rebuilding only what a result holds with public constructors:
   dtypes from a closed set, arrays whose shape matches their bytes exactly, object
   cells of plain values, frames whose block placements cover each column once,
   zones from IANA names the system lists.

Every refusal is a ``RefusedPickle`` whose message says why.
"""

from kprofile.inputs.pickles.decode import decode_pickle, read_pickle
from kprofile.inputs.pickles.errors import RefusedPickle

__all__ = ["RefusedPickle", "decode_pickle", "read_pickle"]
