"""Running a click command under the project's error policy, for both console scripts.

User mistakes (``CodegenError`` and click usage errors) become one line per problem on
stderr and exit code 2; a closed pipe (``| head``) ends quietly. Tests call the
commands' ``main(argv)``, which goes through here, so they see the real exit codes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import click

from hooks.errors import EXIT_INPUT_ERROR, EXIT_OK, CodegenError, CodegenErrors


def run_command(command: click.Command, argv: Sequence[str] | None, prog: str) -> int:
    try:
        code = command.main(
            args=list(argv) if argv is not None else None,
            prog_name=prog,
            standalone_mode=False,
        )
    except CodegenErrors as exc:
        for error in exc.errors:
            print(error, file=sys.stderr)
        return EXIT_INPUT_ERROR
    except CodegenError as exc:
        print(exc, file=sys.stderr)
        return EXIT_INPUT_ERROR
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except click.exceptions.Abort:
        print(f"{prog}: error: aborted", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except click.ClickException as exc:
        print(f"{prog}: error: {exc.format_message()}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    return EXIT_OK if code is None else int(code)  # None: --help was printed
