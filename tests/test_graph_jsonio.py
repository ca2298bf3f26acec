"""The documented JSON form of a graph: round trip, strict reading, typed errors."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from lychd_core.errors import GraphCycleError, GraphError, MissingDependencyError
from lychd_core.graph import ContextGraph, dump_graph, graph_from_json, graph_to_json, load_graph, parse_graph

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "graph.json"

NODE: dict[str, Any] = {
    "id": "codex:README.md",
    "content": "# lychd-core",
    "provenance": "repository",
    "authority": "non-authoritative",
    "trust": "trusted",
    "context_class": "source",
    "requirement": "optional",
    "token_estimate": 5,
}


def document(*nodes: dict[str, Any]) -> dict[str, Any]:
    return {"format": "lychd.context-graph", "version": 1, "nodes": list(nodes)}


def test_the_documented_example_loads_and_round_trips() -> None:
    graph = load_graph(EXAMPLE)
    assert len(graph) >= 10
    assert dump_graph(graph) == EXAMPLE.read_text(encoding="utf-8")
    assert graph_from_json(graph_to_json(graph)).digest == graph.digest


def test_optional_keys_have_defaults() -> None:
    node = graph_from_json(document(NODE)).node("codex:README.md")
    assert (node.priority, node.recency, node.visible_to, node.dependencies) == (0, 0, None, ())


def test_full_node_round_trips() -> None:
    full = {**NODE, "priority": -3, "recency": 9, "visible_to": ["writer"], "dependencies": ["base"]}
    base = {**NODE, "id": "base", "priority": 0, "recency": 0, "visible_to": None, "dependencies": []}
    data = document(full, base)
    assert graph_to_json(graph_from_json(data)) == data


def with_node(**changes: Any) -> dict[str, Any]:
    node = copy.deepcopy(NODE)
    for key, value in changes.items():
        if value is ...:
            node.pop(key)
        else:
            node[key] = value
    return document(node)


BAD_DOCUMENTS: list[tuple[str, object, str]] = [
    ("not an object", [], "JSON object"),
    ("wrong format", {"format": "other", "version": 1, "nodes": []}, "expected format"),
    ("wrong version", {"format": "lychd.context-graph", "version": 2, "nodes": []}, "expected format"),
    ("unknown top key", {**document(), "extra": 1}, "unknown keys"),
    ("nodes not array", {"format": "lychd.context-graph", "version": 1, "nodes": {}}, "JSON array"),
    ("node not object", document("x"), "JSON object"),  # type: ignore[arg-type]
    ("unknown node key", with_node(tokens=5), "unknown keys"),
    ("missing node key", with_node(content=...), "missing keys"),
    ("bad provenance", with_node(provenance="sytem"), "not one of"),
    ("bad authority", with_node(authority="root"), "not one of"),
    ("authority raised", with_node(authority="system-policy"), "non-authoritative"),
    ("float estimate", with_node(token_estimate=5.0), "integer"),
    ("zero estimate", with_node(token_estimate=0), "token_estimate"),
    ("huge estimate", with_node(token_estimate=2**63), "token_estimate"),
    ("unsorted dependencies", with_node(dependencies=["b", "a"]), "unsorted"),
    ("dependencies not array", with_node(dependencies="a"), "JSON array"),
    ("visible_to not array", with_node(visible_to="writer"), "JSON array or null"),
    ("visible_to repeats", with_node(visible_to=["writer", "writer"]), "twice"),
    ("visible_to unhashable", with_node(visible_to=[["writer"]]), "codex:README.md"),
    ("surrogate content", with_node(content="bad \udc80"), "lone surrogate"),
]


@pytest.mark.parametrize(("data", "match"), [(d, m) for _, d, m in BAD_DOCUMENTS], ids=[n for n, _, _ in BAD_DOCUMENTS])
def test_bad_documents_are_graph_errors(data: object, match: str) -> None:
    with pytest.raises(GraphError, match=match):
        graph_from_json(data)


def test_graph_level_errors_come_through() -> None:
    cyclic = document({**NODE, "id": "a", "dependencies": ["b"]}, {**NODE, "id": "b", "dependencies": ["a"]})
    with pytest.raises(GraphCycleError, match="a -> b -> a"):
        graph_from_json(cyclic)
    with pytest.raises(MissingDependencyError):
        graph_from_json(document({**NODE, "dependencies": ["ghost"]}))


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (b'{"format": "lychd.context-graph", "version": 1, "nodes": [\xff]}', "not UTF-8"),
        ('{"format": 1, "format": 2}', "duplicate JSON key"),
        ('{"format": NaN}', "NaN"),
        ("{not json", "malformed JSON"),
        ("[" * 100_000, "nested deeper than"),
    ],
)
def test_bad_text_is_a_graph_error(text: str | bytes, match: str) -> None:
    with pytest.raises(GraphError, match=match):
        parse_graph(text)


def test_an_escaped_lone_surrogate_in_the_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(with_node(content="x")).replace('"x"', '"\\udc80"'), encoding="utf-8")
    with pytest.raises(GraphError, match="lone surrogate"):
        load_graph(path)


def test_a_missing_file_is_a_graph_error(tmp_path: Path) -> None:
    with pytest.raises(GraphError, match="cannot read graph"):
        load_graph(tmp_path / "nope.json")


def test_dump_is_stable_for_any_member_order() -> None:
    graph = load_graph(EXAMPLE)
    reordered = ContextGraph(reversed(graph.nodes))
    assert reordered.digest == graph.digest
