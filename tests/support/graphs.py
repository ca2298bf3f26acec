"""Small context graphs for the selection tests."""

from __future__ import annotations

from typing import Any

import pytest

from lychd_core.graph import ContextNode, TokenBudget
from lychd_core.graph.precedence import PrecedenceIndex
from lychd_core.roles import RoleProfile
from lychd_core.vocabulary import TRUST_CEILING, Authority, ContextClass, Provenance, Requirement, Trust

C, R = ContextClass, Requirement
EVERYTHING = RoleProfile("writer", frozenset(ContextClass), frozenset(Provenance), ())


def node(node_id: str, tokens: int = 10, *deps: str, **overrides: Any) -> ContextNode:
    fields: dict[str, Any] = {
        "id": node_id,
        "content": "x" * tokens,
        "provenance": Provenance.REPOSITORY,
        "authority": Authority.NON_AUTHORITATIVE,
        "context_class": C.SOURCE,
        "requirement": R.OPTIONAL,
        "token_estimate": tokens,
        "dependencies": tuple(sorted(deps)),
    }
    fields.update(overrides)
    fields.setdefault("trust", min(Trust.TRUSTED, TRUST_CEILING[fields["provenance"]]))
    return ContextNode.create(**fields)


def user(node_id: str, tokens: int = 10, **overrides: Any) -> ContextNode:
    return node(
        node_id,
        tokens,
        provenance=Provenance.USER,
        authority=Authority.USER_INSTRUCTION,
        context_class=C.INSTRUCTION,
        **overrides,
    )


def budget(usable: int) -> TokenBudget:
    return TokenBudget(window=usable + 100, reserved_output=100)


def history_chain(groups: int, tokens: int = 10) -> list[ContextNode]:
    """As the assembly builds it: each older group depends on the next newer one."""
    return [
        node(
            f"history:{i:06d}",
            tokens,
            *([f"history:{i + 1:06d}"] if i + 1 < groups else []),
            context_class=C.HISTORY,
            provenance=Provenance.AGENT,
            recency=i,
        )
        for i in range(groups)
    ]


def record_ordered_tiers(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Patch precedence ordering to record the size of every tier it orders."""
    sizes: list[int] = []
    original = PrecedenceIndex._by_recency

    def recording(self: PrecedenceIndex, tier: tuple[int, ...], ids: Any) -> Any:
        sizes.append(len(tier))
        return original(self, tier, ids)

    monkeypatch.setattr(PrecedenceIndex, "_by_recency", recording)
    return sizes
