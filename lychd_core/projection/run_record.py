"""One authenticated record per run: an unchanged run is served without a per-file cache read.

After :meth:`Projector.project_many` finishes a run in which every reference was
projected from a settled, fingerprinted file, one record is written to the projection
cache under a *run key*: a digest of everything that decides the run's outcomes (the
machine and workspace scope, the whole configuration, every installed projection
profile's pin and parser version, the declared media types and the detector, and the
ordered references with their bounds, pins and explicit labels). Its value holds, per
reference, the file's stat fingerprint (the one a file record trusts, see
:mod:`~lychd_core.projection.fingerprints`), the content digest, the media decision
and the contribution (text, canonical facts, content hash, omissions); one keyed MAC
(GMAC, see :mod:`~lychd_core.projection.record_mac`) covers the run key and the whole record.

A later run with the same key trusts the record only whole: the MAC verifies, the
schema and shape check out, and ``lstat`` of every file gives its recorded fingerprint.
Anything else (a changed, added or removed file, a bad MAC, a corrupt, truncated or
swapped record, another schema) is a miss, and the run takes the per-file path. The
blocks are then rebuilt without re-validation: the MAC proves this cache wrote the
values after the per-file path had validated them.
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast, runtime_checkable

import orjson
from pydantic import ValidationError

from lychd_core.blocks import Omission
from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy.rules import matching_rule, rule_label
from lychd_core.projection.cache_entries import media_detector
from lychd_core.projection.codex import codex_block
from lychd_core.projection.contributions import Contribution
from lychd_core.projection.fingerprints import Fingerprint, StatProbe, machine_scope
from lychd_core.projection.media import MediaDecision
from lychd_core.projection.record_mac import record_verifier, sign_record
from lychd_core.state.keys import encoded

if TYPE_CHECKING:
    from lychd_core.projection.batch import RunHost
    from lychd_core.projection.materials import MaterialRef
    from lychd_core.registry import Registry

__all__ = ["MAX_RECORD_BYTES", "MAX_REFS", "RecordReader", "RunRecordStore", "recall_run", "remember_run", "run_key"]

RECORD_SCHEMA = 1
DOMAIN = b"lychd-run-record/1"
MAGIC = b"lychd-run/1\n"
MAX_REFS = 50_000
"""A run over more references writes no record (its header alone would be several MB)."""
MAX_RECORD_BYTES = 64 * 1024 * 1024
"""A record larger than this is not written: reading and MAC-checking it must stay cheap."""


T = TypeVar("T")


class RecordReader(Protocol):
    """The stored record, read in pieces (``sqlite3.Blob``; ``io.BytesIO`` would do)."""

    def read(self, length: int = -1, /) -> bytes: ...

    def __len__(self) -> int: ...


@runtime_checkable
class RunRecordStore(Protocol):
    """A projection cache that can hold run records (the SQLite cache; PostgreSQL skips them)."""

    def read_run(self, run_key: str, consume: Callable[[RecordReader, object], T]) -> T | None:
        """``consume(reader, stored MAC)`` over the record of ``run_key``; None when there is none (or unreadable)."""
        ...

    def remember_run(self, run_key: str, record: bytes, sign: Callable[[bytes], str]) -> None:
        """Store (replace) the record for ``run_key`` with ``sign(key)`` as its MAC, and prune old ones.

        A read-only cache keeps nothing (and never reads or creates its key for it).
        """
        ...


class _KeyedStore(RunRecordStore, Protocol):
    @property
    def secret(self) -> bytes: ...


def _store(host: RunHost) -> _KeyedStore | None:
    # Not part of the runtime check: isinstance would read the key (and create it in a read-only workspace).
    cache = host.cache
    return cast("_KeyedStore", cache) if isinstance(cache, RunRecordStore) else None


def _registry_part(registry: Registry) -> list[list[str]]:
    return sorted(
        [plugin.family.value, plugin.pin, plugin.distribution, plugin.version, str(plugin.obj.parser_version)]
        for plugin in registry.all()
        if hasattr(plugin.obj, "parser_version")
    )


def run_key(host: RunHost, registry: Registry, refs: Sequence[MaterialRef]) -> str | None:
    """The digest of everything that decides this run's outcomes; None when no record can apply."""
    if _store(host) is None or not refs or len(refs) > MAX_REFS:
        return None
    config = host.config
    identity = host.media_table.identity
    head = [
        RECORD_SCHEMA,
        machine_scope(str(host.workspace.root)),
        media_detector(identity),
        identity,
        config.model_dump(mode="json"),
        _registry_part(registry),
    ]
    rows: list[Any] = []
    for ref in refs:
        if ref.path is None:
            return None  # an artifact has no file to fingerprint
        label = ref.label.model_dump(mode="json") if "label" in ref.model_fields_set else None
        bounds = (ref.max_bytes, ref.max_chars)
        rows.append((ref.path, ref.digest, ref.required, *bounds, label, ref.lineage, ref.profile, ref.media_type))
    try:
        hashed = hashlib.sha256(orjson.dumps(head, option=orjson.OPT_SORT_KEYS))
        hashed.update(orjson.dumps(rows))
    except orjson.JSONEncodeError:
        return None  # a value JSON cannot carry (a lone surrogate in a path, a huge integer): no record
    return "sha256:" + hashed.hexdigest()


