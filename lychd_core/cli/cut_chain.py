"""The chain file of ``lychd cut prepare --out`` and ``lychd cut verify --chain``: written whole, read strictly.

Reading goes through the strict input layer (a regular file, bounded, strict JSON) and
accepts only the exact canonical form ``prepare`` writes: every part is parsed into its
typed model and must re-serialize to the very bytes stored, so a flipped byte anywhere
(a label, a schema name, the stored verdict) is either a typed refusal here or a field
the verifier derives again and compares.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lychd_core.errors import CutInputError, LychdError
from lychd_core.inputs import parse_json, read_input_bytes
from lychd_core.privacy import CallProjection, CutVerification, DisclosurePlan, TransformationReceipt
from lychd_core.privacy.prepare import PreparedCut

MAX_CHAIN_BYTES = 512 * 1024 * 1024
_PARTS = frozenset({"plan", "receipts", "verification", "candidate"})


@dataclass(frozen=True, slots=True)
class StoredChain:
    """A chain as ``prepare --out`` stored it: plan, receipts, the verdict, the candidate, and any lease."""

    plan: DisclosurePlan
    receipts: tuple[TransformationReceipt, ...]
    verification: CutVerification
    candidate: CallProjection
    lease: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        data = {
            "plan": self.plan.to_json(),
            "receipts": [receipt.to_json() for receipt in self.receipts],
            "verification": self.verification.to_json(),
            "candidate": self.candidate.to_json(),
        }
        return data | ({"lease": self.lease} if self.lease is not None else {})

    @classmethod
    def of(cls, prepared: PreparedCut, lease: dict[str, Any] | None) -> StoredChain:
        return cls(prepared.cut.plan, prepared.receipts, prepared.verification, prepared.candidate, lease)


def _canonical(name: str, parsed: Any, stored: Any) -> None:
    if parsed != stored:
        raise CutInputError(f"--chain: the stored {name} is not in the canonical form `lychd cut prepare` writes")


def _lease(value: Any) -> dict[str, Any]:
    if (
        not isinstance(value, dict)
        or value.keys() != {"lease_id", "expires_at"}
        or not isinstance(value["lease_id"], str)
        or type(value["expires_at"]) is not int
    ):
        raise CutInputError("--chain: the stored lease must be exactly a lease_id (string) and expires_at (integer)")
    return value


def parse_chain(data: Any) -> StoredChain:
    """A stored chain from parsed JSON; anything but the exact canonical form is a typed refusal."""
    if not isinstance(data, dict) or not data.keys() >= _PARTS or data.keys() - _PARTS - {"lease"}:
        raise CutInputError(f"--chain: expected an object of exactly {', '.join(sorted(_PARTS))} (and lease)")
    if not isinstance(data["receipts"], list):
        raise CutInputError("--chain: 'receipts' must be a list")
    try:
        chain = StoredChain(
            plan=DisclosurePlan.from_json(data["plan"]),
            receipts=tuple(TransformationReceipt.from_json(item) for item in data["receipts"]),
            verification=CutVerification.model_validate(data["verification"]),
            candidate=CallProjection.from_json(data["candidate"]),
            lease=_lease(data["lease"]) if "lease" in data else None,
        )
    except ValidationError as exc:
        raise CutInputError(f"--chain: the stored verification is not a CutVerification@1 ({exc.error_count()} "
                            f"problem(s): {exc.errors()[0]['msg']})") from None  # fmt: skip
    except LychdError:
        raise
    except ValueError as exc:
        raise CutInputError(f"--chain: the stored candidate is not a CallProjection@1: {exc}") from None
    for name, parsed in chain.to_json().items():
        _canonical(name, parsed, data[name])
    return chain


def read_chain(path: str) -> StoredChain:
    data = read_input_bytes(path, what="--chain", max_bytes=MAX_CHAIN_BYTES, error=CutInputError)
    return parse_chain(parse_json(data, source=f"--chain {path}", error=CutInputError, allow_floats=False))


def write_whole(path: str, text: str, *, what: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: whole or not at all.

    A missing folder, a directory or special file in the way, or a failed write is a
    typed refusal; nothing half-written is left behind.
    """
    target = Path(path)
    folder = target.parent
    if not folder.is_dir():
        raise CutInputError(f"{what} {path}: the folder {str(folder)!r} does not exist; create it first")
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise CutInputError(f"{what} {path}: cannot be checked: {exc.strerror or exc}") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise CutInputError(f"{what} {path}: is not a regular file (a directory, link or device); name a file")
    try:
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise CutInputError(f"{what} {path}: its folder is not writable: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise CutInputError(f"{what} {path}: cannot be written: {exc.strerror or exc}") from None


def write_chain(path: str, chain: StoredChain) -> None:
    write_whole(path, json.dumps(chain.to_json(), indent=2, sort_keys=True) + "\n", what="--out")
