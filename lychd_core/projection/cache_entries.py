"""Cache entries as text, authenticated with a keyed MAC: the same on every cache backend.

Key: (source digest, profile, revision, options digest, parser version); the options
digest covers the profile's options and everything else that shapes the outcome. Every
read re-checks the entry: its MAC (keyed, so a database edited without the key fails),
its JSON, its schema, that its embedded key equals the lookup key and that its text
matches its text digest. Any mismatch is a miss (recomputed and overwritten), never a result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pydantic import ValidationError

from lychd_core.blocks import Omission
from lychd_core.digests import sha256_digest, text_digest
from lychd_core.families import Projected
from lychd_core.projection.media import MediaDecision
from lychd_core.stores.keys import mac, mac_matches

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


def canonical_json(value: object) -> str:
    """Canonical JSON text of values built here (strings, integers, lists, dicts)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _no_float(text: str) -> object:
    raise ValueError(f"float {text} in a cached entry")


def _key_text(key: CacheKey) -> str:
    return canonical_json(key.as_list())


def encode_entry(secret: bytes, key: CacheKey, outcome: Projected, facts: bytes) -> tuple[str, str, str]:
    """(payload, facts, MAC): the payload embeds the key and the text's digest; the MAC binds all three."""
    payload = canonical_json(
        {
            "schema": ENTRY_SCHEMA,
            "key": key.as_list(),
            "text": outcome.text,
            "text_digest": text_digest(outcome.text),
            "line_map": list(outcome.line_map),
            "omissions": [omission.model_dump(mode="json") for omission in outcome.omissions],
        }
    )
    facts_text = facts.decode("utf-8")
    return payload, facts_text, mac(secret, _key_text(key), payload, facts_text)


def decode_entry(
    secret: bytes, key: CacheKey, payload: object, facts: object, tag: object
) -> tuple[Projected, bytes] | None:
    """The outcome and its canonical facts if every check passes, else None."""
    if not isinstance(payload, str) or not isinstance(facts, str):
        return None
    if not mac_matches(secret, tag, _key_text(key), payload, facts):
        return None
    try:
        data = json.loads(payload)
        if not isinstance(data, dict) or data.get("schema") != ENTRY_SCHEMA or data.get("key") != key.as_list():
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
    }
    return sha256_digest(canonical_json(tables).encode("utf-8"))
