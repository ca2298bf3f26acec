"""``ContextOrchestrator``: one pipeline from typed inputs to an ``AssembledContext``.

Nothing is retained until every check has passed, so a failed assembly leaves the
run cache and the environment leases exactly as they were.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lychd_core.assembly.context import AssembledContext, Governed, Unexplained
from lychd_core.assembly.environment import EnvironmentKey, EnvironmentSnapshots, Grant
from lychd_core.assembly.nodes import (
    continuation_node,
    floor_node,
    floor_node_id,
    history_node,
    memory_node,
    messages_text,
    query_node,
)
from lychd_core.blocks import Block, Layer, prefix_digest
from lychd_core.config import LychdConfig
from lychd_core.errors import AssemblyError, ContextBudgetExceededError, LeaseError
from lychd_core.governors import effective_char_cap, request_input_limit, resolve_window
from lychd_core.graph import ContextGraph, ContextNode, SelectionBounds, TokenBudget, render, select
from lychd_core.history import Message, check_continuation, detach, iter_groups_newest_first
from lychd_core.labels import PrivatizationLabel, join_labels
from lychd_core.materials import MaterialRef, Workspace
from lychd_core.memory import MemoryEvidence
from lychd_core.projection import Projector
from lychd_core.registry import Registry, get_registry
from lychd_core.roles import RoleProfile


class ContextOrchestrator:
    """Assembles contexts under one configuration; caches them per run until released."""

    def __init__(
        self,
        config: LychdConfig,
        *,
        registry: Registry | None = None,
        workspace: Path | None = None,
        projector: Projector | None = None,
    ) -> None:
        self.config = config
        self.registry = registry if registry is not None else get_registry()
        self.workspace = Workspace(workspace) if workspace is not None else None
        self._projector = projector
        self._lock = threading.Lock()
        self._runs: dict[str, tuple[AssembledContext, EnvironmentKey]] = {}
        self.environments = EnvironmentSnapshots()

    # --- run cache -----------------------------------------------------------------

    def get(self, run_id: str) -> AssembledContext:
        """The retained assembly of an active run."""
        with self._lock:
            found = self._runs.get(run_id)
        if found is None:
            raise LeaseError(f"run {run_id!r} has no retained assembly (never assembled, or already released)")
        return found[0]

    def release(self, run_id: str) -> None:
        """Terminal settlement: drop the run's assembly and its environment lease."""
        with self._lock:
            found = self._runs.pop(run_id, None)
        if found is None:
            raise LeaseError(f"run {run_id!r} holds no assembly to release")
        self.environments.release(run_id, found[1])

    def active_runs(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._runs)

    # --- assembly --------------------------------------------------------------------

    def role_profile(self, role: str) -> RoleProfile:
        pin = self.config.role_policy
        policy = self.registry.role_policy(pin.name, pin.revision)
        return policy.profile(role, policy.options_model.model_validate(pin.options))

    def projector(self) -> Projector:
        if self._projector is None:
            if self.workspace is None:
                raise AssemblyError("material references need a workspace; pass workspace= to the orchestrator")
            self._projector = Projector(self.config, self.registry, self.workspace)
        return self._projector

    def assemble(
        self,
        *,
        run_id: str,
        session_id: str,
        query: str,
        identity: Sequence[Block] = (),
        codex: Sequence[MaterialRef | Block] = (),
        karma: Sequence[Block] = (),
        memory: Sequence[MemoryEvidence] = (),
        history: Sequence[Message] = (),
        continuation: Sequence[Message] = (),
        grant: Grant | None = None,
        role: str | None = None,
        window: int | None = None,
        reserve_output: int | None = None,
        history_label: PrivatizationLabel | None = None,
        continuation_label: PrivatizationLabel | None = None,
        query_label: PrivatizationLabel | None = None,
    ) -> AssembledContext:
        """Assemble one model call's context, or refuse with a typed error before inference."""
        if not run_id or not session_id:
            raise AssemblyError("run_id and session_id must be non-empty")
        if not query:
            raise AssemblyError("the query must be non-empty text")
        if not isinstance(history, (list, tuple)):
            raise AssemblyError(f"history must be a list of messages, got {type(history).__name__}")
        role = role or self.config.assembly.role
        settings = self.config.assembly
        governors = self.config.governors
        cpt = governors.chars_per_token
        known_window = resolve_window(grant.max_context, grant.spec_max_context) if grant else None
        known_window = known_window if known_window is not None else (window or settings.window)
        reserve = settings.reserve_output if reserve_output is None else reserve_output
        char_cap = effective_char_cap(governors.char_cap, cpt, known_window)
        if known_window is not None:
            request_input_limit(known_window, reserve)  # a reserve >= window refuses before anything else
            budget = TokenBudget(window=known_window, reserved_output=reserve, protocol_overhead=settings.protocol_overhead)
        else:  # no known window: the character governor alone bounds (an estimate never exceeds its chars)
            budget = TokenBudget(
                window=char_cap + reserve + settings.protocol_overhead,
                reserved_output=reserve,
                protocol_overhead=settings.protocol_overhead,
            )

        continuation_messages = detach(check_continuation(list(continuation)))
        floor, floor_required, not_nodes = self._floor(session_id, grant, identity, codex, karma)
        nodes: list[ContextNode] = [
            floor_node(block, required=floor_required[i], chars_per_token=cpt) for i, block in enumerate(floor)
        ]
        nodes += [memory_node(m.node_id, m.text, m.token_estimate, cpt) for m in memory]
        nodes.append(query_node(query, cpt))
        continuation_text = messages_text(continuation_messages)
        if continuation_messages:
            nodes.append(continuation_node(continuation_text, cpt))

        parts = {
            layer.name.lower(): sum(len(b.text) for b, req in zip(floor, floor_required, strict=True) if req and b.layer is layer)
            for layer in (Layer.IDENTITY, Layer.CODEX, Layer.ENVIRONMENT, Layer.KARMA)
        }
        parts["query"] = len(query)
        parts["continuation"] = len(continuation_text)
        required_chars = sum(parts.values())
        required_tokens = sum(node.token_estimate for node in nodes if node.requirement.name == "REQUIRED")
        if required_chars > char_cap or required_tokens > budget.usable:
            raise ContextBudgetExceededError(
                f"floor, query and continuation need {required_chars} characters (~{required_tokens} tokens) but "
                f"only {char_cap} characters ({budget.usable} tokens) are available: "
                + ", ".join(f"{k} {v}" for k, v in parts.items()),
                required=required_chars,
                available=char_cap,
                parts=parts,
            )

        history_nodes, history_groups, older = self._history_nodes(
            history, governors.turn_window, char_cap - required_chars, cpt
        )
        nodes += history_nodes
        if older:
            not_nodes.append(Unexplained(f"history[0:{older}]", "older than every group the governors can keep"))

        graph = ContextGraph(nodes)
        bounds = SelectionBounds(max_chars=char_cap, max_history_groups=max(governors.turn_window, 0))
        plan = select(graph, self.role_profile(role), budget, bounds)
        selected = set(plan.selected)

        kept_floor = tuple(b for b in floor if floor_node_id(b) in selected)
        kept_groups = [g for g in history_groups if f"history:{g.start:09d}-{g.end:09d}" in selected]
        history_start = min((g.start for g in kept_groups), default=len(history))
        kept_history = tuple(detach(history[history_start:]))
        labels = [b.label for b in kept_floor]
        labels += [PrivatizationLabel.restricted_unknown() for m in memory if m.node_id in selected]
        labels.append(query_label or PrivatizationLabel.restricted_unknown())
        if kept_history:
            labels.append(history_label or PrivatizationLabel.restricted_unknown())
        if continuation_messages:
            labels.append(continuation_label or PrivatizationLabel.restricted_unknown())
        used_chars = sum(plan.explanations[node_id].chars for node_id in plan.selected)
        layer_chars = {
            "floor": sum(len(b.text) for b in kept_floor if b.layer is not Layer.CODEX),
            "codex": sum(len(b.text) for b in kept_floor if b.layer is Layer.CODEX),
            "memory": sum(len(m.text) for m in memory if m.node_id in selected),
            "history": sum(len(messages_text(history[g.start : g.end])) for g in kept_groups),
            "continuation": len(continuation_text),
            "query": len(query),
        }
        assembled = AssembledContext(
            run_id=run_id,
            session_id=session_id,
            role=role,
            floor=kept_floor,
            prefix_digest=prefix_digest(kept_floor),
            query=query,
            label=join_labels(labels),
            governed=Governed(
                known_window, reserve, settings.protocol_overhead, char_cap, governors.turn_window, cpt,
                required_chars, used_chars,
            ),
            plan=plan,
            render_plan=render(graph, plan),
            history_start=history_start,
            not_nodes=tuple(not_nodes),
            layer_chars=layer_chars,
            _history=kept_history,
            _continuation=tuple(continuation_messages),
        )
        self._retain(assembled, session_id, grant, floor)
        return assembled

    def _floor(
        self,
        session_id: str,
        grant: Grant | None,
        identity: Sequence[Block],
        codex: Sequence[MaterialRef | Block],
        karma: Sequence[Block],
    ) -> tuple[list[Block], list[bool], list[Unexplained]]:
        """Ordered floor blocks (layers 1-4), which are required, and what could not project."""
        for name, blocks, layer in (("identity", identity, Layer.IDENTITY), ("karma", karma, Layer.KARMA)):
            for block in blocks:
                if not isinstance(block, Block) or block.layer is not layer:
                    raise AssemblyError(f"{name} takes layer {layer.name} Blocks, got {block!r:.80}")
        floor: list[Block] = list(identity)
        required = [True] * len(floor)
        not_nodes: list[Unexplained] = []
        refs = [item for item in codex if isinstance(item, MaterialRef)]
        projected = iter(self.projector().project_many(refs) if refs else [])
        for item in codex:
            if isinstance(item, Block):
                if item.layer is not Layer.CODEX:
                    raise AssemblyError(f"codex takes layer CODEX Blocks, got {item.layer.name} block {item.key!r}")
                floor.append(item)
                required.append(True)
                continue
            contribution = next(projected)
            if contribution.block is None:
                not_nodes.append(Unexplained(f"codex:{item.source}", f"projection unavailable: {contribution.unavailable}"))
                continue
            if not contribution.block.text:
                not_nodes.append(Unexplained(contribution.block.key, "empty: the projection has no text to show"))
                continue
            floor.append(contribution.block)
            required.append(item.required)
        floor.append(self.environments.peek(session_id, grant))
        required.append(True)
        floor += karma
        required += [True] * len(karma)
        empty = [block.key for block in floor if not block.text]
        if empty:
            raise AssemblyError(f"floor blocks need text; empty: {', '.join(empty)}")
        keys = [block.key for block in floor]
        duplicates = sorted({key for key in keys if keys.count(key) > 1})
        if duplicates:
            raise AssemblyError(f"floor block keys must be unique; repeated: {', '.join(duplicates)}")
        return floor, required, not_nodes

    @staticmethod
    def _history_nodes(
        history: Sequence[Message], turn_window: int, char_budget: int, cpt: int
    ) -> tuple[list[ContextNode], list[Any], int]:
        """Nodes for the newest groups the governors could keep, plus the first that cannot.

        Scanning stops there, so the cost depends on what is kept, not on history length.
        Returns the nodes, their groups, and how many older messages never became nodes.
        """
        nodes: list[ContextNode] = []
        groups: list[Any] = []
        if turn_window <= 0:
            return nodes, groups, len(history)
        used = 0
        newer = None
        for recency, group in enumerate(iter_groups_newest_first(history)):
            text = messages_text(history[group.start : group.end])
            nodes.append(history_node(group, text, newer, len(history) - recency, cpt))
            groups.append(group)
            newer = group
            used += len(text)
            if len(groups) > turn_window or used > char_budget:
                break
        older = groups[-1].start if groups else len(history)
        return nodes, groups, older

    def _retain(self, assembled: AssembledContext, session_id: str, grant: Grant | None, floor: list[Block]) -> None:
        environment = next(block for block in floor if block.layer is Layer.ENVIRONMENT)
        key = self.environments.lease(assembled.run_id, session_id, grant, environment)
        with self._lock:
            previous = self._runs.get(assembled.run_id)
            self._runs[assembled.run_id] = (assembled, key)
        if previous is not None and previous[1] != key:
            self.environments.release(assembled.run_id, previous[1])
