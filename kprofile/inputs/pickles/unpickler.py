"""Running the C unpickler over a scanned stream, with stand-ins for every global."""

from __future__ import annotations

import io
import pickle
from typing import Any, NoReturn

from kprofile.inputs.pickles.errors import RefusedPickle, shown
from kprofile.inputs.pickles.names import resolve
from kprofile.inputs.pickles.records import Global
from kprofile.inputs.pickles.scan import scan
from kprofile.inputs.pickles.streamed import Streamed


class _StandInUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> type[Global]:
        return resolve(module, name)

    def persistent_load(self, pid: Any) -> NoReturn:
        raise RefusedPickle(
            "refused persistent id: not part of a pandas DataFrame pickle"
        )


def unpickle(data: bytes | Streamed) -> Any:
    """The object tree of ``data``: built-in values and ``Call`` records, nothing run.

    Bytes are scanned first (lengths, memo indices and dict sizes are bounded by the
    file), then read from memory; a file is scanned a piece at a time, each piece
    before the unpickler reads it (``streamed``): no field can make the unpickler
    allocate more than the file holds.
    """
    if isinstance(data, Streamed):
        stream: Any = data
    else:
        scan(data)
        stream = io.BytesIO(data)
    try:
        tree = _StandInUnpickler(stream).load()
    except (RefusedPickle, MemoryError):  # out of memory: this machine's, not a fault
        raise
    except (pickle.UnpicklingError, EOFError) as exc:
        raise RefusedPickle(f"not a valid pickle ({exc or 'truncated'})") from None
    except Exception as exc:  # a malformed stream: any error of an opcode's checks
        reason = f"{type(exc).__name__}: {exc}"
        raise RefusedPickle(f"not a valid pickle ({shown(reason)[1:-1]})") from None
    if isinstance(stream, Streamed):
        stream.finish()
    return tree
