"""A progress bar on standard error for long work, shown only to a person watching.

Shown when standard error is a terminal and the work is long (more than
:data:`LONG_WORK` items), so pipes, files and CI logs get none; transient, so the
screen keeps only the result. Standard output is never touched: a summary, prompt or
JSON there stays clean whatever the bar does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from lychd_core.cli.output import err_console

if TYPE_CHECKING:
    from rich.console import Console

LONG_WORK = 20
"""More items than this is long enough for a bar (a warm run of fewer is over at once)."""

Advance = Callable[[int], None]


def shows_progress(total: int, console: Console | None = None) -> bool:
    """Whether work of ``total`` items gets a bar on ``console`` (default: standard error)."""
    return total > LONG_WORK and (console or err_console).is_terminal


@contextmanager
def progress_bar(what: str, total: int, console: Console | None = None) -> Iterator[Advance | None]:
    """Yield a callback that advances the bar by its argument, or ``None`` when no bar is shown."""
    target = console or err_console
    if not shows_progress(total, target):
        yield None
        return
    # rich's progress and live display load only for a bar: pipes and files never show one (issue 30)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn(what), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=target, transient=True) as bar:
        task = bar.add_task(what, total=total)
        yield lambda done: bar.advance(task, done)
