"""``CallProjection``: the complete typed text of one model call, as a cut sees it.

A cut accepts the whole call or nothing: blocks, history, continuation, query, tools
and artifacts, each item labelled. Its digest is over canonical JSON, so the same
call always has the same digest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from lychd_core.digests import DIGEST_PREFIX, canonical_json, json_digest, orjson_canonical
from lychd_core.labels import PrivatizationLabel, join_labels, label_from_json

_DIGEST_CHARS = 1 << 16
"""Characters of a text encoded at once while its projection's digest is taken."""
_TEXT_SLOT = b'"text":""}'
"""An item's empty text at its end (keys sorted: key, label, section, text); a quote inside a
string is escaped, so these bytes stand only where an item ends."""

Section = Literal["blocks", "history", "continuation", "query", "tools", "artifacts"]
PROJECTION_SCHEMA = "CallProjection@1"
SECTIONS: tuple[Section, ...] = ("blocks", "history", "continuation", "query", "tools", "artifacts")


@dataclass(frozen=True, slots=True)
class ProjectionItem:
    """One labelled text of a model call."""

    section: Section
    key: str
    text: str = field(repr=False)
    label: PrivatizationLabel = field(repr=False)

    def __repr__(self) -> str:
        # never the text or the label (a source text holds owner values; a label may name files)
        return f"ProjectionItem({self.section!r}, {len(self.key)}-character key, {len(self.text)} characters)"

    def to_json(self) -> dict[str, Any]:
        return {"section": self.section, "key": self.key, "text": self.text, "label": self.label.to_json()}


@dataclass(frozen=True)
class CallProjection:
    """Every item one model call would carry, in section order."""

    items: tuple[ProjectionItem, ...]

    def __post_init__(self) -> None:
        order = {name: index for index, name in enumerate(SECTIONS)}
        for item in self.items:
            if item.section not in order:
                raise ValueError(f"unknown projection section {item.section!r}; known: {', '.join(SECTIONS)}")
        keys = [(item.section, item.key) for item in self.items]
        if len(set(keys)) != len(keys):
            raise ValueError("projection items must have distinct (section, key) pairs")
        if [order[i.section] for i in self.items] != sorted(order[i.section] for i in self.items):
            raise ValueError(f"projection items must follow section order {', '.join(SECTIONS)}")

    @classmethod
    def of_texts(cls, section: Section, texts: Sequence[str], label: PrivatizationLabel) -> CallProjection:
        return cls(tuple(ProjectionItem(section, str(i), text, label) for i, text in enumerate(texts)))

    def to_json(self) -> dict[str, Any]:
        return {"schema": PROJECTION_SCHEMA, "items": [item.to_json() for item in self.items]}

    @classmethod
    def from_json(cls, data: Any) -> CallProjection:
        """The inverse of :meth:`to_json`, accepting only its exact canonical form; ``ValueError`` otherwise.

        Canonical only: a stored candidate that parses but is not byte for byte what
        ``to_json`` writes (an unsorted set, a class in lower case, an extra key) is refused.
        """
        if not isinstance(data, dict) or data.keys() != {"schema", "items"} or data["schema"] != PROJECTION_SCHEMA:
            raise ValueError(f"expected an object with only 'schema' = {PROJECTION_SCHEMA!r} and 'items'")
        if not isinstance(data["items"], list):
            raise ValueError("'items' must be a list")
        items = []
        for index, item in enumerate(data["items"]):
            fields = item.keys() if isinstance(item, dict) else set()
            if fields != {"section", "key", "text", "label"} or not all(
                isinstance(item[name], str) for name in ("section", "key", "text")
            ):
                raise ValueError(f"items[{index}] must be an object of section, key and text (strings) and a label")
            items.append(ProjectionItem(item["section"], item["key"], item["text"], label_from_json(item["label"])))
        projection = cls(tuple(items))
        if projection.to_json() != data:
            raise ValueError("not in canonical form (as CallProjection.to_json writes it)")
        return projection

    @cached_property
    def digest(self) -> str:
        """Digest of the canonical JSON; computed once (the projection is immutable)."""
        return _streamed_digest(self.items) or json_digest(self.to_json())

    @property
    def label(self) -> PrivatizationLabel:
        return join_labels(item.label for item in self.items)

    def manifest(self) -> dict[str, Any]:
        """What the projection holds, without its text: sections, counts and the source digest."""
        counts: dict[str, int] = {}
        for item in self.items:
            counts[item.section] = counts.get(item.section, 0) + 1
        return {"schema": "ProjectionManifest@1", "source": self.digest, "sections": counts}

    @property
    def manifest_digest(self) -> str:
        return json_digest(self.manifest())

    def replaced(self, texts: Sequence[str]) -> CallProjection:
        """The same items (and labels: influence never falls) with new texts."""
        if len(texts) != len(self.items):
            raise ValueError(f"expected {len(self.items)} texts, got {len(texts)}")
        return CallProjection(
            tuple(ProjectionItem(i.section, i.key, t, i.label) for i, t in zip(self.items, texts, strict=True))
        )


def _streamed_digest(items: Sequence[ProjectionItem]) -> str | None:
    """:func:`json_digest` of a projection, its texts encoded and hashed a window at a time: the
    canonical bytes of a 10 MB text were allocated whole, faulted in and freed at every digest
    (11 ms against 7). JSON escapes each character alone, so the windows' encodings joined are the
    text's. None where orjson refuses a window (a lone surrogate): the caller encodes it whole."""
    skeleton = {"schema": PROJECTION_SCHEMA, "items": [{**item.to_json(), "text": ""} for item in items]}
    pieces = canonical_json(skeleton).split(_TEXT_SLOT)
    if len(pieces) != len(items) + 1:
        return None
    hasher = hashlib.sha256(pieces[0])
    for item, after in zip(items, pieces[1:], strict=True):
        hasher.update(b'"text":"')
        for start in range(0, len(item.text), _DIGEST_CHARS):
            encoded = orjson_canonical(item.text[start : start + _DIGEST_CHARS])
            if encoded is None:
                return None
            hasher.update(memoryview(encoded)[1:-1])  # without its quotes
        hasher.update(b'"}')
        hasher.update(after)
    return DIGEST_PREFIX + hasher.hexdigest()
