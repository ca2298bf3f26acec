"""Running projection profiles: material reference -> Codex block or explained absence.

The rule lookup is the only way a profile is chosen: the material's normalized media
type selects the configuration's rule, which names a registered ``profile@revision``
and its typed options. A reference may name the exact ``profile@revision`` it expects;
it must match the rule's, else the reference is refused.

Required references raise on every refusal (a :class:`~lychd_core.errors.MaterialError`
or :class:`~lychd_core.errors.MediaTypeError` from reading and rule lookup, or
:class:`RequiredMaterialUnavailable` when the profile cannot project). Optional ones
become a :class:`Contribution` whose ``unavailable`` explains why, except scope
violations (path escapes), which always raise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future

from pydantic import BaseModel

from lychd_core.config import LychdConfig, resolve_rule
from lychd_core.config.media_table import MediaTable
from lychd_core.config.media_table import media_table as build_media_table
from lychd_core.digests import text_digest
from lychd_core.errors import (
    ConfigError,
    LychdError,
    MaterialError,
    MediaTypeError,
    ProjectionUnavailable,
)
from lychd_core.families import Projected, Unavailable
from lychd_core.privacy.rules import label_for
from lychd_core.projection.batch import RunPreparer
from lychd_core.projection.cache_entries import CacheKey
from lychd_core.projection.cache_protocol import ProjectionCacheStore
from lychd_core.projection.codex import codex_block
from lychd_core.projection.contributions import Contribution
from lychd_core.projection.fingerprints import RACY_MARGIN_NS
from lychd_core.projection.materials import MaterialRef, Workspace
from lychd_core.projection.media import MediaDecision
from lychd_core.projection.outcomes import Checked, Job, run_profile
from lychd_core.projection.pool import JobRunner, in_process
from lychd_core.projection.run_record import recall_run, remember_run, run_key
from lychd_core.registry import RegisteredPlugin, Registry

__all__ = ["Contribution", "ProfileMismatchError", "Projector", "RequiredMaterialUnavailable"]

Progress = Callable[[int], None]


class ProfileMismatchError(MaterialError):
    """The reference names a ``profile@revision`` other than the one its media type's rule selects."""


class RequiredMaterialUnavailable(ProjectionUnavailable):
    """A required material's profile could not project it; never replaced by full text."""

    def __init__(self, source: str, profile: str, reason: str) -> None:
        super().__init__(f"{source}: required material could not be projected by {profile}: {reason}")
        self.source = source
        self.profile = profile
        self.reason = reason


