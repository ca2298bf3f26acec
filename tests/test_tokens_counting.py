"""Token counters as a plugin family: registration, pins in [tokens], the bound counter and its cache."""

from __future__ import annotations

import types
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from lychd_core.assembly import ContextOrchestrator
from lychd_core.blocks import Block, Layer
from lychd_core.config import check_config, default_config, parse_config
from lychd_core.errors import (
    ConfigError,
    ContextBudgetExceededError,
    PluginValidationError,
    RevisionMismatchError,
    TokenCountError,
    UnknownPluginError,
)
from lychd_core.families import PluginFamily, TokenCountKind
from lychd_core.hookspecs import hookimpl
from lychd_core.plugins import PluginHost, PluginSource
from lychd_core.registry import build_registry, get_registry, registry_from
from lychd_core.tokens import REFERENCE_PIN, BoundCounter, parse_pin, reference_counter
from lychd_core.tokens.resolve import resolve_counter


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Words:
    name = "toy.words"
    revision = 1
    options_model = NoOptions
    kind = TokenCountKind.ESTIMATE
    tokenizer = "whitespace words"

    def count(self, text: str, options: BaseModel) -> int:
        return len(text.split())


def with_config(**tokens: Any) -> Any:
    data = default_config().model_dump(mode="python")
    data["tokens"] = tokens
    return parse_config(data, "test")


def test_lychd_register_token_counters_registers_through_the_hook() -> None:
    def lychd_register_token_counters(register: Any) -> None:
        register(Words())

    host = PluginHost()
    module = types.SimpleNamespace(lychd_register_token_counters=hookimpl(lychd_register_token_counters))
    host.register(module, "words", PluginSource("acme-words", "1"))
    entry = build_registry(host).resolve(PluginFamily.TOKEN_COUNTER, "toy.words", 1)
    assert (entry.distribution, entry.pin) == ("acme-words", "toy.words@1")


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"kind": "exact"}, "kind must be a TokenCountKind"),
        ({"tokenizer": ""}, "tokenizer must be a non-empty string"),
        ({"calibrated": True}, "needs a ratio_ppm field"),
        ({"count": None}, "has no callable count"),
    ],
)
def test_a_malformed_counter_is_refused_at_registration(attrs: dict[str, Any], message: str) -> None:
    bad = type("Bad", (Words,), attrs)()
    with pytest.raises(PluginValidationError, match=message):
        registry_from([(PluginFamily.TOKEN_COUNTER, bad)])


def test_pins_are_exact_name_at_revision() -> None:
    assert parse_pin("o200k_base@1") == ("o200k_base", 1)
    for bad in ("o200k_base", "o200k_base@", "o200k_base@0", "o200k_base@>=1", "O200K@1", "x@1.0"):
        with pytest.raises(ValueError, match="name@revision"):
            parse_pin(bad)


def test_a_bad_pin_in_the_config_names_the_form() -> None:
    with pytest.raises(ConfigError, match="name@revision"):
        with_config(counter="o200k_base")


def test_options_without_a_counter_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"tokens\.counter is not"):
        with_config(options={"model": "x"})


def test_check_config_names_an_unknown_counter_and_a_wrong_revision() -> None:
    with pytest.raises(ConfigError) as caught:
        check_config(with_config(counter="o200k-base@1", models={"m": {"counter": "o200k_base@7"}}), get_registry())
    text = str(caught.value)
    assert "tokens.counter" in text and "o200k_base" in text  # the close match is suggested
    assert 'tokens.models."m"' in text and "revision 7 is pinned" in text


def test_resolve_counter_refuses_unknown_and_mismatched_pins() -> None:
    with pytest.raises(UnknownPluginError):
        resolve_counter(with_config(counter="nope@1"), get_registry())
    with pytest.raises(RevisionMismatchError):
        resolve_counter(with_config(counter="utf8-bytes@2"), get_registry())


def test_no_counter_configured_is_the_reference_estimate() -> None:
    counter = resolve_counter(default_config(), get_registry())
    assert counter.pin == REFERENCE_PIN and counter.kind is TokenCountKind.ESTIMATE
    assert [counter.count("x" * n) for n in (0, 1, 3, 4)] == [0, 1, 1, 2]


def test_the_configured_counter_and_a_per_model_one() -> None:
    config = with_config(counter="utf8-bytes@1", models={"openai:gpt-4o": {"counter": "o200k_base@1"}})
    default, model = (
        resolve_counter(config, get_registry()),
        resolve_counter(config, get_registry(), model="openai:gpt-4o"),
    )
    assert (default.pin, default.kind, default.count("héllo")) == ("utf8-bytes@1", TokenCountKind.UPPER_BOUND, 6)
    assert (model.pin, model.kind, model.count("hello world")) == ("o200k_base@1", TokenCountKind.EXACT, 2)
    assert resolve_counter(config, get_registry(), model="other").pin == "utf8-bytes@1"


