"""The ``memdir`` command: a thin adapter over ``Memory``.

Every command prints for people by default and JSON with ``--json``. Errors from the library
(``MemdirError``) become one line on stderr saying what to do, and exit code 1; usage errors exit
with 2. ``MEMDIR_DEBUG=1`` shows the traceback instead.
"""

from __future__ import annotations

import os

import click

from ..errors import MemdirError
from .app import cli  # the commands' modules are imported as they are used (app.COMMANDS)

__all__ = ["cli", "main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    try:
        # with standalone_mode=False, ``ctx.exit(n)`` comes back as the return value
        result = cli.main(args=argv, prog_name="memdir", standalone_mode=False)
    except MemdirError as exc:
        if os.environ.get("MEMDIR_DEBUG") == "1":
            raise
        from ..records import escape_controls

        click.echo(escape_controls(f"error: {exc}"), err=True)
        return 1
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.Abort:
        click.echo("aborted", err=True)
        return 1
    except BrokenPipeError:
        return 0
    return result if isinstance(result, int) else 0
