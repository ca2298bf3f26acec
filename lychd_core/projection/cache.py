"""The projection cache: successful projections in SQLite, never trusted on read.

Key: (source digest, profile, revision, options digest, parser version); the options
digest covers the profile's options and everything else that shapes the outcome
(media type, byte and character bounds). Only successful projections are stored.

Every read re-checks the entry: the payload's digest, its JSON, its schema, that its
embedded key equals the lookup key and that its text matches its text digest. Any
mismatch is a miss (the entry is recomputed and overwritten), never a result.

The database uses WAL and a busy timeout, so concurrent processes can share it. A file
that is not an SQLite database (corrupt) is moved aside to ``<name>.corrupt-<pid>-<ns>``
and recreated, since a cache holds nothing that cannot be recomputed. A valid SQLite
database that belongs to something else (another application id) is refused with
:class:`ProjectionCacheError` and left untouched.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lychd_core.blocks import Omission
from lychd_core.digests import sha256_digest, text_digest
from lychd_core.errors import ProjectionCacheError
from lychd_core.families import Projected
from lychd_core.projection.media import MediaDecision

APPLICATION_ID = 0x4C594348  # "LYCH"
SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 10_000

_CREATE = (
    """
CREATE TABLE IF NOT EXISTS projections (
    source_digest TEXT NOT NULL,
    profile TEXT NOT NULL,
    revision INTEGER NOT NULL,
    options_digest TEXT NOT NULL,
    parser_version TEXT NOT NULL,
    payload TEXT NOT NULL,
    facts TEXT NOT NULL,
    entry_digest TEXT NOT NULL,
    PRIMARY KEY (source_digest, profile, revision, options_digest, parser_version)
) WITHOUT ROWID
""",
    """
CREATE TABLE IF NOT EXISTS media_decisions (
    source_digest TEXT NOT NULL,
    file_name TEXT NOT NULL,
    pinned TEXT NOT NULL,
    detector TEXT NOT NULL,
    decision TEXT NOT NULL,
    entry_digest TEXT NOT NULL,
    PRIMARY KEY (source_digest, file_name, pinned, detector)
) WITHOUT ROWID
""",
)


@dataclass(frozen=True, slots=True)
class CacheKey:
    """What a projection's outcome is a pure function of."""

    source_digest: str
    profile: str
    revision: int
    options_digest: str
    parser_version: str

    def as_list(self) -> list[object]:
        return [self.source_digest, self.profile, self.revision, self.options_digest, self.parser_version]


def _json(value: object) -> str:
    """Canonical JSON text of values built here (strings, integers, lists, dicts)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _entry_digest(*parts: str) -> str:
    return sha256_digest("\n".join(parts).encode("utf-8"))


def _no_float(text: str) -> object:
    raise ValueError(f"float {text} in a cached entry")


def encode_entry(key: CacheKey, outcome: Projected, facts: bytes) -> tuple[str, str, str]:
    """(payload, facts, entry digest): the payload embeds the key and the text's digest."""
    payload = _json(
        {
            "schema": SCHEMA_VERSION,
            "key": key.as_list(),
            "text": outcome.text,
            "text_digest": text_digest(outcome.text),
            "line_map": list(outcome.line_map),
            "omissions": [omission.model_dump(mode="json") for omission in outcome.omissions],
        }
    )
    facts_text = facts.decode("utf-8")
    return payload, facts_text, _entry_digest(payload, facts_text)


def decode_entry(key: CacheKey, payload: str, facts: str, entry_digest: str) -> tuple[Projected, bytes] | None:
    """The outcome and its canonical facts if every check passes, else None."""
    try:
        if _entry_digest(payload, facts) != entry_digest:
            return None
        data = json.loads(payload)
        if not isinstance(data, dict) or data.get("schema") != SCHEMA_VERSION or data.get("key") != key.as_list():
            return None
        text, line_map, omissions = data["text"], data["line_map"], data["omissions"]
        if not isinstance(text, str) or data["text_digest"] != text_digest(text):
            return None
        if not isinstance(line_map, list) or not all(type(n) is int and n >= 1 for n in line_map):
            return None
        parsed_facts = json.loads(facts, parse_float=_no_float, parse_constant=_no_float)
        parsed = tuple(Omission.model_validate(item) for item in omissions)
    except (ValueError, TypeError, KeyError, ValidationError, UnicodeError):
        return None
    outcome = Projected(text=text, facts=parsed_facts, line_map=tuple(line_map), omissions=parsed)
    return outcome, facts.encode("utf-8")


