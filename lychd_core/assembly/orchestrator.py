"""``ContextOrchestrator``: one pipeline from typed inputs to an ``AssembledContext``.

Nothing is retained until every check has passed, so a failed assembly leaves the
run cache and the environment leases exactly as they were.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lychd_core.assembly.bounds import assembly_bounds, reserve_required
from lychd_core.assembly.context import AssembledContext, Unexplained
from lychd_core.assembly.environment import EnvironmentKey, EnvironmentSnapshots, Grant
from lychd_core.assembly.nodes import (
    continuation_node,
    floor_node,
    floor_node_id,
    history_node,
    history_node_id,
    memory_node,
    query_node,
)
from lychd_core.blocks import Block, Layer, prefix_digest
from lychd_core.config import LychdConfig
from lychd_core.digests import JsonValue
from lychd_core.errors import AssemblyError, LeaseError
from lychd_core.graph import ContextGraph, ContextNode, select
from lychd_core.history import Message, MessageGroup, check_continuation, compact_json, iter_groups_newest_first
from lychd_core.labels import PrivatizationLabel, join_labels
from lychd_core.memory import MemoryEvidence, MemoryQuery, MemoryScope, RetrievalPlan, SqliteMemoryStore
from lychd_core.projection.cache import ProjectionCache
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.projector import Projector
from lychd_core.ranking import rank_floor, ranking_query
from lychd_core.registry import Registry, get_registry
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import Requirement


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

    def retrieve_memory(self, role: str | None = None, *, now: int | None = None, **query: Any) -> RetrievalPlan:
        """Retrieve from the configured memory store for ``role`` (its policy filters what is visible).

        ``query`` takes the :class:`MemoryQuery` fields plus the scope fields
        (``project``, ``workspace``, ``repository``, ``actor``); ``now`` defaults to the
        store's latest observation, since the library never reads the wall clock.
        """
        if self.workspace is None:
            raise AssemblyError("memory retrieval needs a workspace; pass workspace= to the orchestrator")
        role = role or self.config.assembly.role
        scope_fields = {name: query.pop(name, None) for name in ("project", "workspace", "repository", "actor")}
        path = self.config.stores.path_of(self.config.stores.memory, self.workspace.root)
        with SqliteMemoryStore.open(path, create=False) as store:
            return store.query(
                MemoryQuery(
                    scope=MemoryScope(**scope_fields, role=role),
                    now=store.last_observation() if now is None else now,
                    role_profile=self.role_profile(role),
                    **query,
                )
            )

    def projector(self) -> Projector:
        """The projector for material references, caching in the configured projection store."""
        if self._projector is None:
            if self.workspace is None:
                raise AssemblyError("material references need a workspace; pass workspace= to the orchestrator")
            stores = self.config.stores
            cache = ProjectionCache(stores.path_of(stores.projection_cache, self.workspace.root))
            self._projector = Projector(self.config, self.registry, self.workspace, cache)
        return self._projector

    def close(self) -> None:
        """Close the projection cache, if one was opened."""
        if self._projector is not None and self._projector.cache is not None:
            self._projector.cache.close()

    def assemble(
        self,
        *,
        run_id: str,
        session_id: str,
        query: str,
        identity: Sequence[Block] = (),
        codex: Sequence[MaterialRef | Block] = (),
        karma: Sequence[Block] = (),
        memory: Sequence[MemoryEvidence] | RetrievalPlan = (),
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
        memory_plan = memory.to_json(explain=False) if isinstance(memory, RetrievalPlan) else None
        memory = memory.evidence() if isinstance(memory, RetrievalPlan) else tuple(memory)
        bounds = assembly_bounds(self.config, grant, window, reserve_output)
        cpt = bounds.chars_per_token
        continuation_json = tuple(compact_json(m) for m in check_continuation(list(continuation)))
        continuation_text = "".join(continuation_json)
        facts: dict[str, JsonValue] = {}
        floor, floor_required, not_nodes = self._floor(session_id, grant, identity, codex, karma, facts)
        seed = ranking_query(self.config, query, history, floor, floor_required)
        room = min(bounds.char_cap, bounds.budget.usable * cpt) - len(query) - len(continuation_text)
        room -= sum(len(block.text) for block, req in zip(floor, floor_required, strict=True) if req)
        ranked = rank_floor(self.config, self.registry, seed, floor, floor_required, facts, room)
        floor, floor_required = [p.block for p in ranked.placements], [p.required for p in ranked.placements]
        nodes: list[ContextNode] = [
            floor_node(p.block, required=p.required, chars_per_token=cpt, relevance=p.relevance, group=p.group)
            for p in ranked.placements
        ]
        nodes += [memory_node(m.node_id, m.text, m.token_estimate, cpt) for m in memory]
        nodes.append(query_node(query, cpt))
        if continuation_json:
            nodes.append(continuation_node(continuation_text, cpt))

        parts = {layer.name.lower(): 0 for layer in (Layer.IDENTITY, Layer.CODEX, Layer.ENVIRONMENT, Layer.KARMA)}
        for block, req in zip(floor, floor_required, strict=True):
            parts[block.layer.name.lower()] += len(block.text) if req else 0
        parts["query"] = len(query)
        parts["continuation"] = len(continuation_text)
        required_tokens = sum(node.token_estimate for node in nodes if node.requirement is Requirement.REQUIRED)
        required_chars = reserve_required(bounds, parts, required_tokens)

        history_nodes, history_groups, older = self._history_nodes(
            history, bounds.turn_window, bounds.char_cap - required_chars, cpt
        )
        nodes += history_nodes
        if older:
            not_nodes.append(Unexplained(f"history[0:{older}]", "older than every group the governors can keep"))
        graph = ContextGraph(nodes)
        plan = select(graph, self.role_profile(role), bounds.budget, bounds.selection)
        selected = set(plan.selected)

        kept_floor = tuple(b for b in floor if floor_node_id(b) in selected)
        kept_memory = [m for m in memory if m.node_id in selected]
        kept_groups = [g for g in history_groups if history_node_id(g) in selected]
        kept_history = tuple(text for g in reversed(kept_groups) for text in g.texts)
        unlabelled = PrivatizationLabel.restricted_unknown()
        labels = [b.label for b in kept_floor] + [unlabelled for _ in kept_memory] + [query_label or unlabelled]
        if kept_history:
            labels.append(history_label or unlabelled)
        if continuation_json:
            labels.append(continuation_label or unlabelled)
        layer_chars = {
            "floor": sum(len(b.text) for b in kept_floor if b.layer is not Layer.CODEX),
            "codex": sum(len(b.text) for b in kept_floor if b.layer is Layer.CODEX),
            "memory": sum(len(m.text) for m in kept_memory),
            "history": sum(g.chars for g in kept_groups),
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
            bounds=bounds,
            required_chars=required_chars,
            used_chars=sum(plan.explanations[node_id].chars for node_id in plan.selected),
            plan=plan,
            history_start=min((g.start for g in kept_groups), default=len(history)),
            not_nodes=tuple(not_nodes),
            memory_plan=memory_plan,
            layer_chars=layer_chars,
            ranking=ranked if ranked.report is not None else None,
            _history=kept_history,
            _continuation=continuation_json,
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
        facts: dict[str, JsonValue],
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
                not_nodes.append(
                    Unexplained(f"codex:{item.source}", f"projection unavailable: {contribution.unavailable}")
                )
                continue
            if not contribution.block.text:
                not_nodes.append(Unexplained(contribution.block.key, "empty: the projection has no text to show"))
                continue
            floor.append(contribution.block)
            required.append(item.required)
            facts[contribution.block.key] = contribution.facts
        floor.append(self.environments.peek(session_id, grant))
        required.append(True)
        floor += karma
        required += [True] * len(karma)
        empty = [block.key for block in floor if not block.text]
        if empty:
            raise AssemblyError(f"floor blocks need text; empty: {', '.join(empty)}")
        duplicates = sorted(key for key, count in Counter(block.key for block in floor).items() if count > 1)
        if duplicates:
            raise AssemblyError(f"floor block keys must be unique; repeated: {', '.join(duplicates)}")
        return floor, required, not_nodes

    @staticmethod
    def _history_nodes(
        history: Sequence[Message], turn_window: int, char_budget: int, cpt: int
    ) -> tuple[list[ContextNode], list[MessageGroup], int]:
        """Nodes for the newest groups the governors could keep, plus the first that cannot.

        Scanning stops there, so the cost depends on what is kept, not on history length.
        Returns the nodes, their groups, and how many older messages never became nodes.
        """
        nodes: list[ContextNode] = []
        groups: list[MessageGroup] = []
        if turn_window <= 0:
            return nodes, groups, len(history)
        used = 0
        newer = None
        for recency, group in enumerate(iter_groups_newest_first(history)):
            text = "".join(group.texts)
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
