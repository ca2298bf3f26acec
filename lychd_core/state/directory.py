"""The state directory (``.lychd`` by default): created with its own ``.gitignore`` and
``CACHEDIR.TAG``, as pytest, ruff and mypy mark their caches.

``.gitignore`` holding ``*`` keeps git from offering anything in it (itself included);
``CACHEDIR.TAG`` (https://bford.info/cachedir/) makes ``tar --exclude-caches``, borg
and restic skip it, and makes lychd's own walks skip it. Marking is best effort: a
read-only workspace still projects and assembles, without a state directory.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

CACHEDIR_SIGNATURE = "Signature: 8a477f597d28d172789f06886806bc55"
GITIGNORE_TEXT = "# Created by lychd: its state (caches, memory, vault) is never committed.\n*\n"
CACHEDIR_TAG_TEXT = (
    f"{CACHEDIR_SIGNATURE}\n"
    "# This file is a cache directory tag created by lychd.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)
MARKERS = {".gitignore": GITIGNORE_TEXT, "CACHEDIR.TAG": CACHEDIR_TAG_TEXT}


def prepare_state_dir(state_dir: Path) -> None:
    """Create ``state_dir`` with its markers when it is missing; an existing directory
    is left exactly as it is (its owner may have put it there on purpose)."""
    if os.path.lexists(state_dir):
        return
    try:
        state_dir.mkdir(parents=True)
    except OSError:
        return  # raced by another process (which marks it), or unwritable: the store reports why
    for name, text in MARKERS.items():
        with contextlib.suppress(FileExistsError, OSError):
            fd = os.open(state_dir / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(text)


def is_cache_dir(directory: Path) -> bool:
    """Whether ``directory`` holds a valid ``CACHEDIR.TAG`` (its first bytes the signature)."""
    try:
        with (directory / "CACHEDIR.TAG").open("rb") as handle:
            return handle.read(len(CACHEDIR_SIGNATURE)) == CACHEDIR_SIGNATURE.encode()
    except OSError:
        return False
