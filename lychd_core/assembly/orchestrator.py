"""``ContextOrchestrator``: one pipeline from typed inputs to an ``AssembledContext``.

Nothing is retained until every check has passed, so a failed assembly leaves the
run cache and the environment leases exactly as they were.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from lychd_core.assembly.bounds import assembly_bounds, reserve_required, with_overrides
from lychd_core.assembly.compress import (
    compress_for_assembly,
    derived_labels,
    history_messages,
    placement_of,
    render_floor,
    render_history,
)
from lychd_core.assembly.context import AssembledContext, Unexplained
from lychd_core.assembly.environment import EnvironmentKey, EnvironmentSnapshots, Grant, environment_of
from lychd_core.assembly.execution import (
    ExecutionProjection,
    execution_nodes,
    execution_report,
    render_execution,
)
from lychd_core.assembly.execution import kept_labels as execution_labels
from lychd_core.assembly.execution import required_chars as execution_required_chars
from lychd_core.assembly.nodes import (
    Tokens,
    continuation_node,
    floor_node,
    floor_node_id,
    history_node_id,
    history_nodes_within,
    labels_of_nodes,
    memory_node,
    query_node,
    room_chars,
)
from lychd_core.assembly.tracing import traced_assembly
from lychd_core.assembly.trim import selected_history_trim
from lychd_core.blocks import Block, Layer, prefix_digest
from lychd_core.config import Governors, LychdConfig
from lychd_core.digests import JsonValue
from lychd_core.errors import AssemblyError, LeaseError
from lychd_core.families import Compressor
from lychd_core.graph import ContextGraph, ContextNode, select
from lychd_core.history import Message, check_continuation, compact_json
from lychd_core.labels import PrivatizationLabel, join_labels
from lychd_core.memory import MemoryEvidence, MemoryQuery, MemoryScope, RetrievalPlan
from lychd_core.privacy.gate import EgressGate
from lychd_core.projection.alternate import structure_alternates
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.projector import Contribution, Projector
from lychd_core.ranking import rank_floor, ranking_query
from lychd_core.registry import Registry, get_registry
from lychd_core.roles import RoleProfile
from lychd_core.stores.factory import open_memory_store, open_projection_cache
from lychd_core.tokens import REFERENCE_PIN, BoundCounter
from lychd_core.tokens.resolve import resolve_counter
from lychd_core.vocabulary import Requirement

UNBOUNDED_SCAN = 1 << 62
"""With compression at a placement, history scanning stops at the turn window plus
``[compression] scan_groups``, not at the character cap: compressors may make more fit."""


class ContextOrchestrator:
    """Assembles contexts under one configuration; caches them per run until released."""

    def __init__(
        self,
        config: LychdConfig | None = None,
        *,
        registry: Registry | None = None,
        workspace: Path | None = None,
        projector: Projector | None = None,
        governors: Governors | Mapping[str, Any] | None = None,
        window: int | None = None,
        reserve_output: int | None = None,
        protocol_overhead: int | None = None,
    ) -> None:
        """``config`` defaults to the built-in configuration; ``governors`` (a ``Governors``
        or a mapping of its fields) and the budget arguments are put over it, so a small
        window needs no TOML file: ``ContextOrchestrator(window=1024, reserve_output=256)``."""
        self.config = with_overrides(
            config, governors, window=window, reserve_output=reserve_output, protocol_overhead=protocol_overhead
        )
        self.registry = registry if registry is not None else get_registry()
        self.workspace = Workspace(workspace) if workspace is not None else None
        self._projector = projector
        self._lock = threading.Lock()
        self._runs: dict[str, tuple[AssembledContext, EnvironmentKey]] = {}
        self._role_profiles: tuple[object, object, dict[str, RoleProfile]] = (None, None, {})
        self._counters: tuple[object, object, BoundCounter | None] = (None, None, None)
        self.environments = EnvironmentSnapshots()
        self.gate = EgressGate(self.config.egress)
        self.progress: Callable[[int], None] | None = None
        """Called with 1 as each material reference is projected (a command's progress bar)."""

    # --- run cache -----------------------------------------------------------------

    def get(self, run_id: str) -> AssembledContext:
        """The retained assembly of an active run.

        Raises :class:`LeaseError` when the run was never assembled or was already released.
        """
        with self._lock:
            found = self._runs.get(run_id)
        if found is None:
            raise LeaseError(f"run {run_id!r} has no retained assembly (never assembled, or already released)")
        return found[0]

    def release(self, run_id: str) -> None:
        """Terminal settlement: drop the run's assembly and its environment lease.

        Idempotent, as in the reference: releasing a run that holds nothing (never
        assembled, or already released) is a no-op. Raises nothing of its own.
        """
        with self._lock:
            found = self._runs.pop(run_id, None)
        if found is not None:
            self.environments.release(run_id, found[1])

    def active_runs(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._runs)

    # --- assembly --------------------------------------------------------------------

    def role_profile(self, role: str) -> RoleProfile:
        """The configured role policy's profile of ``role``, asked once per configuration.

        A role policy is a function of its pin, options and the role (a profile is frozen),
        so each assembly need not cross the plugin boundary, which costs a thread per call.
        Replacing ``config`` or ``registry`` asks the policy again.
        """
        config, registry = self.config, self.registry
        with self._lock:
            if self._role_profiles[0] is not config or self._role_profiles[1] is not registry:
                self._role_profiles = (config, registry, {})
            known = self._role_profiles[2]
        profile = known.get(role)
        if profile is None:
            profile = known.setdefault(role, config.role_profile(role, registry))
        return profile

    def token_counter(self) -> BoundCounter:
        """The configured ``[tokens] counter``, bound once per configuration (its cache lives with it)."""
        config, registry = self.config, self.registry
        with self._lock:
            if self._counters[0] is config and self._counters[1] is registry and self._counters[2] is not None:
                return self._counters[2]
        state = self.config.stores.state_path(self.workspace.root) if self.workspace is not None else None
        counter = resolve_counter(config, registry, state_dir=state)
        with self._lock:
            self._counters = (config, registry, counter)
        return counter

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
        with open_memory_store(self.config, self.workspace.root, create=False) as store:
            return store.query(
                MemoryQuery(
                    scope=MemoryScope(**scope_fields),  # the asking role is the profile, not the scope
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
            cache = open_projection_cache(self.config, self.workspace.root)
            self._projector = Projector(self.config, self.registry, self.workspace, cache)
        return self._projector

    def close(self) -> None:
        """Close the projection cache, if one was opened."""
        if self._projector is not None and self._projector.cache is not None:
            self._projector.cache.close()

    @traced_assembly
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
        target: str | None = None,
        compress: bool | None = None,
        semantic: Compressor | None = None,
        execution: ExecutionProjection | None = None,
        history_trim: int | None = None,
    ) -> AssembledContext:
        """Assemble one model call's context, or refuse with a typed error before inference.

        With ``target``, the context must also pass the egress gate for that configured
        target (``EgressRefused`` names the offending nodes and their labels).
        ``compress`` overrides the configured compression placement (``True``: over-budget,
        ``False``: never); ``semantic`` is a caller-built model compressor, run at its own
        placement after them (see docs/compression.md). ``execution``, at its declared
        placement, replaces settled history for this call (see docs/assembly.md).
        ``history_trim`` is the previous assembly's ``history_start`` of this conversation:
        with ``[history] trim = "chunked"`` the kept history continues from it while it fits.
        """
        if not run_id or not session_id:
            raise AssemblyError("run_id and session_id must be non-empty")
        if not query:
            raise AssemblyError("the query must be non-empty text")
        if not isinstance(history, (list, tuple)):
            raise AssemblyError(f"history must be a list of messages, got {type(history).__name__}")
        role = role or self.config.assembly.role
        memory_plan = memory.to_json(explain=False) if isinstance(memory, RetrievalPlan) else None
        memory = memory.evidence() if isinstance(memory, RetrievalPlan) else tuple(memory)
        counter = self.token_counter()
        bounds = replace(assembly_bounds(self.config, grant, window, reserve_output), token_counter=counter.pin)
        cpt = bounds.chars_per_token
        tokens: Tokens = cpt if counter.pin == REFERENCE_PIN else counter
        continuation_json = tuple(compact_json(m) for m in check_continuation(list(continuation)))
        continuation_text = "".join(continuation_json)
        # Refuse by budget before projecting anything when what is already known cannot fit.
        known = self._known_required(session_id, grant, identity, codex, karma, query, continuation_text)
        if sum(chars for chars, _ in known.values()) > bounds.char_cap:
            reserve_required(
                bounds, {name: chars for name, (chars, _) in known.items()}, sum(t for _, t in known.values())
            )
        facts: dict[str, JsonValue] = {}
        alternates: dict[str, Contribution] = {}  # verbatim block key -> its structure outline
        floor, floor_required, not_nodes = self._floor(session_id, grant, identity, codex, karma, facts, alternates)
        seed = ranking_query(self.config, query, history, floor, floor_required)
        room = min(bounds.char_cap, room_chars(bounds.budget.usable, floor, tokens)) - len(query)
        room -= len(continuation_text)
        room -= sum(len(block.text) for block, req in zip(floor, floor_required, strict=True) if req)
        ranked = rank_floor(self.config, self.registry, seed, floor, floor_required, facts, room, alternates)
        floor, floor_required = [p.block for p in ranked.placements], [p.required for p in ranked.placements]
        nodes: list[ContextNode] = [
            floor_node(p.block, required=p.required, chars_per_token=tokens, relevance=p.relevance, group=p.group)
            for p in ranked.placements
        ]
        nodes += [memory_node(m.node_id, m.text, m.token_estimate, tokens) for m in memory]
        nodes.append(query_node(query, tokens))
        if continuation_json:
            nodes.append(continuation_node(continuation_text, tokens))
        if execution is not None:
            execution = ExecutionProjection.parse(execution)
            nodes += execution_nodes(execution, tokens)

        parts = {layer.name.lower(): 0 for layer in (Layer.IDENTITY, Layer.CODEX, Layer.ENVIRONMENT, Layer.KARMA)}
        for block, req in zip(floor, floor_required, strict=True):
            parts[block.layer.name.lower()] += len(block.text) if req else 0
        parts["query"] = len(query)
        parts["continuation"] = len(continuation_text)
        if execution is not None:
            parts["execution"] = execution_required_chars(execution)
        required_tokens = sum(node.token_estimate for node in nodes if node.requirement is Requirement.REQUIRED)
        required_chars = reserve_required(bounds, parts, required_tokens)

        compressing = placement_of(self.config, compress) != "never" or semantic is not None
        history_nodes, history_groups, older = history_nodes_within(
            () if execution is not None else history,
            bounds.turn_window + (self.config.compression.scan_groups if compressing else 0),
            UNBOUNDED_SCAN if compressing else bounds.char_cap - required_chars,
            tokens,
        )
        nodes += history_nodes
        if execution is not None and history:
            not_nodes.append(Unexplained(f"history[0:{len(history)}]", f"replaced by {execution.placement}"))
        elif older:
            not_nodes.append(Unexplained(f"history[0:{older}]", "older than every group the governors can keep"))
        graph = ContextGraph(nodes)
        plan = select(graph, self.role_profile(role), bounds.budget, bounds.selection)
        chosen = frozenset(plan.selected)
        trim = selected_history_trim(
            [
                (g.start, g.chars, n.token_estimate, n.id in chosen)
                for g, n in zip(history_groups, history_nodes, strict=True)
            ],
            end=len(history),
            previous=history_trim,
            mode=self.config.history.trim,
            low_water=self.config.history.low_water,
            turn_window=bounds.turn_window,
        )
        if trim.start > trim.newest_start:  # chunked dropped the oldest kept groups to low water
            dropped = {history_node_id(g) for g in history_groups if g.start < trim.start}
            history_nodes = [n for n in history_nodes if n.id not in dropped]
            history_groups = [g for g in history_groups if g.start >= trim.start]
            graph = ContextGraph([n for n in nodes if n.id not in dropped])
            plan = select(graph, self.role_profile(role), bounds.budget, bounds.selection)
            reason = f"[history] trim = chunked ({trim.reason.value}): older than the kept start {trim.start}"
            not_nodes.append(Unexplained(f"history[{older}:{trim.start}]", reason))
        source_labels = {floor_node_id(b): b.label for b in floor}
        source_labels.update({n.id: history_label for n in history_nodes if history_label is not None})
        compression = compress_for_assembly(
            graph,
            plan,
            self.config,
            self.registry,
            compress=compress,
            chars_per_token=cpt,
            labels=source_labels,
            older_unseen=older,
            semantic=semantic,
            history=history_messages(history, history_groups) if compressing else None,
        )
        if compression.outcome is not None:
            graph, plan = compression.outcome.graph, compression.outcome.plan
        selected = set(plan.selected)

        kept_floor = render_floor(floor, selected, compression)
        kept_memory = [m for m in memory if m.node_id in selected]
        ordered_groups = [(history_node_id(g), g.start, g.texts) for g in reversed(history_groups)]
        kept_history, kept_start, _ = render_history(ordered_groups, selected, compression)
        if execution is not None:
            kept_history = render_execution(execution, selected)
        kept_groups = [g for g in history_groups if history_node_id(g) in selected]
        given = (history_label, continuation_label, query_label)
        source_floor = [b for b in kept_floor if floor_node_id(b) in selected]
        node_labels = labels_of_nodes(source_floor, kept_memory, kept_groups, bool(continuation_json), *given)
        node_labels.update(derived_labels(compression, selected))
        if execution is not None:
            node_labels.update(execution_labels(execution, selected))
        every_label = labels_of_nodes(floor, memory, history_groups, bool(continuation_json), *given)
        every_label.update(node_labels)  # every candidate node, and the derived nodes that replaced some
        layer_chars = {
            "floor": sum(len(b.text) for b in kept_floor if b.layer is not Layer.CODEX),
            "codex": sum(len(b.text) for b in kept_floor if b.layer is Layer.CODEX),
            "memory": sum(len(m.text) for m in kept_memory),
            "history": sum(len(text) for text in kept_history),
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
            label=join_labels(node_labels.values()),
            node_labels=node_labels,
            candidate_labels=every_label,
            bounds=bounds,
            required_chars=required_chars,
            used_chars=sum(plan.graph.node(node_id).chars for node_id in plan.selected),  # no explanations built
            plan=plan,
            history_start=len(history) if kept_start is None else kept_start,
            not_nodes=tuple(not_nodes),
            memory_plan=memory_plan,
            environment=self.environments.facts(session_id, grant, environment_of(floor)),
            layer_chars=layer_chars,
            compression_report=compression,
            execution=None if execution is None else execution_report(execution, selected),
            ranking=ranked if ranked.report is not None else None,
            trim=trim,
            _history=kept_history,
            _continuation=continuation_json,
        )
        if target is not None:
            self.gate.check(assembled, target)  # refuse before inference, before anything is retained
        self._retain(assembled, session_id, grant, floor)
        return assembled

    def _known_required(
        self,
        session_id: str,
        grant: Grant | None,
        identity: Sequence[Block],
        codex: Sequence[MaterialRef | Block],
        karma: Sequence[Block],
        query: str,
        continuation_text: str,
    ) -> dict[str, tuple[int, int]]:
        """Characters and estimated tokens of the required parts known before any projection:
        the floor's given blocks and environment, the query and the continuation (material
        references add to the codex once projected, so this never overstates)."""
        cpt = self.config.governors.chars_per_token

        def measured(blocks: Sequence[object]) -> tuple[int, int]:
            texts = [block.text for block in blocks if isinstance(block, Block)]  # others are refused later
            return sum(map(len, texts)), sum(-(-len(text) // cpt) for text in texts)

        environment = self.environments.peek(session_id, grant).text
        return {
            "identity": measured(identity),
            "codex": measured(codex),
            "environment": (len(environment), -(-len(environment) // cpt)),
            "karma": measured(karma),
            "query": (len(query), -(-len(query) // cpt)),
            "continuation": (len(continuation_text), -(-len(continuation_text) // cpt)),
        }

    def _floor(
        self,
        session_id: str,
        grant: Grant | None,
        identity: Sequence[Block],
        codex: Sequence[MaterialRef | Block],
        karma: Sequence[Block],
        facts: dict[str, JsonValue],
        alternates: dict[str, Contribution] | None = None,
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
        contributions = self.projector().project_many(refs, progress=self.progress) if refs else []
        if (
            contributions
            and alternates is not None
            and self.config.ranking.profiles
            and self.config.ranking.resolutions
        ):
            alternates.update(structure_alternates(self.projector(), contributions))
        projected = iter(contributions)
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

    def _retain(self, assembled: AssembledContext, session_id: str, grant: Grant | None, floor: list[Block]) -> None:
        key = self.environments.lease(assembled.run_id, session_id, grant, environment_of(floor))
        with self._lock:
            previous = self._runs.get(assembled.run_id)
            self._runs[assembled.run_id] = (assembled, key)
        if previous is not None and previous[1] != key:
            self.environments.release(assembled.run_id, previous[1])
