"""Learned token ratios per model, from provider-reported input usage, kept in the state directory.

A ratio is integer tokens per million characters (``ppm``). It rises at once when a
request used more tokens than the ratio predicts (an overrun is never repeated), and
falls only slowly when requests use fewer, so one short request cannot make the next
long one overrun. The file is JSON with a digest of its content: a file changed
behind the library's back is a typed error, never a ratio.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from lychd_core.digests import canonical_json, sha256_digest
from lychd_core.errors import CalibrationError

CALIBRATION_FILE = "token-calibration.json"
FORMAT = "lychd-token-calibration@1"
PPM = 1_000_000
HEADROOM_PER_MILLE = 20
"""A rise goes 2% past what was observed, so the same request again does not overrun."""
FALL_PER_MILLE = 50
"""A fall closes 5% of the gap to the observed ratio (plus headroom) per sample."""
_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Ratio:
    """One model's learned ratio and how many samples taught it."""

    ppm: int
    samples: int


def learned(current_ppm: int, chars: int, reported_tokens: int) -> int:
    """The next ratio after a request of ``chars`` characters that the provider billed ``reported_tokens``."""
    if type(chars) is not int or chars < 1 or type(reported_tokens) is not int or reported_tokens < 0:
        raise CalibrationError(
            f"a calibration sample needs chars >= 1 and reported tokens >= 0 (integers), got {chars!r} and "
            f"{reported_tokens!r}"
        )
    observed = -(-reported_tokens * PPM // chars)
    target = observed + -(-observed * HEADROOM_PER_MILLE // 1000)
    if target >= current_ppm:
        return target  # an overrun (or a tie): rise at once
    return current_ppm - (current_ppm - target) * FALL_PER_MILLE // 1000


def count_with(ppm: int, text: str) -> int:
    """Tokens of ``text`` at ``ppm`` tokens per million characters, rounded up."""
    return -(-len(text) * ppm // PPM)


class CalibrationStore:
    """The ratios in ``state_dir / token-calibration.json``; writes are atomic (temp file, rename)."""

    def __init__(self, state_dir: Path) -> None:
        self.path = Path(state_dir) / CALIBRATION_FILE

    def load(self) -> dict[str, Ratio]:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise CalibrationError(f"cannot read {self.path}: {exc}") from exc
        try:
            data = json.loads(raw)
            ratios = data["ratios"]
            if data.get("format") != FORMAT or data.get("digest") != sha256_digest(canonical_json(ratios)):
                raise ValueError("its digest or format does not match its content")
            return {model: Ratio(int(r["ppm"]), int(r["samples"])) for model, r in sorted(ratios.items())}
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise CalibrationError(
                f"{self.path} is not a lychd token calibration ({exc}); it was changed outside lychd: "
                "delete it to learn the ratios again"
            ) from None

    def ratio(self, model: str) -> Ratio | None:
        return self.load().get(model)

    def record(self, model: str, chars: int, reported_tokens: int, initial_ppm: int) -> Ratio:
        """Learn from one request's usage and persist; returns the model's new ratio."""
        if not model:
            raise CalibrationError("a calibration sample needs the model's name")
        with _lock:
            ratios = self.load()
            current = ratios.get(model)
            ppm = learned(initial_ppm if current is None else current.ppm, chars, reported_tokens)
            ratios[model] = Ratio(ppm, 1 if current is None else current.samples + 1)
            self._write(ratios)
        return ratios[model]

    def _write(self, ratios: dict[str, Ratio]) -> None:
        body = {model: {"ppm": r.ppm, "samples": r.samples} for model, r in sorted(ratios.items())}
        text = json.dumps({"format": FORMAT, "digest": sha256_digest(canonical_json(body)), "ratios": body}, indent=1)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".token-calibration.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text + "\n")
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
