"""Which signals end a run, and holding them back while files are renamed.

``SIGNALS``: every signal whose default action ends the process and that a handler may
be given (the faults aside: a handler for a real SIGSEGV would loop), the real-time
ones included. ``BLOCKED``: every signal that can be blocked, faults included (sent by
another process, they wait like the rest; a real fault kills the process whatever its
mask).
"""

from __future__ import annotations

import signal


def terminating() -> tuple[int, ...]:
    """The signals whose default action ends the process and that a handler may be
    given (the faults aside: a handler for a real SIGSEGV would loop)."""
    names = ("SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGUSR1", "SIGUSR2",
             "SIGALRM", "SIGVTALRM", "SIGPROF", "SIGXCPU", "SIGXFSZ", "SIGIO",
             "SIGPWR", "SIGSTKFLT")  # fmt: skip
    found = {int(getattr(signal, n)) for n in names if hasattr(signal, n)}
    if hasattr(signal, "SIGRTMIN"):
        found.update(range(signal.SIGRTMIN, signal.SIGRTMAX + 1))
    return tuple(sorted(found))


SIGNALS = terminating()
# Held back between the first and the last rename: every signal that can be.
BLOCKED = frozenset(signal.valid_signals()) - {signal.SIGKILL, signal.SIGSTOP}


def block_signals() -> set[int | signal.Signals] | None:
    """Block every signal that can be; the mask before (None: not the main thread's
    to change, or no such call here)."""
    try:
        return signal.pthread_sigmask(signal.SIG_BLOCK, BLOCKED)
    except (ValueError, OSError, AttributeError):
        return None