class Projector:
    """Projects material references through the configured rules, with an optional cache."""

    def __init__(
        self,
        config: LychdConfig,
        registry: Registry,
        workspace: Workspace,
        cache: ProjectionCacheStore | None = None,
    ) -> None:
        self.config = config
        self.registry = registry
        self.workspace = workspace
        self.cache = cache
        self._table: MediaTable | None = None
        self.racy_margin_ns = RACY_MARGIN_NS
        """Files changed this recently before a run are re-hashed every time (see ``fingerprints``)."""
        self.served_from_run_record = False
        """Whether the last ``project_many`` was served whole from its run record (``run_record.py``)."""

    @property
    def media_table(self) -> MediaTable:
        """The declared media types (configuration, then installed profiles); conflicts raise once, here."""
        if self._table is None:
            self._table = build_media_table(self.config, self.registry)
        return self._table

    # --- preparing ----------------------------------------------------------------

    def resolve_profile(self, ref: MaterialRef, media_type: str) -> tuple[RegisteredPlugin, BaseModel]:
        """The rule's profile and options for ``media_type``, checked against the reference."""
        pin = resolve_rule(self.config, self.registry, media_type)
        if media_type not in pin.plugin.media_types:
            raise MediaTypeError(
                f"{ref.source}: the rule for {media_type} selects {pin.plugin.pin}, which does not accept it "
                f"(accepts: {', '.join(pin.plugin.media_types)})"
            )
        if ref.profile is not None and ref.profile != pin.plugin.pin:
            raise ProfileMismatchError(
                f"{ref.source}: the reference asks for {ref.profile}, but the rule for {media_type} selects "
                f"{pin.plugin.pin}; change the reference or the configuration's rule"
            )
        return pin.plugin, pin.options

    # --- finishing ----------------------------------------------------------------

    def finish(self, job: Job, outcome: Checked, *, cached: bool = False) -> Contribution:
        """Turn a checked outcome into a contribution (raising for a required, unavailable one)."""
        return self.finished(job.ref, job.plugin, job.media, job.source.digest, outcome, cached=cached)

    def finished(
        self,
        ref: MaterialRef,
        plugin: RegisteredPlugin,
        media: MediaDecision | None,
        digest: str,
        outcome: Checked,
        *,
        cached: bool = False,
    ) -> Contribution:
        """:meth:`finish` from the parts of a job (a cache hit needs no job)."""
        parser_version, pin, source = str(plugin.obj.parser_version), plugin.pin, ref.source
        media_type = None if media is None else media.media_type
        if isinstance(outcome, Unavailable):
            if ref.required:
                raise RequiredMaterialUnavailable(source, pin, outcome.reason)
            return Contribution(ref, None, outcome.reason, False, media_type, pin, parser_version, media=media)
        projected, facts = outcome
        explicit = ref.label if "label" in ref.model_fields_set else None
        label = label_for(self.config.labels, ref.path, digest, explicit)
        text = projected.text  # checked: a str; the omissions, Omission values (outcomes.checked)
        omissions = tuple(projected.omissions)
        block = codex_block(source, digest, pin, parser_version, omissions, ref.lineage, text, text_digest(text), label)
        return Contribution(ref, block, None, cached, media_type, pin, parser_version, facts, media)

    # --- projecting ---------------------------------------------------------------

    def project(self, ref: MaterialRef) -> Contribution:
        """Project one reference (see the module docstring for what raises)."""
        return self.project_many([ref])[0]

    def project_many(
        self, refs: Sequence[MaterialRef], processes: int = 1, progress: Progress | None = None
    ) -> list[Contribution]:
        """Project ``refs``, results in the same order; profiles run in ``processes`` worker processes.

        Each profile call is time-limited (``[projection] time_limit_seconds``): past it, its
        worker is killed and the material is unavailable (a required one raises).

        While workers project, this process reads and verifies the next references; a slow
        material never holds the others back. ``progress`` is called with 1 as each reference
        is done. Fresh successful outcomes are cached before a required failure is raised.
        """
        if processes < 1:
            raise ConfigError(f"processes must be at least 1, got {processes}")
        key = run_key(self, self.registry, refs)  # None without a cache that keeps run records
        recalled = recall_run(self, key, refs)
        self.served_from_run_record = recalled is not None
        if recalled is not None:
            if progress is not None:
                for _ in recalled:
                    progress(1)
            return recalled
        preparer = RunPreparer(self, racy_margin_ns=self.racy_margin_ns)  # a declaration conflict refuses here
        window = 1 if processes == 1 else 4 * processes
        results: list[Contribution | None] = [None] * len(refs)
        running: dict[Future[Checked], tuple[int, Job]] = {}
        fresh: list[tuple[CacheKey, Projected, bytes]] = []
        try:
            with JobRunner(self.registry, processes, self.config.projection.time_limit_seconds) as runner:
                for index, prepared in enumerate(preparer.prepare(refs)):
                    if isinstance(prepared, LychdError):
                        raise prepared
                    if isinstance(prepared, Contribution):
                        results[index] = prepared
                        if progress is not None:
                            progress(1)
                        continue
                    if processes == 1 and in_process(prepared):  # as the runner would, without a future each
                        outcome = run_profile(prepared.plugin, prepared.options, prepared.source)
                        results[index] = self._done(prepared, outcome, fresh, progress)
                        continue
                    running[runner.submit(prepared)] = (index, prepared)
                    while len(running) >= window:
                        self._collect(runner, running, results, fresh, progress)
                while running:
                    self._collect(runner, running, results, fresh, progress)
        finally:
            self._store(fresh, preparer)
        finished = [result for result in results if result is not None]
        remember_run(self, key, finished, preparer.stamps)
        return finished

    def _collect(
        self,
        runner: JobRunner,
        running: dict[Future[Checked], tuple[int, Job]],
        results: list[Contribution | None],
        fresh: list[tuple[CacheKey, Projected, bytes]],
        progress: Progress | None,
    ) -> None:
        """Finish whichever jobs are done (at least one), in any order."""
        for future in runner.wait(running):
            index, job = running.pop(future)
            results[index] = self._done(job, runner.outcome(future), fresh, progress)

    def _done(
        self,
        job: Job,
        outcome: Checked,
        fresh: list[tuple[CacheKey, Projected, bytes]],
        progress: Progress | None,
    ) -> Contribution:
        """One finished job's contribution; a fresh projection is kept for the run's cache write."""
        if not isinstance(outcome, Unavailable):
            # The facts travel as their canonical bytes: holding every profile's facts tree until the
            # run's cache write would make each garbage collection walk all of them (most of a run's time).
            projected = outcome[0]
            kept = Projected(projected.text, None, projected.line_map, projected.omissions)
            fresh.append((job.key, kept, outcome[1]))
        if progress is not None:
            progress(1)
        return self.finish(job, outcome)

    def _store(self, fresh: list[tuple[CacheKey, Projected, bytes]], preparer: RunPreparer) -> None:
        """Fresh outcomes, media decisions and file records, each batch in one transaction."""
        if self.cache is not None:
            self.cache.put_many(fresh)
            if preparer.new_media:
                self.cache.remember_media(preparer.new_media, self.media_table.identity)
            if preparer.new_files:
                self.cache.remember_files(preparer.scope, preparer.new_files)
        fresh.clear()
        preparer.new_media, preparer.new_files = [], []
