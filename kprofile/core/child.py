"""Running a computation that Python cannot interrupt in a child process the parent can
stop: HiGHS, inside ``scipy.optimize.milp``, keeps the thread until it returns, so a
Ctrl-C would wait for the solve (tens of seconds). scipy exposes no callback to cancel
it.

``in_child(function, *args)`` forks (on Linux: the child shares the parent's memory,
so the arguments are not copied and nothing is imported again; elsewhere a spawned
interpreter gets them pickled), runs the function there and sends its result back
through a pipe. The parent waits on the pipe, where a signal reaches it at once: on
Ctrl-C (``KeyboardInterrupt``) or any other exception it kills the child and waits
for it before the exception goes on. The child ignores SIGINT (the terminal sends
it to the whole process group): the parent decides.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

T = TypeVar("T")

#: fork where it is safe and cheap (Linux); a new interpreter elsewhere.
_CONTEXT = (
    multiprocessing.get_context("fork")
    if sys.platform == "linux"
    else multiprocessing.get_context("spawn")
)


class ChildFailed(RuntimeError):
    """The child ended without an answer, or its function raised."""


def in_child(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``function(*args, **kwargs)``, computed in a child process."""
    receiver, sender = _CONTEXT.Pipe(duplex=False)
    process = _CONTEXT.Process(
        target=_run, args=(sender, function, args, kwargs), daemon=True
    )
    process.start()
    sender.close()
    try:
        ok, value = receiver.recv()
    except EOFError:
        process.join()
        raise ChildFailed(
            f"the solver's process ended without an answer (exit {process.exitcode})"
        ) from None
    except BaseException:  # Ctrl-C, SIGTERM: stop the child first
        process.kill()
        process.join()
        raise
    finally:
        receiver.close()
    process.join()
    if not ok:
        raise ChildFailed(value)
    result: T = value
    return result


def _run(
    sender: Connection,
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        answer: tuple[bool, Any] = (True, function(*args, **kwargs))
    except Exception as exc:  # reported in the parent, as a bug
        answer = (False, f"{type(exc).__name__}: {exc}")
    sender.send(answer)
    sender.close()
