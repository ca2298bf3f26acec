""".gitignore-aware directory walking for ``lychd project`` (pathspec's git semantics).

Every ``.gitignore`` from the workspace root down to each directory applies to the
paths below it, deeper files taking precedence (as in git). ``.git``, ``.lychd``, the
given skipped directories (the state directory) and any directory holding a valid
``CACHEDIR.TAG`` (as ``tar --exclude-caches`` skips) are never entered; symlinked
directories are not followed. Symlinks and special files are listed, so reading them reports why
they are refused instead of hiding them.

The walk is hostile-input safe: it keeps an explicit stack (a tree thousands of levels
deep cannot exhaust the interpreter's recursion), reads a ``.gitignore`` only when it
is a regular file under :data:`MAX_GITIGNORE_BYTES`, refuses a ``.gitignore`` whose
patterns could backtrack catastrophically (more than :data:`MAX_STAR_RUNS` runs of
``*``) by not walking its directory (fail closed: nothing it might ignore is read),
and reports a name that is not UTF-8 or holds control characters instead of failing.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from lychd_core.state.directory import is_cache_dir

GITIGNORE = ".gitignore"
NEVER_WALKED = frozenset({".git", ".lychd"})
CACHEDIR_TAG = "CACHEDIR.TAG"
MAX_GITIGNORE_BYTES = 1 << 20
MAX_STAR_RUNS = 2
"""Runs of ``*`` one pattern may hold; three already take seconds per path in pathspec's regexes."""
_STAR_RUN = re.compile(r"\*+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class _Rules:
    base: str
    """Workspace-relative directory of the .gitignore ('' for the root)."""
    spec: pathspec.GitIgnoreSpec


@dataclass
class WalkResult:
    """Workspace-relative POSIX paths found, sorted, plus directories that could not be read
    and entries refused by name (shown escaped), each with its reason."""

    files: list[str] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)


class _Unusable(Exception):
    """A .gitignore that cannot be applied safely."""


def name_problem(name: str) -> str | None:
    """Why a file name cannot become a material path, or None when it can."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "its name is not valid UTF-8; rename it to project it"
    if _CONTROL.search(name):
        return "its name holds a control character (newline, tab, escape...); rename it to project it"
    return None


def shown(path: str) -> str:
    """``path`` safe to print: undecodable bytes and control characters escaped."""
    return ascii(path)[1:-1] if name_problem(path) else path


def _read_gitignore(directory: Path) -> str | None:
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(directory / GITIGNORE, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _Unusable(f"its {GITIGNORE} cannot be opened ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _Unusable(f"its {GITIGNORE} is not a regular file")
        if info.st_size > MAX_GITIGNORE_BYTES:
            raise _Unusable(f"its {GITIGNORE} is over {MAX_GITIGNORE_BYTES} bytes")
        data = os.read(fd, MAX_GITIGNORE_BYTES + 1)
    except OSError as exc:
        raise _Unusable(f"its {GITIGNORE} cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    return data[:MAX_GITIGNORE_BYTES].decode("utf-8", errors="replace")


def _load(directory: Path, base: str) -> _Rules | None:
    text = _read_gitignore(directory)
    if text is None:
        return None
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        if not line.startswith("#") and len(_STAR_RUN.findall(line)) > MAX_STAR_RUNS:
            raise _Unusable(
                f"its {GITIGNORE} line {number} has more than {MAX_STAR_RUNS} runs of '*', which lychd does "
                "not match (unbounded backtracking); simplify the pattern"
            )
    try:
        return _Rules(base, pathspec.GitIgnoreSpec.from_lines(lines))
    except (ValueError, TypeError, re.error) as exc:
        raise _Unusable(f"its {GITIGNORE} has a pattern pathspec refuses: {exc}") from None


def is_ignored(rules: list[_Rules], path: str, is_dir: bool) -> bool:
    """Whether the deepest .gitignore with an opinion on ``path`` ignores it."""
    for rule in reversed(rules):
        relative = path[len(rule.base) + 1 :] if rule.base else path
        result = rule.spec.check_file(relative + "/" if is_dir else relative)
        if result.include is not None:
            return bool(result.include)
    return False


def walk_files(start: Path, root: Path, skip: Collection[Path] = ()) -> WalkResult:
    """Files under ``start`` (inside ``root``), honoring .gitignore files, in sorted order."""
    root = root.resolve()
    start = Path(os.path.abspath(start))
    start = start.parent.resolve() / start.name if start != root else root
    relative_start = start.relative_to(root).as_posix()
    result = WalkResult()
    rules: list[_Rules] = []
    directory, base = root, ""
    for part in [] if relative_start == "." else relative_start.split("/"):
        try:
            found = _load(directory, base)
        except _Unusable as exc:
            result.unreadable.append((shown(base or "."), str(exc)))
            return result
        if found is not None:
            rules.append(found)
        directory = directory / part
        base = f"{base}/{part}" if base else part
    skipped = {Path(os.path.abspath(path)) for path in skip}
    _walk(start, "" if relative_start == "." else relative_start, rules, skipped, result)
    result.files.sort()
    return result


def _walk(start: Path, start_base: str, start_rules: list[_Rules], skipped: set[Path], result: WalkResult) -> None:
    """Depth-first over an explicit stack: no recursion, whatever the depth."""
    stack: list[tuple[Path, str, list[_Rules]]] = [(start, start_base, start_rules)]
    while stack:
        directory, base, rules = stack.pop()
        try:
            own = _load(directory, base)
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except _Unusable as exc:
            result.unreadable.append((shown(base or "."), str(exc)))
            continue
        except OSError as exc:
            result.unreadable.append((shown(base or "."), exc.strerror or str(exc)))
            continue
        if any(entry.name == CACHEDIR_TAG for entry in entries) and is_cache_dir(directory):
            continue  # a cache (another tool's, or a state directory elsewhere): nothing to project
        active = [*rules, own] if own is not None else rules
        for entry in reversed(entries):  # reversed: the stack pops in name order
            path = f"{base}/{entry.name}" if base else entry.name
            if entry.name in NEVER_WALKED:
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_ignored(active, path, is_dir):
                continue
            problem = name_problem(entry.name)
            if problem is not None:
                result.refused.append((shown(path), problem))
                continue
            if is_dir:
                if Path(entry.path) not in skipped:
                    stack.append((Path(entry.path), path, active))
            else:
                result.files.append(path)
    result.refused.sort()
