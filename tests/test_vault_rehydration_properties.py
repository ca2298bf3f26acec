"""Property: the port restores exactly the issued tokens at marked paths, or refuses for a reason that applies."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.errors import RehydrationRefused, RejectReason
from lychd_core.privacy.vault import LeaseState, Sink, Vault, rehydrate
from tests.support.vaults import EMAIL, OWNER, SCHEMA, claim_for, new_lease, open_vault, tokens_of

MARKED = {"$.owner": "owner", "$.findings[*].contact": "email"}
LIMITS = {"$.owner": 1, "$.findings[*].contact": 2}


@pytest.fixture(scope="module")
def leased(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Vault, list[str]]]:
    """One vault for every example, and the tokens of another lease (for cross-namespace leaves)."""
    with open_vault(Path(tmp_path_factory.mktemp("vault-props"))) as opened:
        yield opened, tokens_of(new_lease(opened))


LEAF = st.sampled_from(["own-owner", "own-email", "other-owner", "prose-owner", "plain"])
FINDING = st.fixed_dictionaries({"contact": LEAF, "id": st.sampled_from(["F1", "F2"])})
RETURN = st.fixed_dictionaries(
    {"owner": LEAF, "findings": st.lists(FINDING, max_size=3)},
    optional={"summary": LEAF, "audit": LEAF},
)


def _concrete(shape: Any, own: list[str], other: list[str]) -> Any:
    if isinstance(shape, dict):
        return {key: _concrete(value, own, other) for key, value in shape.items()}
    if isinstance(shape, list):
        return [_concrete(value, own, other) for value in shape]
    return {
        "own-owner": own[0],
        "own-email": own[1],
        "other-owner": other[0],
        "prose-owner": f"contact {own[0]} today",
        "plain": "no token here",
    }.get(shape, shape)


def _oracle(shape: Any, path: str = "$") -> Iterator[tuple[str, str]]:
    """(path, leaf kind) in the port's walk order."""
    if isinstance(shape, dict):
        for key, value in shape.items():
            yield from _oracle(value, f"{path}.{key}")
    elif isinstance(shape, list):
        for value in shape:
            yield from _oracle(value, f"{path}[*]")
    elif shape in {"own-owner", "own-email", "other-owner", "prose-owner", "plain"}:
        yield path, shape


def _violations(shape: dict[str, Any]) -> set[RejectReason]:
    found: set[RejectReason] = set()
    counts: Counter[str] = Counter()
    for path, kind in _oracle(shape):
        category = MARKED.get(path)
        if category is None:
            if kind in {"own-owner", "own-email"}:
                found.add(RejectReason.WRONG_PATH)
        elif kind == "other-owner":
            found.add(RejectReason.CROSS_NAMESPACE)
        elif kind in {"own-owner", "own-email"}:
            if kind != f"own-{category}":
                found.add(RejectReason.CROSS_CATEGORY)
            else:
                counts[path] += 1
                if counts[path] > LIMITS[path]:
                    found.add(RejectReason.OVER_CARDINALITY)
    return found


@settings(max_examples=40, deadline=None)
@given(shape=RETURN)
def test_restores_exactly_the_marked_issued_tokens_or_refuses_with_a_reason_that_applies(
    leased: tuple[Vault, list[str]], shape: dict[str, Any]
) -> None:
    vault, other = leased
    grant = new_lease(vault)
    own = tokens_of(grant)
    returned = _concrete(shape, own, other)
    claim = claim_for(returned)
    vault.claim(grant.lease_id, claim)
    violations = _violations(shape)
    try:
        value = rehydrate(vault, grant.lease_id, claim, returned, SCHEMA).value_for(Sink.LOCAL_VIEW)
    except RehydrationRefused as refused:
        assert refused.reason in violations, (refused.reason, violations)
        assert vault.get(grant.lease_id).state is LeaseState.REVOKED
        return
    assert violations == set()
    expected = _concrete(shape, own, other)  # prose keeps its token; only whole marked values are restored
    if shape["owner"] == "own-owner":
        expected["owner"] = OWNER
    for finding in expected["findings"]:
        if finding["contact"] == own[1]:
            finding["contact"] = EMAIL
    assert value == expected