# --- writing -----------------------------------------------------------------------


def remember_run(
    host: RunHost,
    key: str | None,
    results: Sequence[Contribution],
    stamps: Sequence[Fingerprint | None],
) -> None:
    """Write the run's record when every reference was projected from a settled, fingerprinted file."""
    store = _store(host)
    if key is None or store is None or len(stamps) != len(results):
        return
    shared: dict[tuple[str, ...], int] = {}
    entries: list[list[Any]] = []
    body: list[bytes] = []
    size = 0
    for contribution, stamp in zip(results, stamps, strict=True):
        block, media = contribution.block, contribution.media
        if block is None or stamp is None or media is None:
            return
        lineage = block.lineage
        parts: tuple[str, ...] = (media.media_type, media.source, media.charset, media.magic_type)
        parts += (contribution.media_type or "", contribution.profile_pin or "", contribution.parser_version or "")
        index = shared.setdefault(parts, len(shared))
        text = block.text.encode("utf-8", "surrogatepass")
        omissions = [omission.model_dump(mode="json") for omission in lineage.omissions]
        entries.append([*stamp, lineage.source_digests[0], index, len(text), len(contribution.facts_json)])
        entries[-1] += [block.content_hash, omissions, _rule_index(host, contribution.ref.path, block.label)]
        body += (text, contribution.facts_json)
        size += len(text) + len(contribution.facts_json)
        if size > MAX_RECORD_BYTES:
            return
    try:
        header = orjson.dumps([RECORD_SCHEMA, key, [list(parts) for parts in shared], entries])
    except orjson.JSONEncodeError:
        return
    record = b"".join([MAGIC, len(header).to_bytes(8, "big"), header, *body])
    if len(record) <= MAX_RECORD_BYTES:
        store.remember_run(key, record, lambda secret: sign_record(secret, DOMAIN, encoded(key), record))


def _rule_index(host: RunHost, path: str | None, label: PrivatizationLabel) -> int:
    """The label rule that matched ``path`` (-1: none); the shared default label means none matched."""
    if label is PrivatizationLabel.restricted_unknown() or path is None:
        return -1
    found = matching_rule(host.config.labels, path)
    return -1 if found is None else found[0]


# --- reading -----------------------------------------------------------------------


def recall_run(host: RunHost, key: str | None, refs: Sequence[MaterialRef]) -> list[Contribution] | None:
    """The run's contributions from its record when it is intact and every file unchanged, else None."""
    store = _store(host)
    if key is None or store is None:
        return None
    collecting = gc.isenabled()
    gc.disable()  # tens of thousands of new objects, none cyclic garbage: no collection passes over the heap
    try:  # no row: the key is not needed (a read-only workspace may have none)
        return store.read_run(key, lambda reader, tag: _read(host, store, key, refs, reader, tag))
    except (ValueError, TypeError, IndexError, KeyError, ValidationError, OverflowError):
        return None  # a record of another shape (the MAC held, so another version wrote it): a miss
    finally:
        if collecting:
            gc.enable()


