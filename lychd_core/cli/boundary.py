"""The one place where the ``lychd`` command turns outcomes into exit codes.

0 ok; 1 a typed refusal (``LychdError``), an output that could not be written, or an
unexpected error (reported in one line, never a traceback unless ``LYCHD_DEBUG=1``);
2 usage (argparse, or an argument that is not valid UTF-8); 130 interrupted by the user.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import traceback
from collections.abc import Callable, Sequence

from rich.markup import escape

from lychd_core.cli.output import err_console
from lychd_core.errors import LychdError

DEBUG_ENV = "LYCHD_DEBUG"
OUTPUT_ERRNOS = frozenset({errno.EPIPE, errno.ENOSPC, errno.EBADF, errno.EIO, errno.EDQUOT})


def _report(text: str) -> None:
    with contextlib.suppress(OSError, ValueError):  # stderr gone too: the exit code is all that is left
        err_console.print(text, soft_wrap=True)


def ensure_standard_streams() -> None:
    """Give closed descriptors 0-2 ``/dev/null`` so no store file can land on them,
    and write undecodable text with escapes instead of failing."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, os.O_RDWR)
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (lives as long as the process)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def undecodable_argument(argv: Sequence[str]) -> int | None:
    """Index of the first argument holding bytes that were not UTF-8 (lone surrogates)."""
    for index, argument in enumerate(argv):
        try:
            argument.encode("utf-8")
        except UnicodeEncodeError:
            return index
    return None


def _silence_stdout() -> None:
    """After a failed write, point stdout at /dev/null so the exit-time flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def run_guarded(command: Callable[[], int]) -> int:
    """Run ``command`` and map whatever it raises to an exit code, with a one-line message."""
    try:
        code = command()
        sys.stdout.flush()
        return code
    except LychdError as exc:
        _report(f"[bold red]error:[/] {type(exc).__name__}: {escape(str(exc))}")
        return 1
    except KeyboardInterrupt:
        _report("interrupted")
        return 130
    except OSError as exc:
        if exc.errno in OUTPUT_ERRNOS:
            _silence_stdout()
            _report(f"[bold red]error:[/] cannot write the output: {escape(exc.strerror or str(exc))}")
            return 1
        return _internal(exc)
    except (Exception, RecursionError, MemoryError) as exc:
        return _internal(exc)


def _internal(exc: BaseException) -> int:
    if os.environ.get(DEBUG_ENV):
        traceback.print_exception(exc)
    _report(
        f"[bold red]internal error:[/] {type(exc).__name__}: {escape(str(exc)[:500])} "
        f"(a bug in lychd; set {DEBUG_ENV}=1 to see where)"
    )
    return 1
