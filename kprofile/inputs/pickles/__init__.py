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
   result pickle names: pandas 1.5-3.x DataFrames, numpy 1.x/2.x arrays, pyarrow's
   array, type and buffer functions, and pathlib paths (module paths of every version
   alike). A stand-in called or instantiated only records a ``Call``; BUILD records
   its state once; nothing can be assigned on a stand-in or a record. Other globals
   are refused.
3. ``decode``: a walk of the recorded tree with a depth limit and a budget of
   elements and bytes (8x the file size + 64 MiB), rebuilding only what a result holds
   with public constructors, in layers that import only downwards: ``fields`` (bytes,
   small integers, offsets), ``timezones``, ``scalars``, ``values``, ``paths`` (text),
   ``dtypes`` (a closed set), ``objects`` and ``arrays`` (shapes that match their
   bytes exactly, object cells of plain values and short tuples), ``arrow`` (pyarrow
   arrays rebuilt with numpy from buffers whose every length, offset and bitmap is
   checked first), ``typed`` and ``extension`` (string, datetime, masked and
   pyarrow-backed columns), ``index`` (including MultiIndex), ``categorical``
   (categories are an index), ``frame`` (block placements, strided ones included, that
   cover each column once). Zones come from IANA names the system lists.

``read_pickle`` decompresses gzip, bz2, xz or zstd data as the unpickler reads it
(``compressed``, ``streamed``), at most 100x its size plus 64 MiB and 4 GiB.

Every refusal is a ``RefusedPickle`` whose message says why.
"""

from kprofile.inputs.pickles.decode import decode_pickle, read_pickle
from kprofile.inputs.pickles.errors import RefusedPickle

__all__ = ["RefusedPickle", "decode_pickle", "read_pickle"]
