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

import json
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from pydantic import BaseModel

from lychd_core.blocks import Block, Layer, Lineage
from lychd_core.config import LychdConfig, resolve_rule
from lychd_core.digests import JsonValue, json_digest, sha256_digest
from lychd_core.errors import (
    ConfigError,
    LychdError,
    MaterialError,
    MediaTypeError,
    ProjectionCacheError,
    ProjectionUnavailable,
)
from lychd_core.families import Projected, SourceMaterial, Unavailable
from lychd_core.privacy.rules import label_for
from lychd_core.projection.cache_entries import CacheKey
from lychd_core.projection.declared import MediaTable
from lychd_core.projection.declared import media_table as build_media_table
from lychd_core.projection.materials import MaterialRef, MaterialScopeError, ResolvedMaterial, Workspace
from lychd_core.projection.media import MediaDecision, detect_media_type
from lychd_core.projection.outcomes import Checked, Job
from lychd_core.projection.pool import JobRunner
from lychd_core.registry import RegisteredPlugin, Registry
from lychd_core.stores.protocols import ProjectionCacheStore

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


@dataclass(frozen=True)
class Contribution:
    """One reference's outcome: a Codex block, or an explained absence."""

    ref: MaterialRef
    block: Block | None
    unavailable: str | None
    cached: bool = False
    media_type: str | None = None
    profile_pin: str | None = None
    parser_version: str | None = None
    facts_json: bytes = field(default=b"null", repr=False)
    media: MediaDecision | None = None
    """The media-type decision and the source that made it (None when reading failed first)."""

    @property
    def facts(self) -> JsonValue:
        """The profile's facts as plain data; a fresh copy on every access (detached)."""
        value: JsonValue = json.loads(self.facts_json)
        return value

    @property
    def ok(self) -> bool:
        return self.block is not None

    @property
    def digest(self) -> str:
        """Identity of the contribution: block (with lineage, label, parser and profile) and facts."""
        return json_digest(
            {
                "block": None if self.block is None else self.block.to_json(),
                "unavailable": self.unavailable,
                "media_type": self.media_type,
                "profile": self.profile_pin,
                "parser_version": self.parser_version,
                "facts_digest": sha256_digest(self.facts_json),
                "lineage_tags": list(self.ref.lineage),
            }
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.ref.source,
            "required": self.ref.required,
            "status": "unavailable" if self.block is None else ("cached" if self.cached else "projected"),
            "unavailable": self.unavailable,
            "media_type": self.media_type,
            "media_source": None if self.media is None else self.media.source,
            "profile": self.profile_pin,
            "parser_version": self.parser_version,
            "block": None if self.block is None else self.block.to_json(),
            "facts": self.facts,
            "lineage_tags": list(self.ref.lineage),
            "digest": self.digest,
        }


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
        self._new_media: list[tuple[str, str, str | None, MediaDecision]] = []
        self._table: MediaTable | None = None

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

    def _media(self, ref: MaterialRef, data: bytes, digest: str) -> MediaDecision:
        """The media-type decision, remembered in the cache by (digest, file name, pin)."""
        table = self.media_table
        if self.cache is None:
            return detect_media_type(ref.path or "", data, ref.media_type, table)
        name = PurePosixPath(ref.path or "").name
        remembered = self.cache.media(digest, name, ref.media_type, table.identity)
        if remembered is not None:
            return remembered
        decision = detect_media_type(ref.path or "", data, ref.media_type, table)
        self._new_media.append((digest, name, ref.media_type, decision))
        return decision

    def _key(self, resolved: ResolvedMaterial, plugin: RegisteredPlugin, options: BaseModel, bounds: Any) -> CacheKey:
        try:
            options_digest = json_digest({"options": options.model_dump(mode="json"), **bounds})
        except TypeError as exc:
            raise ConfigError(f"{plugin.pin} options cannot be digested canonically: {exc}") from None
        return CacheKey(resolved.digest, plugin.name, plugin.revision, options_digest, plugin.obj.parser_version)

    def prepare(self, ref: MaterialRef) -> Job | Contribution:
        """Read, verify and look up the rule (and the cache); refusals follow the required/optional rule."""
        max_bytes = ref.max_bytes or self.config.projection.max_bytes
        max_chars = ref.max_chars or self.config.projection.max_chars
        media: MediaDecision | None = None
        try:
            data, digest = self.workspace.read_verified(ref, max_bytes)
            media = self._media(ref, data, digest)
            resolved = ResolvedMaterial(ref.source, data, digest, media)
            plugin, options = self.resolve_profile(ref, media.media_type)
            bounds = {"media_type": media.media_type, "max_bytes": max_bytes, "max_chars": max_chars}
            key = self._key(resolved, plugin, options, bounds)
        except (MaterialScopeError, ProjectionCacheError):
            raise  # a scope escape or an unusable cache store refuses the whole call, not one file
        except LychdError as exc:
            if ref.required:
                raise
            media_type = None if media is None else media.media_type
            return Contribution(ref, None, f"{type(exc).__name__}: {exc}", media_type=media_type, media=media)
        source = SourceMaterial(
            ref.source, resolved.media.media_type, resolved.data, resolved.digest, max_bytes, max_chars
        )
        job = Job(ref, plugin, options, source, key, media)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return self.finish(job, hit, cached=True)
        return job

    # --- finishing ----------------------------------------------------------------

    def finish(self, job: Job, outcome: Checked, *, cached: bool = False) -> Contribution:
        """Turn a checked outcome into a contribution (raising for a required, unavailable one)."""
        plugin, ref = job.plugin, job.ref
        parser_version = str(plugin.obj.parser_version)
        if isinstance(outcome, Unavailable):
            if ref.required:
                raise RequiredMaterialUnavailable(ref.source, plugin.pin, outcome.reason)
            return Contribution(
                ref, None, outcome.reason, False, job.source.media_type, plugin.pin, parser_version, media=job.media
            )
        projected, facts = outcome
        lineage = Lineage(
            source_path=ref.source,
            source_digests=(job.source.digest,),
            profile=plugin.pin,
            parser_version=parser_version,
            omissions=projected.omissions,
            tags=ref.lineage,
        )
        block = Block(
            layer=Layer.CODEX,
            key=f"codex:{ref.source}:{plugin.pin}",
            text=projected.text,
            label=label_for(
                self.config.labels, ref.path, job.source.digest, ref.label if "label" in ref.model_fields_set else None
            ),
            lineage=lineage,
        )
        return Contribution(
            ref, block, None, cached, job.source.media_type, plugin.pin, parser_version, facts, job.media
        )

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
        _ = self.media_table  # a declaration conflict refuses the whole run, not each file
        window = 2 if processes == 1 else 4 * processes  # one queued job: read the next file while one projects
        results: list[Contribution | None] = [None] * len(refs)
        running: dict[Future[Checked], tuple[int, Job]] = {}
        fresh: list[tuple[CacheKey, Projected, bytes]] = []
        try:
            with JobRunner(self.registry, processes, self.config.projection.time_limit_seconds) as runner:
                for index, ref in enumerate(refs):
                    prepared = self.prepare(ref)
                    if isinstance(prepared, Contribution):
                        results[index] = prepared
                        if progress is not None:
                            progress(1)
                        continue
                    running[runner.submit(prepared)] = (index, prepared)
                    while len(running) >= window:
                        self._collect(runner, running, results, fresh, progress)
                while running:
                    self._collect(runner, running, results, fresh, progress)
        finally:
            self._store(fresh)
        return [result for result in results if result is not None]

    def _collect(
        self,
        runner: JobRunner,
        running: dict[Future[Checked], tuple[int, Job]],
        results: list[Contribution | None],
        fresh: list[tuple[CacheKey, Projected, bytes]],
        progress: Progress | None,
    ) -> None:
        """Finish whichever jobs are done (at least one), in any order."""
        done = runner.wait(running)
        for future in done:
            index, job = running.pop(future)
            outcome = runner.outcome(future)
            if not isinstance(outcome, Unavailable):
                fresh.append((job.key, *outcome))
                if len(fresh) >= 64:
                    self._store(fresh)
            if progress is not None:
                progress(1)
            results[index] = self.finish(job, outcome)

    def _store(self, fresh: list[tuple[CacheKey, Projected, bytes]]) -> None:
        if self.cache is not None:
            self.cache.put_many(fresh)
            if self._new_media:
                self.cache.remember_media(self._new_media, self.media_table.identity)
        fresh.clear()
        self._new_media = []
