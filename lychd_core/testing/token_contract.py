"""The contract suite of token counters."""

from __future__ import annotations

from typing import Any

import pytest

from lychd_core.families import PluginFamily, TokenCountKind
from lychd_core.testing.contracts import _PluginContract

SAMPLES = (
    "",
    "def load_config(path):\n    return tomllib.loads(Path(path).read_text())\n",
    "# Heading\n\nSome *Markdown* with `code` and a [link](https://example.org).\n",
    "配置はどこで読み込まれますか。설정은 어디에서 읽습니까? 配置在哪里读取？",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "<|endoftext|> is ordinary text here \U0001f600\u200d\U0001f4bb",
)


class TokenCounterContract(_PluginContract):
    """Override ``token_counter``; ``samples`` may add texts of the counter's own domain."""

    family = PluginFamily.TOKEN_COUNTER

    @pytest.fixture
    def token_counter(self) -> Any:
        raise NotImplementedError("override the 'token_counter' fixture")

    @pytest.fixture
    def plugin(self, token_counter: Any) -> Any:
        return token_counter

    @pytest.fixture
    def samples(self) -> tuple[str, ...]:
        return SAMPLES

    def _count(self, counter: Any, text: str) -> int:
        value = counter.count(text, counter.options_model())
        assert type(value) is int and value >= 0, f"{counter.name} counted {value!r}"
        return value

    def test_kind_is_declared(self, token_counter: Any) -> None:
        assert isinstance(token_counter.kind, TokenCountKind)
        assert isinstance(token_counter.tokenizer, str) and token_counter.tokenizer

    def test_counts_are_integers_at_least_zero(self, token_counter: Any, samples: tuple[str, ...]) -> None:
        for text in samples:
            self._count(token_counter, text)

    def test_empty_text_counts_zero(self, token_counter: Any) -> None:
        assert self._count(token_counter, "") == 0

    def test_counting_is_deterministic(self, token_counter: Any, samples: tuple[str, ...]) -> None:
        assert [self._count(token_counter, t) for t in samples] == [self._count(token_counter, t) for t in samples]

    def test_a_text_twice_never_counts_fewer_than_once(self, token_counter: Any, samples: tuple[str, ...]) -> None:
        for text in samples:
            assert self._count(token_counter, text) <= self._count(token_counter, text + "\n" + text)

    def test_non_text_options_are_refused_by_the_options_model(self, token_counter: Any) -> None:
        with pytest.raises(ValueError):
            token_counter.options_model.model_validate({"no_such_counter_option": True})