def _read(
    host: RunHost, store: _KeyedStore, key: str, refs: Sequence[MaterialRef], reader: RecordReader, tag: object
) -> list[Contribution] | None:
    """Check every fingerprint, read the pieces while the MAC is computed over them, build only if it holds."""
    lead = reader.read(len(MAGIC) + 8)
    size = int.from_bytes(lead[len(MAGIC) :], "big")
    if not lead.startswith(MAGIC) or len(lead) != len(MAGIC) + 8 or size > len(reader):
        return None
    header = reader.read(size)
    schema, recorded_key, shared_rows, entries = orjson.loads(header)
    if schema != RECORD_SCHEMA or recorded_key != key or len(entries) != len(refs):
        return None
    default_bytes = host.config.projection.max_bytes
    paths = [ref.path or "" for ref in refs]
    bounds = [ref.max_bytes or default_bytes for ref in refs]
    if not StatProbe(str(host.workspace.root)).unchanged(paths, [entry[:5] for entry in entries], bounds):
        return None  # a file changed, appeared or went away: the whole run takes the per-file path
    verifier = record_verifier(store.secret, DOMAIN, encoded(key), tag)
    if verifier is None:
        return None  # not a MAC of this form (another version's, or damaged)
    feed, verdict = verifier
    feed(lead)
    feed(header)
    pieces: list[tuple[str, bytes]] = []
    chunks = _Chunks(reader, len(reader) - len(lead) - len(header), feed)
    for entry in entries:
        text_size, facts_size = entry[7], entry[8]
        if not 0 <= text_size <= chunks.remaining - facts_size or facts_size < 0:
            return None
        both = memoryview(chunks.take(text_size + facts_size))  # one take per file: text, then facts
        pieces.append((str(both[:text_size], "utf-8", "surrogatepass"), both[text_size:].tobytes()))
    if chunks.remaining or not verdict():
        return None
    return _rebuild(host, refs, shared_rows, entries, pieces)


class _Chunks:
    """Pieces of a record read a quarter MB at a time, each chunk fed to the MAC as it is read.

    One buffer's memory is reused and no copy of the whole record is made; what the MAC
    has seen at the end is the whole body exactly when no byte is left (``remaining == 0``).
    """

    SIZE = 1 << 18

    def __init__(self, reader: RecordReader, remaining: int, feed: Callable[[Any], None] | None = None) -> None:
        self.reader, self.remaining, self.feed = reader, remaining, feed
        self.view, self.offset = memoryview(b""), 0

    def take(self, size: int) -> bytes | memoryview:
        """The next ``size`` bytes (a view into the current chunk when it holds them all)."""
        self.remaining -= size
        end = self.offset + size
        if end <= len(self.view):
            piece = self.view[self.offset : end]
            self.offset = end
            return piece
        parts = [self.view[self.offset :].tobytes()]
        size -= len(parts[0])
        while size > 0:
            self.view, self.offset = memoryview(self.reader.read(max(self.SIZE, size))), 0
            if not self.view:
                raise ValueError("the record ends early")
            if self.feed is not None:
                self.feed(self.view)
            parts.append(self.view[:size].tobytes())
            self.offset = min(size, len(self.view))
            size -= self.offset
        return b"".join(parts)


_set = object.__setattr__


def _rebuild(
    host: RunHost,
    refs: Sequence[MaterialRef],
    shared_rows: list[list[Any]],
    entries: list[list[Any]],
    pieces: list[tuple[str, bytes]],
) -> list[Contribution]:
    """What :meth:`Projector.finished` builds for each hit, from values the MAC vouches for.

    The blocks are built by :func:`~lychd_core.projection.codex.codex_block` (no re-validation;
    tests hold the objects equal, field for field and with the same fields set, to the per-file path's).
    """
    shared = [(MediaDecision(*row[:4]), row[4], row[5], row[6]) for row in shared_rows]
    unknown = PrivatizationLabel.restricted_unknown()
    results: list[Contribution] = []
    for ref, entry, (text, facts) in zip(refs, entries, pieces, strict=True):
        digest, index, _, _, content_hash, omissions, rule = entry[5:]
        media, media_type, pin, parser_version = shared[index]
        path = ref.path
        no_rule = rule < 0 and "label" not in ref.__pydantic_fields_set__
        label = unknown if no_rule else _label(host, ref, digest, rule)
        kept = tuple(Omission.model_validate(item) for item in omissions) if omissions else ()
        block = codex_block(path or "", digest, pin, parser_version, kept, ref.lineage, text, content_hash, label)
        made = Contribution.__new__(Contribution)  # a frozen dataclass: its fields, in order, at once
        _set(
            made,
            "__dict__",
            {
                "ref": ref,
                "block": block,
                "unavailable": None,
                "cached": True,
                "media_type": media_type,
                "profile_pin": pin,
                "parser_version": parser_version,
                "facts_json": facts,
                "media": media,
            },
        )
        results.append(made)
    return results


def _label(host: RunHost, ref: MaterialRef, digest: str, rule: int) -> PrivatizationLabel:
    """:func:`~lychd_core.privacy.rules.label_for` with the matching rule's index taken from the record."""
    explicit = ref.label if "label" in ref.__pydantic_fields_set__ else None
    if rule < 0:  # no rule matched when the record was written (the rules are part of the run key)
        return explicit if explicit is not None else PrivatizationLabel.restricted_unknown()
    labelled = rule_label(host.config.labels[rule], ref.path or "", digest)
    return labelled if explicit is None else explicit.join(labelled)
