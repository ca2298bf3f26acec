"""The JSON form of a context graph (documented in docs/selection.md).

Reading is strict: UTF-8 only, no duplicate keys, no unknown keys, no floats, and
every value goes through the node's checked constructor.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any

from lychd_core.errors import GraphError
from lychd_core.graph.graph import ContextGraph
from lychd_core.graph.nodes import ContextNode
from lychd_core.inputs import parse_json, read_input_bytes
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Requirement, Trust, parse_token, token, tokens

GRAPH_FORMAT = "lychd.context-graph"
GRAPH_VERSION = 1
MAX_GRAPH_BYTES = 256 * 1024 * 1024

_ENUMS: dict[str, type[Enum]] = {
    "provenance": Provenance,
    "authority": Authority,
    "trust": Trust,
    "context_class": ContextClass,
    "requirement": Requirement,
}
_REQUIRED = ("id", "content", *_ENUMS, "token_estimate")
_OPTIONAL: dict[str, Any] = {
    "priority": 0,
    "recency": 0,
    "visible_to": None,
    "dependencies": [],
    "relevance": 0,
    "exclusive_group": None,
}


def node_to_json(node: ContextNode) -> dict[str, Any]:
    ranked: dict[str, Any] = {}
    if node.relevance or node.exclusive_group is not None:  # written only when set: older readers stay valid
        ranked = {"relevance": node.relevance, "exclusive_group": node.exclusive_group}
    return {
        "id": node.id,
        "content": node.content,
        "provenance": node.provenance.value,
        "authority": token(node.authority),
        "trust": token(node.trust),
        "context_class": node.context_class.value,
        "requirement": token(node.requirement),
        "priority": node.priority,
        "token_estimate": node.token_estimate,
        "recency": node.recency,
        "visible_to": None if node.visible_to is None else sorted(node.visible_to),
        "dependencies": list(node.dependencies),
        **ranked,
    }


def graph_to_json(graph: ContextGraph) -> dict[str, Any]:
    """The JSON form of ``graph``, nodes in graph order."""
    return {"format": GRAPH_FORMAT, "version": GRAPH_VERSION, "nodes": [node_to_json(node) for node in graph]}


def node_from_json(data: object, where: str) -> ContextNode:
    if not isinstance(data, Mapping):
        raise GraphError(f"{where}: a node must be a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        raise GraphError(f"{where}: unknown keys {unknown}; allowed: {sorted([*_REQUIRED, *_OPTIONAL])}")
    missing = [key for key in _REQUIRED if key not in data]
    if missing:
        raise GraphError(f"{where}: missing keys {missing}")
    where = f"{where} ({data['id']!r})" if isinstance(data["id"], str) else where
    values: dict[str, Any] = {key: data.get(key, default) for key, default in _OPTIONAL.items()}
    for key, enum_type in _ENUMS.items():
        member = parse_token(enum_type, data[key])
        if member is None:
            raise GraphError(f"{where}: {key} {data[key]!r} is not one of {tokens(enum_type)}")
        values[key] = member
    deps = values["dependencies"]
    if not isinstance(deps, list):
        raise GraphError(f"{where}: dependencies must be a JSON array of node ids, got {deps!r}")
    if all(isinstance(dep, str) for dep in deps) and deps != sorted(set(deps)):  # a graph file stays canonical
        raise GraphError(
            f"{where}: dependencies must be sorted and unique (unsorted or duplicate); write {sorted(set(deps))!r}"
        )
    if values["visible_to"] is not None and not isinstance(values["visible_to"], list):
        raise GraphError(f"{where}: visible_to must be a JSON array or null (a list of role names)")
    roles = values["visible_to"]
    if roles is not None:
        if not all(isinstance(role, str) for role in roles):
            raise GraphError(f"{where}: visible_to must list role names (strings), got {roles!r}")
        if len(set(roles)) != len(roles):
            raise GraphError(f"{where}: visible_to lists a role twice")
    return ContextNode.create(id=data["id"], content=data["content"], token_estimate=data["token_estimate"], **values)


def graph_from_json(data: object, source: str = "<graph>") -> ContextGraph:
    """Check and build a graph from its parsed JSON form."""
    if not isinstance(data, Mapping):
        raise GraphError(f"{source}: a graph must be a JSON object with 'format', 'version' and 'nodes'")
    unknown = sorted(set(data) - {"format", "version", "nodes"})
    if unknown:
        raise GraphError(f"{source}: unknown keys {unknown}")
    version = data.get("version")
    if data.get("format") != GRAPH_FORMAT or type(version) is not int or version != GRAPH_VERSION:
        raise GraphError(
            f"{source}: expected format {GRAPH_FORMAT!r} version {GRAPH_VERSION}, "
            f"got {data.get('format')!r} version {data.get('version')!r}"
        )
    nodes = data.get("nodes")
    if not isinstance(nodes, list):
        raise GraphError(f"{source}: 'nodes' must be a JSON array")
    return ContextGraph(node_from_json(item, f"{source}: nodes[{i}]") for i, item in enumerate(nodes))


def parse_graph(text: str | bytes, source: str = "<graph>") -> ContextGraph:
    """Parse JSON text (bytes must be UTF-8) into a checked graph."""
    return graph_from_json(parse_json(text, source=source, error=GraphError, allow_floats=False), source)


def load_graph(path: str | Path) -> ContextGraph:
    """Read and check a graph file (a regular file, or ``-`` for standard input)."""
    data = read_input_bytes(str(path), what="graph", max_bytes=MAX_GRAPH_BYTES, error=GraphError)
    return parse_graph(data, str(path))


def dump_graph(graph: ContextGraph) -> str:
    """Indented JSON text for ``graph`` (keys sorted, UTF-8 kept readable)."""
    return json.dumps(graph_to_json(graph), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