def test_counts_are_cached_and_the_cache_is_bounded() -> None:
    calls: list[str] = []

    def raw(text: str) -> int:
        calls.append(text)
        return len(text)

    counter = BoundCounter("toy@1", TokenCountKind.ESTIMATE, "chars", raw, cache_chars=10)
    assert counter.count("abcd") == counter.count("abcd") == 4
    assert calls == ["abcd"] and counter.stats().hits == 1
    counter.count("efghij")
    counter.count("klm")  # 4 + 6 + 3 > 10: the oldest is forgotten
    assert counter.stats().cached_chars <= 10
    counter.count("abcd")
    assert calls == ["abcd", "efghij", "klm", "abcd"]


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True, None])
def test_a_count_that_is_not_an_integer_at_least_zero_is_typed(bad: Any) -> None:
    counter = BoundCounter("toy@1", TokenCountKind.ESTIMATE, "x", lambda text: bad, "acme-toy")
    with pytest.raises(TokenCountError, match=r"toy@1 from acme-toy returned"):
        counter.count("text")


def test_a_counter_that_raises_is_typed_and_named() -> None:
    def broken(text: str) -> int:
        raise RuntimeError("boom")

    with pytest.raises(TokenCountError, match=r"toy@1 from acme-toy raised RuntimeError: boom"):
        BoundCounter("toy@1", TokenCountKind.ESTIMATE, "x", broken, "acme-toy").count("text")


def test_reference_counter_refuses_a_bad_ratio() -> None:
    with pytest.raises(ValueError, match="chars_per_token"):
        reference_counter(0)


SOURCE = "def load_config(path):\n    return tomllib.loads(Path(path).read_text())\n\n"
CJK = "配置在哪里读取？設定はどこで読み込まれますか。"


def assemble(config: Any, codex: list[Block], window: int = 2_000) -> Any:
    return ContextOrchestrator(config, window=window, reserve_output=100).assemble(
        run_id="r", session_id="s", query="Where is the config read?", codex=codex
    )


def test_selection_prices_nodes_with_the_configured_counter() -> None:
    block = Block(layer=Layer.CODEX, key="src.py", text=SOURCE * 20)
    exact = assemble(with_config(counter="o200k_base@1"), [block])
    reference = assemble(default_config(), [block])
    exact_tokens = exact.plan.graph.node("L2:src.py").token_estimate
    assert exact_tokens == resolve_counter(with_config(counter="o200k_base@1"), get_registry()).count(block.text)
    assert reference.plan.graph.node("L2:src.py").token_estimate == -(-len(block.text) // 3)
    assert exact_tokens < reference.plan.graph.node("L2:src.py").token_estimate  # source: chars/3 over-counts
    assert exact.bounds.to_json()["token_counter"] == "o200k_base@1"
    assert reference.bounds.to_json()["token_counter"] == REFERENCE_PIN


def test_an_exact_counter_refuses_what_the_estimate_would_let_overrun() -> None:
    """CJK text costs more tokens than chars/3 says: the estimate admits an overrun, the exact count refuses it."""
    text = CJK * 40
    real = resolve_counter(with_config(counter="o200k_base@1"), get_registry()).count(text)
    estimate = -(-len(text) // 3)
    assert real > estimate
    window = 100 + estimate + 40  # room for the estimate and the query, not for the real count
    block = Block(layer=Layer.CODEX, key="notes.md", text=text)
    assemble(default_config(), [block], window=window)  # the estimate fits: a silent overrun
    with pytest.raises(ContextBudgetExceededError):  # the exact count does not fit
        assemble(with_config(counter="o200k_base@1"), [block], window=window)


def test_the_exact_tokens_profile_is_the_default_profile_with_an_exact_counter() -> None:
    from pathlib import Path

    from lychd_core.config import dump_config, load_config
    from lychd_core.tokens.profile import exact_profile

    root = Path(__file__).resolve().parents[1]
    expected = exact_profile(root / "profiles" / "default.toml")
    assert expected.tokens.counter == "o200k_base@1"
    assert load_config(root / "profiles" / "exact-tokens.toml") == expected, (
        "regenerate with: python -m lychd_core.tokens.profile > profiles/exact-tokens.toml"
    )
    assert (root / "profiles" / "exact-tokens.toml").read_text() == dump_config(expected)
    check_config(expected, get_registry())


def test_the_python_examples_in_the_token_docs_run() -> None:
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for doc in ("tokens.md", "plugin_hooks.md"):
        text = (root / "docs" / doc).read_text()
        blocks = re.findall(r"```python\n(.*?)```", text, re.S)
        for block in blocks:
            if "TokenCountKind" in block or "CalibrationStore" in block:
                exec(compile(block, f"docs/{doc}", "exec"), {})
