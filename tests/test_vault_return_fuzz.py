"""Fuzzing quarantined return documents: the vault reads, digests and walks only plain JSON.

A return comes from a remote model. As bytes (`lychd vault rehydrate --return`) or as a
value (`rehydrate(...)`), anything deep, non-JSON or holding a lone surrogate is a typed
`VaultInputError`, never a `RecursionError` or `UnicodeEncodeError` (issue 27, finding 2).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.cli.vault_cmd import read_return
from lychd_core.errors import VaultError, VaultInputError
from lychd_core.inputs import MAX_DEPTH
from lychd_core.privacy.vault import Vault, rehydrate, return_digest
from lychd_core.privacy.vault.returns import check_return
from tests.support.vaults import SCHEMA, claim_for, model_return, new_lease, open_vault, tokens_of

LEAVES = (
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | st.sampled_from(["\ud800", "a\udfff", "\U0001f600", "<<ps:aaaaaaaaaaaaaaaa:owner:0:000000000000>>"])
    | st.sampled_from([b"bytes", (1, 2), {1, 2}, object()])
)  # fmt: skip
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4) | st.integers(), inner, max_size=3),
    max_leaves=10,
)


def deep(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def plain_json(value: Any) -> bool:
    """The oracle: what a JSON document is, by a recursive walk (the inputs here are shallow)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain_json(k) and plain_json(v) for k, v in value.items())
    if isinstance(value, list):
        return all(plain_json(item) for item in value)
    if isinstance(value, str):
        return not any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    return value is None or isinstance(value, (bool, int))


@settings(max_examples=200, deadline=None)
@given(VALUES)
def test_a_return_value_is_digested_exactly_when_it_is_plain_json(value: Any) -> None:
    try:
        digest = return_digest(value)
    except VaultInputError:
        assert not plain_json(value)
        return
    assert plain_json(value) and digest.startswith("sha256:")


def test_depth_is_checked_without_recursion() -> None:
    check_return(deep(MAX_DEPTH - 1))
    for depth in (MAX_DEPTH + 1, 100_000):
        with pytest.raises(VaultInputError, match="levels"):
            return_digest(deep(depth))


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=40) | st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_return_bytes_parse_to_plain_json_or_refuse(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    path = tmp_path_factory.mktemp("return") / "return.json"
    path.write_bytes(data)
    try:
        value = read_return(str(path))
    except VaultInputError:
        return
    assert plain_json(value)
    return_digest(value)


@pytest.fixture(scope="module")
def leased(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Vault]:
    with open_vault(Path(tmp_path_factory.mktemp("vault-fuzz"))) as vault:
        yield vault


@settings(max_examples=25, deadline=None)
@given(VALUES)
def test_rehydrate_refuses_a_hostile_document_with_a_typed_error(leased: Vault, value: Any) -> None:
    grant = new_lease(leased)
    honest = model_return(tokens_of(grant)[0], tokens_of(grant)[1])
    claim = claim_for(honest)
    leased.claim(grant.lease_id, claim)
    try:
        rehydrate(leased, grant.lease_id, claim, value, SCHEMA)
    except VaultError:
        return
    assert plain_json(value)
