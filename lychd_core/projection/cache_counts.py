"""Token counts kept in the projection cache: one row per (text digest, counter), under the entries' MAC key.

A count is a pure function of the text and the counter (its ``name@revision`` pin, its
tokenizer and its bound options), so it is keyed by the text's digest (the digest every
entry embeds and its MAC binds) and the counter's identity: one row serves every entry and
run record with that text, and a different counter, revision or option set never finds it.
Each row carries a keyed MAC over its key and count, so a count edited in the database
fails the check and reads as a miss (counted again and overwritten), like an edited entry.

A **count record** holds every count of one list of texts (the Codex blocks of a run, in
their order) as a JSON list of counts under one MAC, keyed by the counter's identity and
the digest of the ordered text digests: a warm process reads it with one query and checks
one MAC instead of one per row (``tokens.persisted``). Position ``i`` is the count of the
``i``-th digest, which the key (bound by the MAC) fixes: a list of 800 counts is 4 KB, where
``{digest: count}`` JSON was 60 KB to hash and parse. A record that fails its MAC, or of
another length, is a miss: the rows are read, and counted where missing.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from lychd_core.digests import sha256_digest
from lychd_core.state.keys import MAC_PREFIX, encoded, encoded_mac_matches, mac, mac_of_encoded

COUNT_ROW = "token-count@1"
"""The MAC's first part: a count row's MAC can never pass for another row kind's."""

TOKEN_COUNTS_TABLE = """
CREATE TABLE IF NOT EXISTS token_counts (
    text_digest TEXT NOT NULL,
    counter TEXT NOT NULL,
    count INTEGER NOT NULL,
    entry_digest TEXT NOT NULL,
    written INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (text_digest, counter)
) WITHOUT ROWID
"""
"""The SQLite table; also created on first write, as a cache made before counts were kept has none."""


def count_row(secret: bytes, counter: str, digest: str, count: int) -> tuple[str, str, int, str]:
    """(text digest, counter identity, count, MAC) for one count."""
    return digest, counter, count, mac(secret, COUNT_ROW, counter, digest, str(count))


def decode_counts(secret: bytes, counter: str, rows: Iterable[Sequence[Any]]) -> dict[str, int]:
    """Verified counts among ``rows`` (text digest, count, MAC) for ``counter``; a bad row is left out.

    The same HMAC as :func:`~lychd_core.state.keys.mac`, with the parts every row shares (the
    key, the row kind, the counter) absorbed once: a one-shot HMAC per row sets its key up
    again each time, most of a warm run's cost of reading 800 counts (about 13 µs a row).
    """
    shared = hmac.new(secret, f"{COUNT_ROW}\n{counter}\n".encode("utf-8", "surrogatepass"), "sha256")
    found: dict[str, int] = {}
    for digest, count, tag in rows:
        if type(count) is not int or count < 0 or not isinstance(digest, str) or not isinstance(tag, str):
            continue
        check = shared.copy()
        check.update(f"{digest}\n{count}".encode("utf-8", "surrogatepass"))
        if tag.isascii() and hmac.compare_digest(MAC_PREFIX + check.hexdigest(), tag):
            found[digest] = count
    return found


# --- count records: every count of one set of texts, under one MAC ----------------------------------------------

COUNT_RECORD = "token-count-record@1"
"""The MAC's first part for a count record (never passes for a row's MAC, nor a row's for it)."""

KEEP_COUNT_RECORDS = 16
"""Count records kept (the newest): one per recent list of Codex texts and counter; older ones go on write."""

COUNT_RECORDS_TABLE = """
CREATE TABLE IF NOT EXISTS count_records (
    counter TEXT NOT NULL,
    set_digest TEXT NOT NULL,
    written INTEGER NOT NULL,
    entry_digest TEXT NOT NULL,
    counts BLOB NOT NULL,
    PRIMARY KEY (counter, set_digest)
)
"""
"""The SQLite table (cache schema 5); the MAC sits before the counts, which SQLite reads in column order."""


def set_digest(digests: Iterable[str]) -> str:
    """The digest naming one ordered list of text digests (the key of its count record)."""
    return sha256_digest("\n".join(digests).encode("utf-8", "surrogatepass"))


def encode_record(secret: bytes, counter: str, key: str, counts: Sequence[int]) -> tuple[bytes, str]:
    """(JSON list of ``counts``, in the order of the digests that make ``key``; MAC over kind, counter, key, list)."""
    payload = orjson.dumps(list(counts))
    return payload, mac_of_encoded(secret, encoded(COUNT_RECORD), encoded(counter), encoded(key), payload)


def decode_record(secret: bytes, counter: str, key: str, payload: object, tag: object) -> list[int] | None:
    """The counts of a record whose MAC verifies (over ``key`` too); None for anything else.

    Only this cache's key could have made the MAC, over the counts of the digests that make
    ``key`` in that order; the caller serves a record only for exactly the digests it asks about.
    """
    if isinstance(payload, memoryview):
        payload = bytes(payload)
    if not isinstance(payload, bytes):
        return None
    if not encoded_mac_matches(secret, tag, encoded(COUNT_RECORD), encoded(counter), encoded(key), payload):
        return None
    try:
        counts = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(counts, list) or any(type(v) is not int or v < 0 for v in counts):
        return None
    return counts
