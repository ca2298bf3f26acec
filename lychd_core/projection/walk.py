""".gitignore-aware directory walking for ``lychd project`` (pathspec's git semantics).

Every ``.gitignore`` from the workspace root down to each directory applies to the
paths below it, deeper files taking precedence (as in git). ``.git`` and the given
skipped directories (the state directory) are never entered; symlinked directories
are not followed. Symlinks and special files are listed, so reading them reports why
they are refused instead of hiding them.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

GITIGNORE = ".gitignore"
NEVER_WALKED = frozenset({".git"})


@dataclass(frozen=True, slots=True)
class _Rules:
    base: str
    """Workspace-relative directory of the .gitignore ('' for the root)."""
    spec: pathspec.GitIgnoreSpec


@dataclass
class WalkResult:
    """Workspace-relative POSIX paths found, sorted, plus directories that could not be read."""

    files: list[str] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)


def _load(directory: Path, base: str) -> _Rules | None:
    try:
        text = (directory / GITIGNORE).read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except OSError:
        return None
    return _Rules(base, pathspec.GitIgnoreSpec.from_lines(text.splitlines()))


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
    rules: list[_Rules] = []
    directory, base = root, ""
    for part in [] if relative_start == "." else relative_start.split("/"):
        found = _load(directory, base)
        if found is not None:
            rules.append(found)
        directory = directory / part
        base = f"{base}/{part}" if base else part
    skipped = {Path(os.path.abspath(path)) for path in skip}
    result = WalkResult()
    _walk(start, "" if relative_start == "." else relative_start, rules, skipped, result)
    result.files.sort()
    return result


def _walk(directory: Path, base: str, rules: list[_Rules], skipped: set[Path], result: WalkResult) -> None:
    own = _load(directory, base)
    active = [*rules, own] if own is not None else rules
    try:
        entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except OSError as exc:
        result.unreadable.append((base or ".", exc.strerror or str(exc)))
        return
    for entry in entries:
        path = f"{base}/{entry.name}" if base else entry.name
        if entry.name in NEVER_WALKED:
            continue
        is_dir = entry.is_dir(follow_symlinks=False)
        if is_ignored(active, path, is_dir):
            continue
        if is_dir:
            if Path(entry.path) not in skipped:
                _walk(Path(entry.path), path, active, skipped, result)
        else:
            result.files.append(path)
