"""Load pickle files in a child process under hard limits; one JSON line per file.

    python tests/pickle_worker.py < paths     # one path per line, answers as they come

Each path goes through kprofile's real loader (``load_results``). Before the first
path the worker loads every shipped dtype fixture (so nothing is imported later), then
caps its address space at what it uses plus ``MEMORY_MIB`` and installs an audit hook.
Each file gets ``CPU_SECONDS`` of CPU (a soft RLIMIT_CPU: SIGXCPU ends the worker, which
the tests see as a crash). The answer names the outcome (``loaded``, ``refused`` with
the ``Invalid pkl`` line, or ``error`` for any other exception: a traceback kprofile
would print) and the audit events the file caused: files opened, and any process,
exec, compile, import or pickle find_class event.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from pathlib import Path
from typing import Any

# Run as a script, this folder comes first on sys.path, and tests/kprofile would hide
# the real kprofile package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).parent]

MEMORY_MIB = 1024
CPU_SECONDS = 10
ROOT = Path(__file__).resolve().parents[1]
WATCHED = (
    "open",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "subprocess.Popen",
    "exec",
    "compile",
    "import",
    "pickle.find_class",
    "ctypes.dlopen",
    "socket.connect",
    "os.remove",
    "os.rename",
)
_events: list[list[str]] | None = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _events is not None and event.startswith(WATCHED):
        detail = args[0] if args and isinstance(args[0], str | bytes | int) else ""
        _events.append(
            [event, os.fsdecode(detail) if isinstance(detail, bytes) else str(detail)]
        )


def _warm_up() -> None:
    from kprofile.inputs.load import load_results

    for path in sorted((ROOT / "fixtures" / "pickles").glob("*/*.pkl")):
        load_results(str(path))


def _limit_memory() -> None:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[0])
    used = pages * os.sysconf("SC_PAGE_SIZE")
    cap = used + MEMORY_MIB * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _one(path: str) -> dict[str, Any]:
    from kprofile.errors import InvalidInputError
    from kprofile.inputs.load import load_results

    global _events
    used = resource.getrusage(resource.RUSAGE_SELF)
    budget = int(used.ru_utime + used.ru_stime) + CPU_SECONDS
    resource.setrlimit(resource.RLIMIT_CPU, (budget, resource.RLIM_INFINITY))
    _events = []
    try:
        results = load_results(path)
        outcome, message = "loaded", f"{len(results.frame)} rows"
    except InvalidInputError as exc:
        outcome, message = "refused", str(exc.record)
    except BaseException as exc:  # what kprofile would print as a traceback
        outcome, message = "error", f"{type(exc).__name__}: {exc}"[:500]
    events, _events = _events, None
    return {"path": path, "outcome": outcome, "message": message, "events": events}


def main() -> int:
    _warm_up()
    _limit_memory()
    sys.addaudithook(_audit)
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(_one(line.strip())), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
