"""Each first-party compressor honours the compressor contract."""

from __future__ import annotations

from typing import Any

import pytest
from lychd_compressors import HISTORY_PREFIX_DIGEST, TOOL_OUTPUT_ELISION, VERBATIM_TO_STRUCTURE
from lychd_compressors.samples import SAMPLE_BUDGETS, SAMPLE_NODES

from lychd_core.graph import ContextNode, TokenBudget
from lychd_core.testing import CompressorContract


class _Sampled(CompressorContract):
    @pytest.fixture
    def sample_nodes(self, compressor: Any) -> tuple[ContextNode, ...]:
        return SAMPLE_NODES[compressor.name]

    @pytest.fixture
    def sample_budget(self, compressor: Any) -> TokenBudget:
        return SAMPLE_BUDGETS.get(compressor.name, TokenBudget(window=10**9, reserved_output=1))

    @pytest.fixture
    def max_chars(self) -> int:
        return 4_000


class TestToolOutputElision(_Sampled):
    @pytest.fixture
    def compressor(self) -> Any:
        return TOOL_OUTPUT_ELISION


class TestVerbatimToStructure(_Sampled):
    @pytest.fixture
    def compressor(self) -> Any:
        return VERBATIM_TO_STRUCTURE


class TestHistoryPrefixDigest(_Sampled):
    @pytest.fixture
    def compressor(self) -> Any:
        return HISTORY_PREFIX_DIGEST