def _media_detector(declared: str = "") -> str:
    """Identity of the media-type detector: the core's tables, the declared ones and libmagic's version."""
    import magic

    from lychd_core import mediatypes
    from lychd_core.projection import media

    tables = {
        "aliases": dict(mediatypes.ALIASES),
        "file_names": dict(media.FILE_NAMES),
        "extensions": dict(media.EXTENSIONS),
        "shebangs": [[pattern.pattern.decode("latin-1"), kind] for pattern, kind in media.SHEBANGS],
        "textual": sorted(mediatypes.TEXT_APPLICATION_TYPES),
        "sniff": media.SNIFF_BYTES,
        "libmagic": str(getattr(magic, "version", lambda: "?")()),
        "declared": declared,
    }
    return sha256_digest(_json(tables).encode("utf-8"))


class ProjectionCache:
    """One SQLite file; safe to share between processes; opened lazily, per process."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._pid = 0
        self._detector_ids: dict[str, str] = {}
        self.moved_aside: list[Path] = []

    def __repr__(self) -> str:
        return f"ProjectionCache({str(self.path)!r})"

    # --- opening -----------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._connection is not None and self._pid == os.getpid():
            return self._connection
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ProjectionCacheError(
                f"projection cache directory {self.path.parent} cannot be created: {exc}"
            ) from None
        try:
            connection = self._open()
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise ProjectionCacheError(f"projection cache {self.path} is locked: {exc}") from None
            self._move_aside()
            try:
                connection = self._open()
            except sqlite3.Error as again:
                raise ProjectionCacheError(f"projection cache {self.path} cannot be recreated: {again}") from None
        self._connection, self._pid = connection, os.getpid()
        return connection

    def _open(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        try:
            connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if self._identity(connection) != (APPLICATION_ID, SCHEMA_VERSION):
                # Check again under the write lock: another process may be creating it right now.
                connection.execute("BEGIN IMMEDIATE")
                try:
                    self._claim(connection)
                    connection.execute("COMMIT")
                except BaseException:
                    connection.execute("ROLLBACK")
                    raise
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")
            return connection
        except BaseException:
            connection.close()
            raise

    @staticmethod
    def _identity(connection: sqlite3.Connection) -> tuple[int, int]:
        application_id = connection.execute("PRAGMA application_id").fetchone()[0]
        return int(application_id), int(connection.execute("PRAGMA user_version").fetchone()[0])

    def _claim(self, connection: sqlite3.Connection) -> None:
        """Create the schema in a new (or older-schema) cache; refuse anything foreign or newer."""
        application_id, version = self._identity(connection)
        tables = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if application_id != APPLICATION_ID and (tables or application_id):
            raise ProjectionCacheError(
                f"{self.path} is an SQLite database of another application (application_id "
                f"{application_id:#x}); point stores.projection_cache at its own file"
            )
        if version > SCHEMA_VERSION:
            raise ProjectionCacheError(
                f"{self.path} was written by a newer lychd (cache schema {version}, this one reads "
                f"{SCHEMA_VERSION}); use a separate cache file"
            )
        if version != SCHEMA_VERSION or application_id != APPLICATION_ID:
            connection.execute("DROP TABLE IF EXISTS projections")
            connection.execute("DROP TABLE IF EXISTS media_decisions")
            for statement in _CREATE:
                connection.execute(statement)
            connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _move_aside(self) -> None:
        """Keep a corrupt file for inspection and start a new one (with its WAL and index)."""
        stamp = f"corrupt-{os.getpid()}-{time.monotonic_ns()}"
        for suffix in ("", "-wal", "-shm"):
            current = self.path.with_name(self.path.name + suffix)
            if current.exists():
                aside = self.path.with_name(f"{self.path.name}.{stamp}{suffix}")
                try:
                    current.replace(aside)
                except OSError as exc:
                    raise ProjectionCacheError(f"corrupt projection cache {current} cannot be moved: {exc}") from None
                if not suffix:
                    self.moved_aside.append(aside)

    def close(self) -> None:
        with self._lock:
            self._discard_connection()

    # --- entries -----------------------------------------------------------------

    def get(self, key: CacheKey) -> tuple[Projected, bytes] | None:
        """The cached outcome and canonical facts for ``key``, or None (missing, corrupt or foreign)."""
        row = self._fetch(
            "SELECT payload, facts, entry_digest FROM projections WHERE source_digest = ? AND profile = ? "
            "AND revision = ? AND options_digest = ? AND parser_version = ?",
            key.as_list(),
        )
        if row is None or not all(isinstance(value, str) for value in row):
            return None
        return decode_entry(key, row[0], row[1], row[2])

    def _fetch(self, sql: str, parameters: list[object]) -> tuple[Any, ...] | None:
        with self._lock:
            connection = self._connect()
            try:
                row: tuple[Any, ...] | None = connection.execute(sql, parameters).fetchone()
            except sqlite3.DatabaseError:
                return None  # unreadable is a miss; the write that follows repairs or reports
        return row

    def media(self, source_digest: str, file_name: str, pinned: str | None, declared: str = "") -> MediaDecision | None:
        """A remembered decision for these bytes, name, pin and declared tables (verified like entries)."""
        parameters: list[object] = [source_digest, file_name, pinned or "", self._detector(declared)]
        row = self._fetch(
            "SELECT decision, entry_digest FROM media_decisions WHERE source_digest = ? AND file_name = ? "
            "AND pinned = ? AND detector = ?",
            parameters,
        )
        if row is None or not isinstance(row[0], str) or _entry_digest(*map(str, parameters), row[0]) != row[1]:
            return None
        try:
            data = json.loads(row[0])
            return MediaDecision(data["media_type"], data["source"], data["charset"], data["magic_type"])
        except (ValueError, TypeError, KeyError):
            return None

    def remember_media(self, decisions: list[tuple[str, str, str | None, MediaDecision]], declared: str = "") -> None:
        """Store (source digest, file name, pin, decision) rows in one transaction."""
        rows: list[tuple[Any, ...]] = []
        for source_digest, file_name, pinned, decision in decisions:
            parameters = [source_digest, file_name, pinned or "", self._detector(declared)]
            fields = {
                "media_type": decision.media_type,
                "source": decision.source,
                "charset": decision.charset,
                "magic_type": decision.magic_type,
            }
            text = _json(fields)
            rows.append((*parameters, text, _entry_digest(*parameters, text)))
        self._write_rows("INSERT OR REPLACE INTO media_decisions VALUES (?, ?, ?, ?, ?, ?)", rows)

    def _detector(self, declared: str = "") -> str:
        if declared not in self._detector_ids:
            self._detector_ids[declared] = _media_detector(declared)
        return self._detector_ids[declared]

    def put_many(self, entries: list[tuple[CacheKey, Projected, bytes]]) -> None:
        """Store outcomes (with their canonical facts) in one transaction, replacing bad entries."""
        rows = [(*key.as_list(), *encode_entry(key, outcome, facts)) for key, outcome, facts in entries]
        self._write_rows("INSERT OR REPLACE INTO projections VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def _write_rows(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if not rows:
            return
        with self._lock:
            try:
                self._write(self._connect(), sql, rows)
            except sqlite3.OperationalError as exc:  # locked past the busy timeout, disk full, read-only
                raise ProjectionCacheError(f"projection cache {self.path} cannot be written: {exc}") from None
            except sqlite3.DatabaseError:  # the file is damaged: start a fresh one, once
                self._discard_connection()
                self._move_aside()
                try:
                    self._write(self._connect(), sql, rows)
                except sqlite3.Error as exc:
                    raise ProjectionCacheError(f"projection cache {self.path} cannot be written: {exc}") from None

    @staticmethod
    def _write(connection: sqlite3.Connection, sql: str, rows: list[tuple[Any, ...]]) -> None:
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.executemany(sql, rows)
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise

    def _discard_connection(self) -> None:
        if self._connection is not None and self._pid == os.getpid():
            self._connection.close()
        self._connection = None

    def put(self, key: CacheKey, outcome: Projected, facts: bytes) -> None:
        self.put_many([(key, outcome, facts)])

    def count(self) -> int:
        with self._lock:
            row = self._connect().execute("SELECT count(*) FROM projections").fetchone()
        return int(row[0])
