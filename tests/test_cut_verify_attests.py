"""`lychd cut verify` attests every field of a stored chain (issue 27, finding 1).

Receipt digests are unkeyed, so a chain whose receipts were rewritten and whose parent
digests were recomputed to match is still well linked; the verifier must derive every
field again from the cut. Each tampering below once printed `verdict: pass`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.cli import main
from lychd_core.cli.cut_chain import parse_chain
from lychd_core.cli.cut_cmd import _profile, _source, verify_stored
from lychd_core.cli.loading import command_config
from lychd_core.errors import CutInputError, CutReason, LychdError
from lychd_core.inputs import parse_json
from lychd_core.privacy import ClosedVocabulary, TransformationReceipt
from tests.support.cuts import FIXTURES, NOW, OWNER
from tests.support.sensitive import captured

ROOT = Path(__file__).resolve().parents[1]
REPORT = "tests/fixtures/privacy/pip-audit.json"
PROFILE = str(ROOT / "profiles" / "default.toml")  # labels this repository's fixture report private
COMMON = ("--vocabulary", str(FIXTURES / "vocabulary.toml"), "--owner", OWNER, "--now", str(NOW), "--config", PROFILE)
VERIFY = ("cut", "verify", REPORT, "--workspace", str(ROOT), *COMMON)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    captured(out, err)
    return code, out, err


@pytest.fixture(scope="module")
def stored_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    chain = tmp_path_factory.mktemp("chain") / "chain.json"
    plan = str(FIXTURES / "plan.toml")
    assert main(["cut", "prepare", REPORT, "--workspace", str(ROOT), "--plan", plan, *COMMON, "--out", str(chain)]) == 0
    return chain.read_text(encoding="utf-8")


def relinked(data: dict[str, Any]) -> dict[str, Any]:
    """Recompute every parent digest so the rewritten chain is well linked again (what an attacker does)."""
    receipts = [TransformationReceipt.from_json(item) for item in data["receipts"]]
    fixed: list[TransformationReceipt] = []
    for receipt in receipts:
        fixed.append(receipt.model_copy(update={"parents": tuple(r.digest for r in fixed)}))
    data["receipts"] = [receipt.to_json() for receipt in fixed]
    data["verification"]["receipt_digests"] = [receipt.digest for receipt in fixed]
    return data


def _set(index: int, field: str, value: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def edit(data: dict[str, Any]) -> dict[str, Any]:
        data["receipts"][index][field] = value
        return relinked(data)

    return edit


TAMPERING = {
    "terminal transformer renamed": _set(1, "transformer", "closed-diagnostic-lax@1"),
    "importer transformer renamed": _set(0, "transformer", "other-import@1"),
    "terminal operations emptied": _set(1, "operations", []),
    "operations rewritten": _set(1, "operations", [{"operation": "pseudonymize", "category": "owner", "count": 99}]),
    "importer operations rewritten, parents relinked": _set(
        0, "operations", [{"operation": "encode", "category": "record", "count": 3}]
    ),
    "importer omissions hidden, parents relinked": _set(0, "operations", []),
    "importer expiry moved": _set(0, "expires_at", NOW + 10),
    "terminal expiry moved": _set(1, "expires_at", NOW + 10),
}


@pytest.mark.parametrize("case", sorted(TAMPERING))
def test_a_rewritten_receipt_fails_verify_with_a_typed_reason(
    case: str, stored_text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chain = tmp_path / "chain.json"
    chain.write_text(json.dumps(TAMPERING[case](json.loads(stored_text))))
    code, out, err = run(capsys, *VERIFY, "--chain", str(chain), "--json")
    assert code == 1 and "Traceback" not in err and "internal error" not in err
    verdict = json.loads(out)
    assert verdict["verdict"] == "fail" and verdict["reason"] in {"receipt-mismatch", "chain-broken"}, verdict


def test_the_untampered_chain_passes_and_names_the_receipt_check(
    stored_text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chain = tmp_path / "chain.json"
    chain.write_text(stored_text)
    code, out, _ = run(capsys, *VERIFY, "--chain", str(chain), "--json")
    assert code == 0 and "receipts" in json.loads(out)["checks"]


class Verifier:
    """`cut verify`'s own code, with the report, config and vocabulary read once (for many flips)."""

    def __init__(self) -> None:
        self.args = argparse.Namespace(
            report=REPORT, workspace=str(ROOT), config=PROFILE, format="pip-audit", owner=OWNER, now=NOW
        )
        self.config = command_config(self.args)
        self.profile, self.options = _profile(self.config)
        self.vocabulary = ClosedVocabulary.load(FIXTURES / "vocabulary.toml")
        self.sourced = _source(self.args, self.profile)

    def outcome(self, text: str) -> str:
        """``pass``, a typed refusal's class, or the failing verdict's reason (never anything else)."""
        try:
            stored = parse_chain(parse_json(text, source="chain", error=CutInputError, allow_floats=False))
            verification = verify_stored(
                self.args, self.config, self.profile, self.options, self.vocabulary, stored, self.sourced
            )
        except LychdError as exc:
            return type(exc).__name__
        return "pass" if verification.verdict == "pass" else str(verification.reason)


@pytest.fixture(scope="module")
def verifier() -> Verifier:
    return Verifier()


def _region(text: str, start_marker: str, end_marker: str) -> range:
    start = text.index(start_marker)
    return range(start, text.index(end_marker, start))


def test_every_single_byte_flip_in_the_label_schema_and_verification_fails(
    stored_text: str, verifier: Verifier
) -> None:
    assert verifier.outcome(stored_text) == "pass"
    offsets = [
        *_region(stored_text, '"label"', '"section"'),  # the candidate's label
        *_region(stored_text, '"schema": "CallProjection@1"', '"verification"'),
        *_region(stored_text, '"verification"', "\n}"),
    ]
    data = stored_text.encode()
    accepted = []
    for offset in offsets:
        flipped = bytearray(data)
        flipped[offset] ^= 0x01
        try:
            text = flipped.decode("utf-8")
        except UnicodeDecodeError:
            continue  # the strict reader refuses it before parsing
        if verifier.outcome(text) == "pass":
            accepted.append(offset)
    assert accepted == [], [stored_text[o - 20 : o + 20] for o in accepted[:3]]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_flipped_byte_anywhere_in_the_chain_never_passes(stored_text: str, verifier: Verifier, data: Any) -> None:
    raw = bytearray(stored_text.encode())
    offset = data.draw(st.integers(0, len(raw) - 1))
    raw[offset] ^= data.draw(st.sampled_from([0x01, 0x02, 0x20, 0x40]))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return
    assert verifier.outcome(text) != "pass"


def test_the_stored_verification_must_be_the_derived_one(stored_text: str, verifier: Verifier) -> None:
    data = json.loads(stored_text)
    data["verification"]["checks"] = ["plan"]
    assert verifier.outcome(json.dumps(data)) == str(CutReason.VERDICT_FAILED)
    data = json.loads(stored_text)
    data["lease"] = {"lease_id": "lease_abcdefgh", "expires_at": NOW}
    assert verifier.outcome(json.dumps(data)) == str(CutReason.VERDICT_FAILED)
    data = json.loads(stored_text)
    data["extra"] = 1
    assert verifier.outcome(json.dumps(data)) == "CutInputError"
