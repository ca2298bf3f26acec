"""The projector's per-run path: references prepared in batches, the cache asked once per batch.

For a batch of references this module checks each file's stat fingerprint against its
file record (:mod:`lychd_core.projection.fingerprints`), reads and hashes only the files
that changed or were never recorded, asks the cache for all media decisions and all
entries of the batch in one query each, and resolves each media type's rule and options
digest once per run. What it hands back, in reference order, is for each reference a
finished :class:`Contribution`, a :class:`Job` to run, or the refusal to raise at that
reference's turn (so a required failure is raised in order, as one-at-a-time preparing did).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel

from lychd_core.digests import json_digest
from lychd_core.errors import BinaryMaterialError, ConfigError, LychdError, ProjectionCacheError
from lychd_core.families import SourceMaterial
from lychd_core.mediatypes import OCTET_STREAM
from lychd_core.projection.cache_entries import CacheKey, media_detector
from lychd_core.projection.contributions import Contribution
from lychd_core.projection.fingerprints import (
    RACY_MARGIN_NS,
    FileRecord,
    Fingerprint,
    StatProbe,
    machine_scope,
    settled,
)
from lychd_core.projection.materials import MaterialRef, MaterialScopeError
from lychd_core.projection.media import MediaDecision, binary_reason, detect_media_type
from lychd_core.projection.outcomes import Job
from lychd_core.registry import RegisteredPlugin

if TYPE_CHECKING:
    from lychd_core.config import LychdConfig
    from lychd_core.config.media_table import MediaTable
    from lychd_core.families import Projected
    from lychd_core.projection.cache_protocol import ProjectionCacheStore
    from lychd_core.projection.materials import Workspace


class RunHost(Protocol):
    """What the preparer needs of the projector (which imports this module)."""

    config: LychdConfig
    workspace: Workspace
    cache: ProjectionCacheStore | None

    @property
    def media_table(self) -> MediaTable: ...

    def resolve_profile(self, ref: MaterialRef, media_type: str) -> tuple[RegisteredPlugin, BaseModel]: ...

    def finished(
        self,
        ref: MaterialRef,
        plugin: RegisteredPlugin,
        media: MediaDecision | None,
        digest: str,
        outcome: tuple[Projected, bytes],
        *,
        cached: bool = False,
    ) -> Contribution: ...


BATCH = 256
"""References prepared together: one cache query per kind per batch, bounded memory."""


@dataclass(slots=True)
class _Item:
    ref: MaterialRef
    max_bytes: int
    max_chars: int
    data: bytes | None = None
    digest: str = ""
    stamp: Fingerprint | None = None
    media: MediaDecision | None = None
    recorded: bool = False
    error: LychdError | None = None
    plugin: RegisteredPlugin | None = None
    options: BaseModel | None = None
    key: CacheKey | None = None


class RunPreparer:
    """Prepares one run's references; holds what is resolved once per run (rules, digests, directories)."""

    def __init__(self, projector: RunHost, *, racy_margin_ns: int = RACY_MARGIN_NS) -> None:
        self.projector = projector
        self.cache = projector.cache
        self.root = str(projector.workspace.root)
        self.scope = machine_scope(self.root)
        self.table = projector.media_table
        self.detector = media_detector(self.table.identity)
        self.start_ns = time.time_ns()
        self.racy_margin_ns = racy_margin_ns
        self._stat = StatProbe(self.root)
        self._rules: dict[tuple[str, str | None], tuple[RegisteredPlugin, BaseModel]] = {}
        self._options: dict[tuple[str, str, int, int], str] = {}
        self.new_media: list[tuple[str, str, str | None, MediaDecision]] = []
        self.new_files: list[FileRecord] = []
        self.stamps: list[Fingerprint | None] = []
        """Per reference, in order: the fingerprint its outcome can be trusted under (for the run record)."""

    # --- the batch -----------------------------------------------------------------

    def prepare(self, refs: Sequence[MaterialRef]) -> Iterator[Contribution | Job | LychdError]:
        """Each reference's contribution, job or deferred refusal, in order, a batch at a time."""
        for start in range(0, len(refs), BATCH):
            yield from self._batch(refs[start : start + BATCH])

    def _batch(self, refs: Sequence[MaterialRef]) -> list[Contribution | Job | LychdError]:
        config = self.projector.config.projection
        items = [_Item(ref, ref.max_bytes or config.max_bytes, ref.max_chars or config.max_chars) for ref in refs]
        self._recall(items)
        for item in items:
            if item.media is None and item.error is None:
                self._read(item)
        self._decide_media(items)
        for item in items:
            if item.error is None:
                self._resolve(item)
        hits = {} if self.cache is None else self.cache.get_many([i.key for i in items if i.key is not None])
        outcomes = [self._outcome(item, hits) for item in items]
        self.stamps += [item.stamp if item.error is None else None for item in items]
        return outcomes

    def _recall(self, items: list[_Item]) -> None:
        """Stat each file; an unchanged, recorded one takes its digest and media decision from the record."""
        if self.cache is None:
            return
        for item in items:
            if item.ref.path is not None:
                item.stamp = self._stat(item.ref.path, item.max_bytes)
        stamped = [item.ref.path for item in items if item.stamp is not None and item.ref.path is not None]
        if not stamped:
            return
        records = self.cache.files(self.scope, stamped)
        for item in items:
            record = records.get(item.ref.path or "")
            if (
                record is not None
                and record.stamp == item.stamp
                and record.digest == item.ref.digest
                and record.pinned == (item.ref.media_type or "")
                and record.detector == self.detector
            ):
                item.digest, item.media, item.recorded = record.digest, record.media, True

    def _read(self, item: _Item) -> None:
        """Read through the workspace boundary (scope, kind, size, digest); a refusal is kept for its turn."""
        try:
            item.data, item.digest, stamp = self.projector.workspace.read_stamped(item.ref, item.max_bytes)
        except LychdError as exc:
            item.error = exc
            return
        item.stamp = stamp if stamp is not None and settled(stamp, self.start_ns, self.racy_margin_ns) else None

    def _decide_media(self, items: list[_Item]) -> None:
        """Media decisions for the files read: remembered ones in one query, the rest detected."""
        pending = [item for item in items if item.media is None and item.error is None]
        if not pending:
            return
        queries = [(item.digest, _name(item.ref), item.ref.media_type) for item in pending]
        known = {} if self.cache is None else self.cache.media_many(queries, self.table.identity)
        for item, query in zip(pending, queries, strict=True):
            decision = known.get(query)
            if decision is None:
                try:
                    decision = detect_media_type(item.ref.path or "", item.data or b"", item.ref.media_type, self.table)
                except LychdError as exc:
                    item.error = exc
                    continue
                self.new_media.append((*query, decision))
            item.media = decision
            if item.stamp is not None and item.ref.path is not None:
                pinned = item.ref.media_type or ""
                record = FileRecord(item.ref.path, item.stamp, item.digest, pinned, self.detector, decision)
                self.new_files.append(record)

    def _resolve(self, item: _Item) -> None:
        """The rule's profile and options (once per media type and pin) and the cache key."""
        assert item.media is not None
        media_type = item.media.media_type
        rule = self._rules.get((media_type, item.ref.profile))
        if item.media.is_binary and media_type not in self.projector.config.projection.rules:
            item.error = binary_material(item.ref, item.media, self.table)
            return
        if rule is None:  # refusals are not remembered: their messages name the reference
            try:
                rule = self._rules[(media_type, item.ref.profile)] = self.projector.resolve_profile(
                    item.ref, media_type
                )
            except LychdError as exc:
                item.error = exc
                return
            self._rules[(media_type, item.ref.profile)] = rule
        item.plugin, item.options = rule
        bounds = (rule[0].pin, media_type, item.max_bytes, item.max_chars)
        options_digest = self._options.get(bounds)
        if options_digest is None:
            options_digest = self._options[bounds] = self._options_digest(item, media_type)
        plugin = item.plugin
        item.key = CacheKey(item.digest, plugin.name, plugin.revision, options_digest, plugin.obj.parser_version)

    def _options_digest(self, item: _Item, media_type: str) -> str:
        assert item.plugin is not None and item.options is not None
        bounds: dict[str, Any] = {"media_type": media_type, "max_bytes": item.max_bytes, "max_chars": item.max_chars}
        try:
            return json_digest({"options": item.options.model_dump(mode="json"), **bounds})
        except TypeError as exc:
            raise ConfigError(f"{item.plugin.pin} options cannot be digested canonically: {exc}") from None

    def _outcome(self, item: _Item, hits: dict[CacheKey, Any]) -> Contribution | Job | LychdError:
        if item.error is None and item.key is not None and item.key not in hits and item.data is None:
            self._read(item)  # recorded, but the entry is gone: read (and verify) the bytes after all
        if item.error is not None:
            error = item.error
            if item.ref.required or isinstance(error, (MaterialScopeError, ProjectionCacheError)):
                return error  # raised at this reference's turn: a scope escape or an unusable cache always
            media_type = None if item.media is None else item.media.media_type
            return Contribution(
                item.ref, None, f"{type(error).__name__}: {error}", media_type=media_type, media=item.media
            )
        assert item.plugin is not None and item.options is not None and item.key is not None and item.media
        hit = hits.get(item.key)
        if hit is not None:
            contribution: Contribution = self.projector.finished(
                item.ref, item.plugin, item.media, item.digest, hit, cached=True
            )
            return contribution
        source = SourceMaterial(
            item.ref.source, item.media.media_type, item.data or b"", item.digest, item.max_bytes, item.max_chars
        )
        return Job(item.ref, item.plugin, item.options, source, item.key, item.media)


def _name(ref: MaterialRef) -> str:
    """The file name of a reference's path (``PurePosixPath(path).name``: a checked path is canonical,
    no empty or ``.`` component, so its last component is its name; without a path object per file)."""
    return (ref.path or "").rpartition("/")[2]


def binary_material(ref: MaterialRef, media: MediaDecision, table: MediaTable) -> BinaryMaterialError:
    """The refusal of a binary file no rule projects: named, and called binary."""
    where = ref.path or ref.source
    rule = "" if media.media_type == OCTET_STREAM else f", or add a projection rule for {media.media_type}"
    return BinaryMaterialError(
        f"{where} is a binary file: {binary_reason(where, media, table)}. lychd projects text; "
        f"leave it out of the material (or .gitignore it){rule}"
    )
