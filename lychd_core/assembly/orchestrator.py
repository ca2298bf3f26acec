"""``ContextOrchestrator``: one pipeline from typed inputs to an ``AssembledContext``.

``assemble`` runs the named stages in order (``lychd_core.assembly.stages``): project,
rank, build the graph, select, compress, render, gate. Nothing is retained until every
check has passed, so a failed assembly leaves the run cache and the environment leases
exactly as they were.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import chain
from pathlib import Path
from types import TracebackType
from typing import Any

from lychd_core.assembly.bounds import assembly_bounds, with_overrides
from lychd_core.assembly.context import AssembledContext
from lychd_core.assembly.environment import EnvironmentSnapshots, Grant
from lychd_core.assembly.execution import ExecutionProjection
from lychd_core.assembly.nodes import Tokens
from lychd_core.assembly.request import AssemblyRequest
from lychd_core.assembly.resources import Counters, ProjectorHome, RoleProfiles, retrieve_memory
from lychd_core.assembly.runs import RunCache
from lychd_core.assembly.stages.compress import compress_selection, compresses
from lychd_core.assembly.stages.graph import CallInputs, build_graph
from lychd_core.assembly.stages.project import project_floor, refuse_early
from lychd_core.assembly.stages.rank import optional_room, rank_stage
from lychd_core.assembly.stages.render import Decided, render_context
from lychd_core.assembly.stages.select import select_stage
from lychd_core.assembly.tracing import traced_assembly
from lychd_core.blocks import Block
from lychd_core.config import Governors, LychdConfig
from lychd_core.families import Compressor
from lychd_core.history import Message
from lychd_core.labels import PrivatizationLabel
from lychd_core.memory import MemoryEvidence, RetrievalPlan
from lychd_core.privacy.gate import EgressGate
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.projector import Projector
from lychd_core.registry import Registry, get_registry
from lychd_core.roles import RoleProfile
from lychd_core.tokens import REFERENCE_PIN, BoundCounter


class ContextOrchestrator:
    """Assembles contexts under one configuration; caches them per run until released.

    Use it as a context manager (``with ContextOrchestrator(...) as orchestrator:``) to close
    the projection cache it opens; ``close()`` does the same.
    """

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
        self.environments = EnvironmentSnapshots()
        self.runs = RunCache(self.environments)
        self.gate = EgressGate(self.config.egress)
        self.progress: Callable[[int], None] | None = None
        """Called with 1 as each material reference is projected (a command's progress bar)."""
        self._projectors = ProjectorHome(projector)
        self._role_profiles = RoleProfiles()
        self._counters = Counters()

    def __enter__(self) -> ContextOrchestrator:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    # --- the run cache (lychd_core.assembly.runs) ------------------------------------

    def get(self, run_id: str) -> AssembledContext:
        """The retained assembly of an active run.

        Raises :class:`LeaseError` when the run was never assembled or was already released.
        """
        return self.runs.get(run_id)

    def release(self, run_id: str) -> None:
        """Terminal settlement: drop the run's assembly and its environment lease.

        Idempotent, as in the reference: releasing a run that holds nothing (never
        assembled, or already released) is a no-op. Raises nothing of its own.
        """
        self.runs.release(run_id)

    def active_runs(self) -> frozenset[str]:
        return self.runs.active()

    # --- what is kept per configuration (lychd_core.assembly.resources) --------------

    def role_profile(self, role: str) -> RoleProfile:
        """The configured role policy's profile of ``role``, asked once per configuration;
        replacing ``config`` or ``registry`` asks the policy again."""
        return self._role_profiles.get(self.config, self.registry, role)

    def token_counter(self) -> BoundCounter:
        """The configured ``[tokens] counter``, bound once per configuration (its cache lives with it)."""
        return self._counters.get(self.config, self.registry, self.workspace)

    def retrieve_memory(self, role: str | None = None, *, now: int | None = None, **query: Any) -> RetrievalPlan:
        """Retrieve from the configured memory store for ``role`` (its policy filters what is visible).

        ``query`` takes the :class:`MemoryQuery` fields plus the scope fields
        (``project``, ``workspace``, ``repository``, ``actor``); ``now`` defaults to the
        store's latest observation, since the library never reads the wall clock.
        """
        profile = self.role_profile(role or self.config.assembly.role)
        return retrieve_memory(self.config, self.workspace, profile, now, query)

    def projector(self) -> Projector:
        """The projector for material references, caching in the configured projection store."""
        return self._projectors.get(self.config, self.registry, self.workspace)

    def close(self) -> None:
        """Close the projection cache, if one was opened."""
        self._projectors.close()

    # --- assembly: the stages in order ------------------------------------------------

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
        request = AssemblyRequest(
            run_id=run_id,
            session_id=session_id,
            query=query,
            identity=identity,
            codex=codex,
            karma=karma,
            memory=memory,
            history=history,
            continuation=continuation,
            grant=grant,
            role=role,
            window=window,
            reserve_output=reserve_output,
            history_label=history_label,
            continuation_label=continuation_label,
            query_label=query_label,
            target=target,
            compress=compress,
            semantic=semantic,
            execution=execution,
            history_trim=history_trim,
        )
        return self.assemble_request(request)

    @traced_assembly
    def assemble_request(self, request: AssemblyRequest) -> AssembledContext:
        """``assemble`` for a built request: the stages in order, then the gate, then retention."""
        config, registry = self.config, self.registry
        role = request.role or config.assembly.role
        counter = self.token_counter()
        bounds = assembly_bounds(
            config, request.grant, request.window, request.reserve_output, token_counter=counter.pin
        )
        tokens: Tokens = bounds.chars_per_token if counter.pin == REFERENCE_PIN else counter
        continuation_json = request.continuation_json()
        call = CallInputs(
            request.query, "".join(continuation_json), request.evidence(), request.history, request.execution
        )
        environment = self.environments.peek(request.session_id, request.grant)
        refuse_early(bounds, request, environment, call.continuation_text)
        projected = project_floor(  # 1. project
            request.identity,
            request.codex,
            request.karma,
            environment,
            self.projector,
            with_alternates=bool(config.ranking.profiles and config.ranking.resolutions),
            progress=self.progress,
        )
        alternates = (c.block for c in projected.alternates.values() if c.block is not None)
        # counts kept with projections; read lazily: without a stored counter nothing is walked
        self._projectors.attach_counts(counter, chain(projected.floor.blocks, alternates))
        room = optional_room(bounds, projected, tokens, len(call.query) + len(call.continuation_text))
        ranked = rank_stage(config, registry, request.query, request.history, projected, room)  # 2. rank
        scan = config.compression.scan_groups if compresses(config, request.compress, request.semantic) else None
        built = build_graph(ranked, call, bounds, tokens, scan_groups=scan)  # 3. build the graph
        selection = select_stage(  # 4. select
            built,
            self.role_profile(role),
            bounds,
            config.history,
            history_end=len(request.history),
            previous_start=request.history_trim,
        )
        compression, plan = compress_selection(  # 5. compress
            selection,
            built,
            request,
            config,
            registry,
            chars_per_token=bounds.chars_per_token,
            count=None if isinstance(tokens, int) else tokens,  # derived nodes priced like their sources
        )
        unusable = projected.unusable + built.unusable + selection.unusable
        decided = Decided(
            request, role, bounds, built, selection, compression, plan, ranked, call.memory, continuation_json, unusable
        )
        facts = self.environments.facts(request.session_id, request.grant, environment)
        assembled = render_context(decided, facts)  # 6. render
        if request.target is not None:
            self.gate.check(assembled, request.target)  # 7. gate: refuse before inference, before retention
        self.runs.retain(assembled, request.grant, environment)
        return assembled
