"""Cache entries as text, authenticated with a keyed MAC: the same on every cache backend.

Key: (source digest, profile, revision, options digest, parser version); the options
digest covers the profile's options and everything else that shapes the outcome. Every
read re-checks the entry: its MAC (keyed, so a database edited without the key fails),
its JSON, its schema and that its embedded key equals the lookup key. Any mismatch is a
miss (recomputed and overwritten), never a result.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson
from pydantic import ValidationError

from lychd_core.blocks import Omission
from lychd_core.digests import orjson_canonical, sha256_digest, text_digest
from lychd_core.families import Projected
from lychd_core.projection.media import MediaDecision
from lychd_core.state.keys import encoded, encoded_mac_matches, mac, mac_matches, mac_of_encoded

ENTRY_SCHEMA = 2
"""Version of the entry text; 2 = authenticated with a keyed MAC."""


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


_CORE = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False, check_circular=False
)
"""For values built here only: they hold no cycles, so the encoder need not look for them."""


def canonical_json(value: object) -> str:
    """Canonical JSON text of values built here (strings, integers, lists, dicts).

    What orjson refuses (a lone surrogate in a profile's text) takes ``_CORE``.
    """
    data = orjson_canonical(value)
    return _CORE.encode(value) if data is None else data.decode("utf-8")


def _no_float(text: str) -> object:
    raise ValueError(f"float {text} in a cached entry")


def _key_text(key: CacheKey) -> str:
    return canonical_json(key.as_list())


def encode_entry(secret: bytes, key: CacheKey, outcome: Projected, facts: bytes) -> tuple[str, str, str]:
    """(payload, facts, MAC): the payload embeds the key and the text's digest; the MAC binds all three.

    The MAC is taken over the bytes already at hand (orjson's payload, the canonical facts):
    the same bytes :func:`~lychd_core.state.keys.mac` would encode from the two texts.
    """
    value = {
        "schema": ENTRY_SCHEMA,
        "key": key.as_list(),
        "text": outcome.text,
        "text_digest": text_digest(outcome.text),
        "line_map": list(outcome.line_map),
        "omissions": [omission.model_dump(mode="json") for omission in outcome.omissions],
    }
    payload_bytes = orjson_canonical(value)
    if payload_bytes is None:  # a lone surrogate in the text: see canonical_json
        payload = _CORE.encode(value)
        payload_bytes = encoded(payload)
    else:
        payload = payload_bytes.decode("utf-8")
    return payload, facts.decode("utf-8"), mac_of_encoded(secret, encoded(_key_text(key)), payload_bytes, facts)


def decode_entry(
    secret: bytes, key: CacheKey, payload: object, facts: object, tag: object, *, parse_facts: bool = True
) -> tuple[Projected, bytes] | None:
    """The outcome and its canonical facts if the MAC and the entry's shape check out, else None.

    The keyed MAC is what makes an entry trustworthy: only this cache, holding the key,
    could have written it, from a checked outcome and canonical facts. So the text and
    the facts are not re-hashed or re-parsed here (the facts stay bytes until asked for);
    the schema, the embedded key and the shape of the small fields are still checked.
    ``parse_facts=False`` (the batched read) leaves ``Projected.facts`` None: the facts
    travel as the canonical bytes beside the outcome, parsed only when someone asks.
    """
    if not isinstance(payload, str) or not isinstance(facts, str):
        return None
    payload_bytes, facts_bytes = encoded(payload), encoded(facts)  # the MAC's input; reused below
    if not encoded_mac_matches(secret, tag, encoded(_key_text(key)), payload_bytes, facts_bytes):
        return None
    try:
        data = orjson.loads(payload_bytes)  # orjson.JSONDecodeError is a ValueError: a miss
        if not isinstance(data, dict) or data.get("schema") != ENTRY_SCHEMA or data.get("key") != key.as_list():
            return None
        text, line_map, omissions = data["text"], data["line_map"], data["omissions"]
        if not isinstance(text, str) or not isinstance(line_map, list) or not isinstance(omissions, list):
            return None
        parsed = tuple(Omission.model_validate(item) for item in omissions) if omissions else ()
        parsed_facts = json.loads(facts, parse_float=_no_float, parse_constant=_no_float) if parse_facts else None
        outcome = Projected(text=text, facts=parsed_facts, line_map=tuple(line_map), omissions=parsed)
    except (ValueError, TypeError, KeyError, ValidationError):
        return None
    return outcome, facts_bytes  # verified, so the UTF-8 this cache wrote (no surrogate to pass through)


def decode_entries(
    secret: bytes, keys: Sequence[CacheKey], rows: Iterable[Sequence[Any]]
) -> dict[CacheKey, tuple[Projected, bytes]]:
    """Verified entries among ``rows`` (the key's five columns, payload, facts, MAC) for ``keys``.

    Their ``Projected.facts`` is None: the facts are the canonical bytes beside each outcome.
    """
    wanted = {(k.source_digest, k.profile, k.revision, k.options_digest, k.parser_version): k for k in keys}
    found: dict[CacheKey, tuple[Projected, bytes]] = {}
    for row in rows:
        key = wanted.get(tuple(row[:5]))  # a plain tuple: hashed in C, no key object per row
        if key is not None:
            entry = decode_entry(secret, key, row[5], row[6], row[7], parse_facts=False)
            if entry is not None:
                found[key] = entry
    return found


MediaQuery = tuple[str, str, "str | None"]


def decode_media(
    secret: bytes, detector: str, queries: Sequence[MediaQuery], rows: Iterable[Sequence[Any]]
) -> dict[MediaQuery, MediaDecision]:
    """Verified decisions among ``rows`` (digest, file name, pin, decision, MAC) for ``queries``."""
    wanted = {(digest, name, pinned or ""): (digest, name, pinned) for digest, name, pinned in queries}
    found: dict[MediaQuery, MediaDecision] = {}
    for digest, name, pinned, text, tag in rows:
        query = wanted.get((digest, name, pinned))
        if query is not None:
            decision = media_decision(secret, [digest, name, pinned, detector], text, tag)
            if decision is not None:
                found[query] = decision
    return found


def media_row(secret: bytes, parameters: list[str], decision: MediaDecision) -> tuple[str, ...]:
    """(source digest, file name, pin, detector, decision JSON, MAC) for one media decision."""
    fields = {
        "media_type": decision.media_type,
        "source": decision.source,
        "charset": decision.charset,
        "magic_type": decision.magic_type,
    }
    text = canonical_json(fields)
    return (*parameters, text, mac(secret, *parameters, text))


def media_decision(secret: bytes, parameters: list[str], text: object, tag: object) -> MediaDecision | None:
    """The remembered decision when its MAC verifies, else None."""
    if not isinstance(text, str) or not mac_matches(secret, tag, *parameters, text):
        return None
    try:
        data = json.loads(text)
        return MediaDecision(data["media_type"], data["source"], data["charset"], data["magic_type"])
    except (ValueError, TypeError, KeyError):
        return None


@lru_cache(maxsize=64)
def media_detector(declared: str = "") -> str:
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
        "plain_text": media.NOT_PLAIN_TEXT.pattern.decode("latin-1"),
        "libmagic": str(getattr(magic, "version", lambda: "?")()),
        "declared": declared,
        "decision_revision": media.DECISION_REVISION,
    }
    return sha256_digest(canonical_json(tables).encode("utf-8"))
