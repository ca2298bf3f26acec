"""TransformationReceipt@1 chains: ordered, digest-bound, free of sensitive values; golden bytes."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pytest
from lychd_closed_diagnostic import PROFILE, import_report

from lychd_core.digests import canonical_json
from lychd_core.errors import CutReason, ReceiptError
from lychd_core.privacy import SealAuthority, TransformationReceipt, verify_cut
from lychd_core.privacy.prepare import prepare_cut
from tests.support.cuts import (
    FIXTURES,
    NOW,
    OPTIONS,
    OWNER,
    POLICY,
    REPORT_LABEL,
    VOCABULARY,
    plan_for,
    report_bytes,
)
from tests.support.sensitive import SENSITIVE, captured

GOLDEN = FIXTURES / "golden.json"


def two_stage(owner: str = OWNER) -> tuple[object, object, tuple[TransformationReceipt, ...], object]:
    imported = import_report(report_bytes(), owner, REPORT_LABEL)
    plan = plan_for(imported.projection)
    first = imported.receipt(plan, POLICY)
    censored = PROFILE.censor(imported.projection, plan, VOCABULARY, OPTIONS, chain=(first,))
    return imported, plan, censored.receipts, censored.candidate


def verdict(receipts: tuple[TransformationReceipt, ...], imported: object = None) -> CutReason | None:
    base, plan, _, candidate = two_stage()
    imported = imported or base
    result = verify_cut(
        source=imported.projection,  # type: ignore[attr-defined]
        candidate=candidate,  # type: ignore[arg-type]
        plan=plan,  # type: ignore[arg-type]
        receipts=receipts,
        grammar=PROFILE.grammar,
        vocabulary=VOCABULARY,
        policy_digest=POLICY,
        now=NOW,
        transformer=PROFILE.pin,
        chain=(imported.receipt(plan, POLICY),),  # type: ignore[attr-defined]
        origin_digest=imported.report_digest,  # type: ignore[attr-defined]
    )
    return result.reason


def test_an_importer_and_the_censor_compose_into_one_sealed_chain() -> None:
    imported, plan, receipts, _ = two_stage()
    assert [r.transformer for r in receipts] == ["pip-audit-import@1", "closed-diagnostic@1"]
    assert receipts[0].input_digest == imported.report_digest  # type: ignore[attr-defined]
    assert receipts[1].input_digest == receipts[0].output_digest
    assert receipts[1].parents == (receipts[0].digest,) and receipts[1].terminal
    assert {(o.operation, o.category, o.count) for o in receipts[0].operations} == {
        ("encode", "record", 3),
        ("omit", "description", 2),
        ("omit", "self", 1),
    }
    prepared = prepare_cut(
        PROFILE, imported.projection, plan, VOCABULARY, OPTIONS, SealAuthority(), now=NOW,  # type: ignore[arg-type]
        chain=receipts[:1], origin_digest=imported.report_digest,  # type: ignore[attr-defined]
    )  # fmt: skip
    assert prepared.receipts == receipts


def test_receipts_hold_no_sensitive_value_filename_or_prose() -> None:
    _, _, receipts, _ = two_stage()
    text = json.dumps([r.to_json() for r in receipts])
    captured(text)
    for forbidden in (*SENSITIVE, "pip-audit.json", "reports/", "xmlattr", "Cookie", "vulnerability-report"):
        assert forbidden not in text


@pytest.mark.parametrize(
    "mangle",
    [
        pytest.param(lambda r: (r[1], r[0]), id="reordered"),
        pytest.param(lambda r: (r[1],), id="dropped-first"),
        pytest.param(lambda r: (r[0],), id="dropped-terminal"),
        pytest.param(lambda r: (r[0], r[0], r[1]), id="duplicated"),
        pytest.param(lambda r: (r[0], r[1], r[1]), id="duplicated-terminal"),
        pytest.param(lambda r: (), id="empty"),
    ],
)
def test_a_mangled_chain_is_broken(mangle: object) -> None:
    _, _, receipts, _ = two_stage()
    assert verdict(mangle(receipts)) is CutReason.CHAIN_BROKEN  # type: ignore[operator]


def test_a_spliced_receipt_or_one_from_another_cut_is_broken() -> None:
    _, _, receipts, _ = two_stage()
    _, _, foreign, _ = two_stage()  # another plan: a fresh restricted ref
    assert verdict((foreign[0], receipts[1])) is CutReason.CHAIN_BROKEN
    assert verdict((receipts[0], foreign[1])) is CutReason.CHAIN_BROKEN
    spliced = receipts[1].model_copy(update={"parents": ()})
    assert verdict((receipts[0], spliced)) is CutReason.CHAIN_BROKEN
    relinked = receipts[1].model_copy(update={"input_digest": receipts[0].input_digest})
    assert verdict((receipts[0], relinked)) is CutReason.CHAIN_BROKEN
    other = import_report(report_bytes().replace(b"2.31.0", b"4.2.0"), OWNER, REPORT_LABEL)
    assert verdict(receipts, other) is not None


def test_malformed_receipts_are_typed_errors() -> None:
    _, _, receipts, _ = two_stage()
    good = receipts[0].to_json()
    for bad in (
        {**good, "expires_at": math.nan},
        {**good, "expires_at": 1.5},
        {**good, "input_digest": "sha256:nothex"},
        {**good, "transformer": "closed diagnostic"},
        {**good, "operations": [{"operation": "redact", "category": "Acme Billing", "count": 1}]},
        {**good, "operations": [{"operation": "rehydrate", "category": "owner", "count": 1}]},
        {**good, "raw_span": "acme"},
        {**good, "schema": "TransformationReceipt@2"},
    ):
        with pytest.raises(ReceiptError):
            TransformationReceipt.from_json(bad)
    assert TransformationReceipt.from_json(good) == receipts[0]


def golden_values() -> dict[str, str]:
    imported = import_report(report_bytes(), OWNER, REPORT_LABEL)
    plan = plan_for(imported.projection, restricted_ref="local:" + "0" * 32)
    censored = PROFILE.censor(imported.projection, plan, VOCABULARY, OPTIONS, chain=(imported.receipt(plan, POLICY),))
    values = {
        "projection": canonical_json(imported.projection.to_json()).decode(),
        "candidate": canonical_json(censored.candidate.to_json()).decode(),
        "plan": canonical_json(plan.to_json()).decode(),
        "importer_receipt": canonical_json(censored.receipts[0].to_json()).decode(),
        "terminal_receipt": canonical_json(censored.receipts[1].to_json()).decode(),
    }
    return values | {
        "report_digest": imported.report_digest,
        "vocabulary_digest": VOCABULARY.digest,
        "policy_digest": POLICY,
    }


def test_golden_canonical_bytes_and_digests() -> None:
    """Regenerate only on a deliberate format change: python -m tests.test_privacy_receipts."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert golden_values() == golden["canonical"]
    for name, canonical in golden["canonical"].items():
        if name in golden["digests"]:
            assert "sha256:" + hashlib.sha256(canonical.encode()).hexdigest() == golden["digests"][name]
    receipts = [
        TransformationReceipt.from_json(json.loads(golden["canonical"][n]))
        for n in ("importer_receipt", "terminal_receipt")
    ]
    assert [r.digest for r in receipts] == [
        golden["digests"]["importer_receipt"],
        golden["digests"]["terminal_receipt"],
    ]
    assert receipts[1].parents == (receipts[0].digest,)


def write_golden(path: Path = GOLDEN) -> None:
    canonical = golden_values()
    digests = {
        name: "sha256:" + hashlib.sha256(text.encode()).hexdigest()
        for name, text in canonical.items()
        if not name.endswith("_digest")
    }
    path.write_text(json.dumps({"canonical": canonical, "digests": digests}, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    write_golden()
