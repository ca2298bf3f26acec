"""A lone surrogate in a memory (``"\\udc80"`` in JSON) is a typed refusal, never an encoder crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.cli import main
from lychd_core.errors import NonCanonicalError
from lychd_core.labels import PrivatizationLabel
from lychd_core.memory import MemoryRecord, MemoryScope
from tests.support.hostile import example_records


def _record(claim: str, label: PrivatizationLabel | None = None) -> MemoryRecord:
    return MemoryRecord(
        label=label,
        memory_id="m1",
        revision=1,
        scope=MemoryScope(project="p"),
        claim_type="fact",
        claim=claim,
        source_provenance="user",
        source_events=["e1"],
        confidence=5_000,
        token_estimate=10,
        created=1,
        observed=1,
    )


def test_memory_add_refuses_a_claim_with_a_lone_surrogate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(example_records()), encoding="utf-8")
    assert main(["memory", "add", str(good), "--workspace", str(tmp_path)]) == 0
    bad = dict(example_records()[0], id="surrogate", claim="a claim \udc80 split")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([bad]), encoding="utf-8")  # json.dumps writes the escape \udc80
    assert "\\udc80" in path.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["memory", "add", str(path), "--workspace", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    # refused by the JSON reader (the strict input layer) or by the record check: typed either way
    assert ("MemoryRecordError" in err or "NonCanonicalError" in err) and "lone surrogate" in err, err
    assert "claim" in err and "internal error" not in err
    assert main(["memory", "check", "--workspace", str(tmp_path), "--json"]) == 0
    assert '"surrogate"' not in capsys.readouterr().out


def test_a_label_name_with_a_lone_surrogate_is_refused_when_digested() -> None:
    label = PrivatizationLabel.model_validate({**PrivatizationLabel.public().model_dump(), "categories": {"c\ud800"}})
    record = _record("fine", label)
    with pytest.raises(NonCanonicalError, match="lone surrogate"):
        _ = record.digest


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=40), st.integers(0, 40), st.sampled_from(["\udc80", "\ud800", "\udfff"]))
def test_any_claim_either_digests_or_is_refused_typed(text: str, at: int, surrogate: str) -> None:
    claim = text[:at] + surrogate + text[at:]
    with pytest.raises(NonCanonicalError, match="lone surrogate"):
        _record(claim)
    if text.strip() and not any("\ud800" <= c <= "\udfff" for c in text):
        assert _record(text).digest.startswith("sha256:")
