"""Lease-issued tokens, the encrypted map's plaintext layout, and marked output paths.

A token is ``<<ps:NAMESPACE:CATEGORY:SERIAL:TAG>>``; the tag is an HMAC under a key
derived from the lease's DEK, so only the vault can tell an issued token from an
invented or altered one. The map plaintext is a compact binary layout parsed straight
from the locked buffer, so only the values actually restored become Python strings.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, model_validator

from lychd_core.digests import json_digest
from lychd_core.errors import MapTooLarge, VaultIntegrityError
from lychd_core.privacy.pseudonyms import TOKEN_RE as TOKEN_RE
from lychd_core.privacy.pseudonyms import ParsedToken as ParsedToken
from lychd_core.privacy.pseudonyms import parse_token as parse_token
from lychd_core.privacy.vault.aead import Buffer, derive_key
from lychd_core.privacy.vault.lease import Category, Name, SensitiveValue

MAP_MAGIC = b"LPM1"
MAX_MAP_BYTES = 1 << 20  # bounded by RLIMIT_MEMLOCK (often 8 MiB)
_ENTRY = struct.Struct(">IBB")
_LENGTH = struct.Struct(">I")


def token_key(dek: Buffer) -> bytes:
    return derive_key(dek, b"", b"lychd-vault/token@1")


def make_token(key: bytes, namespace: str, category: str, serial: int) -> str:
    tag = hmac.new(key, f"{namespace}:{category}:{serial}".encode("ascii"), hashlib.sha256).hexdigest()[:12]
    return f"<<ps:{namespace}:{category}:{serial}:{tag}>>"


def map_size(values: Sequence[SensitiveValue]) -> int:
    size = len(MAP_MAGIC) + _LENGTH.size
    for item in values:
        size += _ENTRY.size + len(item.category) + _LENGTH.size + len(item.value.encode("utf-8"))
    if size > MAX_MAP_BYTES:
        raise MapTooLarge(f"the pseudonym map would be {size} bytes; the locked-buffer bound is {MAX_MAP_BYTES}")
    return size


def pack_map(out: memoryview, values: Sequence[SensitiveValue], disclosed: Sequence[bool]) -> None:
    """Write the map (serial = position) into ``out``, which is exactly :func:`map_size` bytes."""
    out[:4] = MAP_MAGIC
    _LENGTH.pack_into(out, 4, len(values))
    offset = 8
    for serial, (item, shown) in enumerate(zip(values, disclosed, strict=True)):
        category = item.category.encode("ascii")
        _ENTRY.pack_into(out, offset, serial, int(shown), len(category))
        offset += _ENTRY.size
        out[offset : offset + len(category)] = category
        offset += len(category)
        encoded = item.value.encode("utf-8")
        _LENGTH.pack_into(out, offset, len(encoded))
        offset += _LENGTH.size
        out[offset : offset + len(encoded)] = encoded
        offset += len(encoded)


@dataclass(frozen=True, slots=True)
class MapEntry:
    """Where one value sits in the locked buffer; the value is decoded only when restored."""

    category: str
    disclosed: bool
    start: int
    end: int


def index_map(plain: memoryview) -> dict[int, MapEntry]:
    """Serial → entry, read from the decrypted buffer without copying values out."""
    try:
        if bytes(plain[:4]) != MAP_MAGIC:
            raise VaultIntegrityError("decrypted map has the wrong layout marker")
        (count,) = _LENGTH.unpack_from(plain, 4)
        offset, entries = 8, {}
        for _ in range(count):
            serial, shown, cat_len = _ENTRY.unpack_from(plain, offset)
            offset += _ENTRY.size
            category = bytes(plain[offset : offset + cat_len]).decode("ascii")
            offset += cat_len
            (value_len,) = _LENGTH.unpack_from(plain, offset)
            offset += _LENGTH.size
            if offset + value_len > len(plain):
                raise VaultIntegrityError("decrypted map entry runs past the end of the map")
            entries[serial] = MapEntry(category, bool(shown), offset, offset + value_len)
            offset += value_len
    except (struct.error, UnicodeDecodeError):
        raise VaultIntegrityError("decrypted map is malformed") from None
    return entries


class MarkedPath(BaseModel):
    """An output-schema path where tokens of one category may be restored, for one purpose."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str = Field(pattern=r"^\$(\.[A-Za-z_][A-Za-z0-9_-]*|\[\*\])*$", description="e.g. $.findings[*].owner")
    category: Category
    max_tokens: int = Field(ge=1, strict=True, description="Most tokens restored at this path in one return.")
    purpose: Name


class RehydrationSchema(BaseModel):
    """The marked paths of one output schema; a lease binds its digest."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Name
    revision: int = Field(ge=1, strict=True)
    marks: tuple[MarkedPath, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _one_mark_per_path(self) -> RehydrationSchema:
        paths = [mark.path for mark in self.marks]
        if len(set(paths)) != len(paths):
            raise ValueError("each path may be marked once")
        return self

    @property
    def digest(self) -> str:
        return json_digest(self.model_dump(mode="json"))

    def mark_at(self, path: str) -> MarkedPath | None:
        return next((mark for mark in self.marks if mark.path == path), None)
