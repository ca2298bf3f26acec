"""The first-party counters: contracts, exactness against tiktoken's own spec, offline loading."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lychd_tokens import CalibratedCounter, CharsCounter, TiktokenCounter, Utf8BytesCounter, load_encoding
from lychd_tokens.calibrated import CalibratedOptions
from lychd_tokens.simple import NoOptions
from lychd_tokens.tiktoken_counters import ENCODINGS, EncodingFileError, _ranks

from lychd_core.families import TokenCountKind
from lychd_core.testing import TokenCounterContract


class TestChars3(TokenCounterContract):
    @pytest.fixture
    def token_counter(self) -> Any:
        return CharsCounter()


class TestUtf8Bytes(TokenCounterContract):
    @pytest.fixture
    def token_counter(self) -> Any:
        return Utf8BytesCounter()


class TestO200k(TokenCounterContract):
    @pytest.fixture
    def token_counter(self) -> Any:
        return TiktokenCounter("o200k_base")


class TestCl100k(TokenCounterContract):
    @pytest.fixture
    def token_counter(self) -> Any:
        return TiktokenCounter("cl100k_base")


class TestCalibrated(TokenCounterContract):
    @pytest.fixture
    def token_counter(self) -> Any:
        return CalibratedCounter()


def test_kinds_are_what_each_counter_promises() -> None:
    assert CharsCounter().kind is TokenCountKind.ESTIMATE
    assert Utf8BytesCounter().kind is TokenCountKind.UPPER_BOUND
    assert TiktokenCounter("o200k_base").kind is TokenCountKind.EXACT
    assert CalibratedCounter().kind is TokenCountKind.ESTIMATE


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_the_shipped_encoding_is_the_one_tiktoken_itself_expects(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """tiktoken's own constructor of the encoding, its file loader replaced by ours (it
    checks the same sha256), gives the same pattern, ranks and special tokens."""
    import tiktoken_ext.openai_public as openai_public  # type: ignore[import-untyped]

    ours = load_encoding(name)

    def shipped(blobpath: str, expected_hash: str | None = None) -> dict[bytes, int]:
        assert expected_hash == ENCODINGS[name].sha256
        return ours._mergeable_ranks

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", shipped)
    spec = getattr(openai_public, name)()
    assert spec["pat_str"] == ours._pat_str
    assert spec["special_tokens"] == ours._special_tokens
    assert spec["mergeable_ranks"] is ours._mergeable_ranks


def test_known_counts() -> None:
    o200k, cl100k = TiktokenCounter("o200k_base"), TiktokenCounter("cl100k_base")
    assert o200k.count("hello world", NoOptions()) == 2
    assert cl100k.count("hello world", NoOptions()) == 2
    assert o200k.count("<|endoftext|>", NoOptions()) > 1  # ordinary text, never the special token


def test_a_changed_encoding_file_is_refused() -> None:
    with pytest.raises(EncodingFileError, match="sha256 differs"):
        _ranks("o200k_base", b"aGVsbG8= 0\n")


def test_an_unknown_encoding_is_refused_with_the_known_ones() -> None:
    with pytest.raises(EncodingFileError, match="o200k_base"):
        TiktokenCounter("p50k_base")


def test_the_exact_counters_load_with_no_network_and_no_tiktoken_cache(tmp_path: Any) -> None:
    """A fresh process with an empty tiktoken cache and every socket refused still counts."""
    script = (
        "import socket\n"
        "def refuse(*a, **k):\n    raise OSError('network refused by the test')\n"
        "socket.socket.connect = refuse\nsocket.create_connection = refuse\nsocket.getaddrinfo = refuse\n"
        "from lychd_tokens import TiktokenCounter\nfrom lychd_tokens.simple import NoOptions\n"
        "print(TiktokenCounter('o200k_base').count('hello world', NoOptions()),"
        " TiktokenCounter('cl100k_base').count('hello world', NoOptions()))\n"
    )
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path / "empty"), "DATA_GYM_CACHE_DIR": str(tmp_path / "x")}
    env.pop("HTTPS_PROXY", None)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "2"]
    assert not (tmp_path / "empty").exists()  # nothing was fetched into a cache


@settings(max_examples=60, deadline=None)
@given(st.text(st.characters(blacklist_categories=()), max_size=300))
def test_utf8_bytes_is_an_upper_bound_of_both_exact_counts(text: str) -> None:
    """Over arbitrary Unicode, lone surrogates included (a tokenizer reads them as U+FFFD)."""
    upper = Utf8BytesCounter().count(text, NoOptions())
    for name in ENCODINGS:
        assert TiktokenCounter(name).count(text, NoOptions()) <= upper


def test_calibrated_counts_characters_times_its_ratio() -> None:
    counter = CalibratedCounter()
    assert counter.count("x" * 1000, CalibratedOptions(ratio_ppm=250_000)) == 250
    assert counter.count("x" * 3, CalibratedOptions()) == 2  # ceil(3 x 0.333334)
