"""Learned per-model ratios: rise at once on an overrun, fall slowly, persisted and verified."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.config import default_config, parse_config
from lychd_core.errors import CalibrationError
from lychd_core.registry import get_registry
from lychd_core.tokens import CalibrationStore, learned
from lychd_core.tokens.calibration import CALIBRATION_FILE, count_with
from lychd_core.tokens.resolve import resolve_counter

INITIAL = 333_334


def test_an_overrun_raises_the_ratio_at_once_past_what_was_observed() -> None:
    ratio = learned(INITIAL, 1_000, 500)  # the provider billed 0.5 tokens per character
    assert ratio >= 500_000
    assert count_with(ratio, "x" * 1_000) >= 500  # the same request again does not overrun


def test_fewer_tokens_lower_the_ratio_only_slowly() -> None:
    high = learned(INITIAL, 1_000, 500)
    lower = learned(high, 1_000, 100)
    assert 100_000 < lower < high
    assert high - lower <= (high - 100_000) // 10  # closes at most a tenth of the gap per sample


@settings(max_examples=80, deadline=None)
@given(
    current=st.integers(1, 4_000_000),
    chars=st.integers(1, 10**5),
    reported=st.integers(0, 10**7),
)
def test_after_any_sample_that_request_is_never_under_counted(current: int, chars: int, reported: int) -> None:
    ratio = learned(current, chars, reported)
    assert count_with(ratio, "x" * chars) >= reported
    if ratio < current:  # a fall closes at most 5% of the gap, so at most 5% of the ratio
        assert current - ratio <= current // 20 + 1


@pytest.mark.parametrize(("chars", "reported"), [(0, 5), (-1, 5), (10, -1)])
def test_an_impossible_sample_is_refused(chars: int, reported: int) -> None:
    with pytest.raises(CalibrationError, match="calibration sample"):
        learned(INITIAL, chars, reported)


def test_the_store_persists_per_model_and_counts_samples(tmp_path: Path) -> None:
    store = CalibrationStore(tmp_path)
    store.record("openai:gpt-4o", 1_000, 400, INITIAL)
    second = store.record("openai:gpt-4o", 1_000, 300, INITIAL)
    store.record("anthropic:claude", 1_000, 350, INITIAL)
    again = CalibrationStore(tmp_path).load()
    assert again["openai:gpt-4o"] == second and second.samples == 2
    assert set(again) == {"anthropic:claude", "openai:gpt-4o"}
    assert not [p for p in tmp_path.iterdir() if p.name != CALIBRATION_FILE]  # no temporary left


def test_a_file_changed_behind_the_library_is_refused(tmp_path: Path) -> None:
    store = CalibrationStore(tmp_path)
    store.record("m", 1_000, 400, INITIAL)
    data = json.loads(store.path.read_text())
    data["ratios"]["m"]["ppm"] = 1  # someone lowers the ratio by hand
    store.path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="changed outside lychd"):
        store.load()
    store.path.write_text("not json")
    with pytest.raises(CalibrationError, match="delete it"):
        store.record("m", 10, 1, INITIAL)


def test_a_model_name_is_required(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="model's name"):
        CalibrationStore(tmp_path).record("", 10, 1, INITIAL)


def test_the_calibrated_counter_uses_the_learned_ratio_of_its_model(tmp_path: Path) -> None:
    data = default_config().model_dump(mode="python")
    data["tokens"] = {"models": {"openai:gpt-4o": {"counter": "calibrated@1"}}}
    config = parse_config(data, "test")
    before = resolve_counter(config, get_registry(), model="openai:gpt-4o", state_dir=tmp_path)
    assert before.count("x" * 300) == 101  # the initial ratio, about chars/3
    CalibrationStore(tmp_path).record("openai:gpt-4o", 300, 150, INITIAL)  # an overrun: 0.5 per character
    after = resolve_counter(config, get_registry(), model="openai:gpt-4o", state_dir=tmp_path)
    assert after.count("x" * 300) >= 150
    other = resolve_counter(config, get_registry(), model="other", state_dir=tmp_path)
    assert other.pin == "reference"
