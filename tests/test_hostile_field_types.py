"""Every field of every JSON document the CLI reads, given a value of the wrong type.

The fuzz tests draw mutations at random, so a field can go untested for many runs (a
``null`` in a node's ``dependencies`` once reached the checked constructor as an untyped
``TypeError``). Here each field of the shipped examples is replaced in turn by each JSON
type, so a loader that uses a field before checking its type fails deterministically.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.hostile import example_graph, example_records, run_captured, workspace

WRONG_VALUES: tuple[Any, ...] = (None, True, -1, 2**70, "", "x", [], [None], {}, {"k": None})


def field_paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value inside ``value`` (dict keys and list indexes), containers included."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*prefix, key)
            yield from field_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*prefix, index)
            yield from field_paths(item, (*prefix, index))


def replaced(value: Any, path: tuple[Any, ...], replacement: Any) -> Any:
    if not path:
        return replacement
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, replacement)}
    return [*value[:head], replaced(value[head], rest, replacement), *value[head + 1 :]]


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return workspace(tmp_path_factory.mktemp("field-types"))


def first_node_paths(document: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The top-level keys, and every path inside the first two nodes (all nodes share one loader)."""
    paths = [(key,) for key in document]
    for index in range(min(2, len(document["nodes"]))):
        paths += [("nodes", index, *rest) for rest in field_paths(document["nodes"][index])]
        paths.append(("nodes", index))
    return paths


GRAPH = example_graph()


@pytest.mark.parametrize("path", first_node_paths(GRAPH), ids=lambda p: "/".join(map(str, p)))
def test_every_graph_field_of_the_wrong_type_is_a_typed_refusal(path: tuple[Any, ...], ws: Path) -> None:
    outcomes = []
    for value in WRONG_VALUES:
        (ws / "graph.json").write_text(json.dumps(replaced(GRAPH, path, value)))
        outcomes.append(run_captured(["select", str(ws / "graph.json"), "--window", "10000"]))
    # Every field accepts at most a few of these types; the rest are refused with a message.
    assert any(outcome.code == 1 and outcome.err.startswith("error: ") for outcome in outcomes), path


def test_a_null_dependencies_list_is_named(ws: Path) -> None:
    """The falsifying example the fuzz found (mutation path [1, 0, 3] of the example graph)."""
    (ws / "graph.json").write_text(json.dumps(replaced(GRAPH, ("nodes", 0, "dependencies"), None)))
    outcome = run_captured(["select", str(ws / "graph.json"), "--window", "10000"])
    assert outcome.code == 1
    assert "dependencies must be a JSON array" in outcome.err


RECORDS = example_records()


@pytest.mark.parametrize("path", [(0, *rest) for rest in field_paths(RECORDS[0])], ids=lambda p: "/".join(map(str, p)))
def test_every_memory_record_field_of_the_wrong_type_is_a_typed_refusal(path: tuple[Any, ...], ws: Path) -> None:
    for value in WRONG_VALUES:
        (ws / "records.json").write_text(json.dumps(replaced(RECORDS, path, value)))
        run_captured(["memory", "add", str(ws / "records.json"), "--workspace", str(ws / "memory-ws")])


HISTORY: list[Any] = [
    {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi"}], "run_id": "r1"},
    {
        "kind": "response",
        "parts": [{"part_kind": "tool-call", "tool_name": "t", "args": {"q": 1}, "tool_call_id": "c1"}],
        "run_id": "r1",
    },
    {
        "kind": "request",
        "parts": [{"part_kind": "tool-return", "tool_name": "t", "content": "r", "tool_call_id": "c1"}],
        "run_id": "r1",
    },
    {"kind": "response", "parts": [{"part_kind": "text", "content": "done"}], "run_id": "r1"},
]


@pytest.mark.parametrize("path", list(field_paths(HISTORY)), ids=lambda p: "/".join(map(str, p)))
def test_every_history_field_of_the_wrong_type_is_a_typed_refusal(path: tuple[Any, ...], ws: Path) -> None:
    for value in WRONG_VALUES:
        (ws / "messages.json").write_text(json.dumps(replaced(HISTORY, path, value)))
        for flag in ("--history", "--continuation"):
            run_captured(["assemble", "--workspace", str(ws), "--query", "q", flag, str(ws / "messages.json")])
