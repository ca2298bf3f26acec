"""``lychd select GRAPH.json``: run selection for one role and explain every node."""

from __future__ import annotations

import argparse
from typing import Any

from rich.table import Table

from lychd_core.cli.loading import CONFIG_HELP, command_config
from lychd_core.cli.output import add_json_flag, console, emit_json, plain
from lychd_core.config import LychdConfig
from lychd_core.errors import ConfigError
from lychd_core.graph import ContextGraph, SelectionBounds, SelectionPlan, TokenBudget, load_graph, select
from lychd_core.registry import get_registry
from lychd_core.roles import RoleProfile


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "select",
        help="select context from a graph file for one role and explain every node",
        description="Select from a context graph (JSON, see docs/selection.md) within a token budget.",
    )
    parser.add_argument("graph", metavar="GRAPH.json", help="context graph file")
    parser.add_argument("--role", help="role whose policy filters the graph (default: assembly.role of the config)")
    parser.add_argument("--window", type=int, help="context window in tokens (default: assembly.window)")
    parser.add_argument("--reserve-output", type=int, help="tokens reserved for output (default: assembly)")
    parser.add_argument("--overhead", type=int, help="tokens reserved for protocol overhead (default: assembly)")
    parser.add_argument("--max-nodes", type=int, help="select at most this many nodes")
    parser.add_argument("--max-chars", type=int, help="select at most this many characters")
    parser.add_argument("--max-bytes", type=int, help="select at most this many UTF-8 bytes")
    parser.add_argument("--max-history", type=int, help="select at most this many history groups (turn window)")
    parser.add_argument("--config", help=CONFIG_HELP)
    add_json_flag(parser)
    parser.set_defaults(func=run)


def role_profile(config: LychdConfig, role: str) -> RoleProfile:
    """The profile of ``role`` from the configured role policy, with validated options."""
    return config.role_profile(role, get_registry())


def run(args: argparse.Namespace) -> int:
    config = command_config(args)
    assembly = config.assembly
    window = args.window if args.window is not None else assembly.window
    if window is None:
        raise ConfigError("no context window: pass --window N or set assembly.window in the configuration")
    budget = TokenBudget(
        window=window,
        reserved_output=args.reserve_output if args.reserve_output is not None else assembly.reserve_output,
        protocol_overhead=args.overhead if args.overhead is not None else assembly.protocol_overhead,
    )
    bounds = SelectionBounds(
        max_nodes=args.max_nodes,
        max_chars=args.max_chars,
        max_bytes=args.max_bytes,
        max_history_groups=args.max_history,
    )
    graph = load_graph(args.graph)
    profile = role_profile(config, args.role or assembly.role)
    plan = select(graph, profile, budget, bounds)
    if args.json:
        emit_json({"digest": plan.digest, **plan.to_json()})
        return 0
    print_plan(graph, plan, args.graph)
    return 0


def print_plan(graph: ContextGraph, plan: SelectionPlan, source: str) -> None:
    table = Table(title=f"{plain(source)}: selection for role {plain(plan.role)}")
    for column in ("node", "class", "provenance", "tokens", "selected", "reason", "detail"):
        table.add_column(column, justify="right" if column == "tokens" else "left", overflow="fold")
    selected = [plan.explanations[node_id] for node_id in plan.selected]
    omitted = sorted((e for e in plan.explanations.values() if not e.selected), key=lambda e: e.node_id)
    for explanation in [*selected, *omitted]:
        node = graph.node(explanation.node_id)
        table.add_row(
            plain(node.id),
            node.context_class.value,
            node.provenance.value,
            str(explanation.tokens),
            "selected" if explanation.selected else "omitted",
            explanation.reason.value,
            plain(explanation.detail),
        )
    console.print(table)
    accounting = plan.accounting
    budget = Table(title="budget (tokens)")
    for column in ("capacity", "reserved output", "protocol overhead", "usable", "selected", "remaining"):
        budget.add_column(column, justify="right")
    budget.add_row(
        *(
            str(value)
            for value in (
                accounting.capacity,
                accounting.reserved_output,
                accounting.protocol_overhead,
                accounting.usable,
                accounting.selected,
                accounting.remaining,
            )
        )
    )
    console.print(budget)
    console.print(
        f"{accounting.selected_nodes} of {len(graph)} nodes selected, {accounting.selected_chars} characters, "
        f"{accounting.selected_bytes} bytes, {accounting.selected_history_groups} history groups; "
        f"plan {plan.digest}"
    )
