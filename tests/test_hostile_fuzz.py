"""Fuzzing every JSON and TOML input the CLI reads: any bytes, any JSON, near-valid mutations.

Whatever the input, each command ends with exit 0, 1 or 2 and a typed one-line message:
no traceback, no "internal error".
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lychd_core.config import default_config
from tests.support.hostile import example_graph, example_records, run_captured, workspace

EXAMPLES = int(os.environ.get("LYCHD_FUZZ_EXAMPLES", "40"))
"""Examples per fuzz test; raise it for a deeper local run (``LYCHD_FUZZ_EXAMPLES=2000``)."""
JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=16,
)
TOML_SCALARS = st.booleans() | st.integers() | st.text(max_size=20) | st.floats(allow_nan=False)
TOML_VALUES = st.recursive(
    TOML_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(min_size=1, max_size=12), inner, max_size=3),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return workspace(tmp_path_factory.mktemp("fuzz"))


def mutate(value: Any, path: list[int], replacement: Any) -> Any:
    """``value`` with the node reached by ``path`` (indexes into keys or items, wrapping) replaced."""
    if not path or not isinstance(value, (dict, list)) or not value:
        return replacement
    index, rest = path[0], path[1:]
    if isinstance(value, dict):
        key = sorted(value)[index % len(value)]
        return {**value, key: mutate(value[key], rest, replacement)}
    position = index % len(value)
    return [*value[:position], mutate(value[position], rest, replacement), *value[position + 1 :]]


MUTATIONS = st.tuples(st.lists(st.integers(0, 50), max_size=5), JSON_VALUES)
RAW = st.binary(max_size=200) | st.text(max_size=200).map(str.encode)


def json_inputs(valid: Any) -> st.SearchStrategy[bytes]:
    mutated = MUTATIONS.map(lambda m: json.dumps(mutate(valid, m[0], m[1])).encode())
    return mutated | JSON_VALUES.map(lambda v: json.dumps(v).encode()) | RAW


def history_example() -> list[Any]:
    call = {"part_kind": "tool-call", "tool_name": "t", "args": {"q": 1}, "tool_call_id": "c1"}
    back = {"part_kind": "tool-return", "tool_name": "t", "content": "r", "tool_call_id": "c1"}
    return [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi"}], "run_id": "r1"},
        {"kind": "response", "parts": [call], "run_id": "r1"},
        {"kind": "request", "parts": [back], "run_id": "r1"},
        {"kind": "response", "parts": [{"part_kind": "text", "content": "done"}], "run_id": "r1"},
    ]


@settings(max_examples=EXAMPLES)
@given(data=json_inputs(example_graph()))
# Found by a randomized run; CI's derandomized 40 (or 300) examples never draw it, which is why
# tests/test_hostile_field_types.py now tries every field with every JSON type.
@example(data=json.dumps(mutate(example_graph(), [1, 0, 3], None)).encode())
def test_fuzz_graph_files(data: bytes, ws: Path) -> None:
    (ws / "graph.json").write_bytes(data)
    run_captured(["select", str(ws / "graph.json"), "--window", "10000"])


@settings(max_examples=EXAMPLES)
@given(data=json_inputs(history_example()))
def test_fuzz_history_and_continuation_files(data: bytes, ws: Path) -> None:
    (ws / "messages.json").write_bytes(data)
    for flag in ("--history", "--continuation"):
        run_captured(["assemble", "--workspace", str(ws), "--query", "q", flag, str(ws / "messages.json")])


@settings(max_examples=EXAMPLES)
@given(data=json_inputs(example_records()))
def test_fuzz_memory_record_files(data: bytes, ws: Path) -> None:
    (ws / "records.json").write_bytes(data)
    run_captured(["memory", "add", str(ws / "records.json"), "--workspace", str(ws)])


def toml_inputs() -> st.SearchStrategy[bytes]:
    valid = default_config().model_dump(mode="json", exclude_none=True)

    def dumped(value: Any) -> bytes:
        try:
            return tomli_w.dumps(value).encode() if isinstance(value, dict) else b"x = 1\n"
        except (TypeError, ValueError):
            return b"schema_version = 1\n"

    mutated = st.tuples(st.lists(st.integers(0, 50), max_size=4), TOML_VALUES).map(
        lambda m: dumped(mutate(valid, m[0], m[1]))
    )
    return mutated | st.dictionaries(st.text(min_size=1, max_size=12), TOML_VALUES, max_size=5).map(dumped) | RAW


@settings(max_examples=EXAMPLES)
@given(data=toml_inputs())
def test_fuzz_configuration_files(data: bytes, ws: Path) -> None:
    config = ws / "lychd.toml"
    config.write_bytes(data)
    run_captured(["config", "validate", str(config)])
    run_captured(["assemble", "--workspace", str(ws), "--config", str(config), "--query", "q"])
    run_captured(["memory", "stats", "--workspace", str(ws), "--config", str(config)])
