"""``TransformationReceipt@1`` and the ordered, digest-bound chain of them.

A receipt is immutable, non-authorizing evidence of one transforming stage: digests,
revisions, typed operations with category counts, and a residual label digest. It
has no field that can hold a raw span, credential, name, filename, parent identity or
reversal data: text fields are short lowercase tokens and everything else is a digest
or an integer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from lychd_core.digests import check_digest, json_digest
from lychd_core.errors import CutReason, CutRefused, ReceiptError

RECEIPT_SCHEMA = "TransformationReceipt@1"
CATEGORY = re.compile(r"^[a-z][a-z0-9-]{0,39}$")
PIN = re.compile(r"^[a-z][a-z0-9._-]{0,63}@[1-9][0-9]{0,5}$")


class OperationCount(BaseModel):
    """How many spans of one category one operation touched."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    operation: Literal["redact", "pseudonymize", "generalize", "omit", "encode"]
    category: str
    count: int = Field(ge=1, strict=True)

    @field_validator("category")
    @classmethod
    def _category(cls, value: str) -> str:
        if not CATEGORY.match(value):
            raise ValueError("a category is a short lowercase token like 'owner' or 'description'")
        return value


class TransformationReceipt(BaseModel):
    """One stage of a cut: what went in, what came out, under which revisions."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_name: Literal["TransformationReceipt@1"] = Field(default="TransformationReceipt@1", alias="schema")
    stage: int = Field(ge=0, strict=True)
    plan_digest: str
    input_digest: str
    output_digest: str
    transformer: str
    policy_digest: str
    operations: tuple[OperationCount, ...]
    residual_label_digest: str
    expires_at: int = Field(ge=0, strict=True)
    parents: tuple[str, ...] = Field(description="Digests of every earlier receipt of the chain, in order.")
    terminal: bool

    @field_validator("plan_digest", "input_digest", "output_digest", "policy_digest", "residual_label_digest")
    @classmethod
    def _digest(cls, value: str) -> str:
        return check_digest(value)

    @field_validator("parents")
    @classmethod
    def _parents(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(check_digest(item) for item in value)

    @field_validator("transformer")
    @classmethod
    def _pin(cls, value: str) -> str:
        if not PIN.match(value):
            raise ValueError("the transformer is an exact 'name@revision' pin like 'closed-diagnostic@1'")
        return value

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)

    @cached_property
    def digest(self) -> str:
        return json_digest(self.to_json())

    @classmethod
    def from_json(cls, data: Any) -> TransformationReceipt:
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or '$'}: {e['msg']}" for e in exc.errors())
            raise ReceiptError(f"invalid {RECEIPT_SCHEMA}: {problems}") from None


def next_receipt(
    chain: Sequence[TransformationReceipt],
    *,
    plan_digest: str,
    input_digest: str,
    output_digest: str,
    transformer: str,
    policy_digest: str,
    operations: Sequence[OperationCount],
    residual_label_digest: str,
    expires_at: int,
    terminal: bool,
) -> TransformationReceipt:
    """The receipt that extends ``chain`` by one stage."""
    return TransformationReceipt(
        stage=len(chain),
        plan_digest=plan_digest,
        input_digest=input_digest,
        output_digest=output_digest,
        transformer=transformer,
        policy_digest=policy_digest,
        operations=tuple(operations),
        residual_label_digest=residual_label_digest,
        expires_at=expires_at,
        parents=tuple(receipt.digest for receipt in chain),
        terminal=terminal,
    )


def check_chain(
    receipts: Sequence[TransformationReceipt], *, source_digest: str, candidate_digest: str, plan_digest: str
) -> tuple[str, ...]:
    """Check an ordered chain from ``source_digest`` to ``candidate_digest`` under one plan.

    Returns the receipt digests in order; a reordered, dropped, duplicated, spliced or
    foreign receipt is a ``CutRefused`` with reason ``chain-broken`` naming the position.
    """

    def broken(index: int, what: str) -> CutRefused:
        return CutRefused(CutReason.CHAIN_BROKEN, f"receipt {index}: {what}")

    if not receipts:
        raise CutRefused(CutReason.CHAIN_BROKEN, "the chain is empty; every cut has at least one receipt")
    digests: list[str] = []
    expected_input = source_digest
    for index, receipt in enumerate(receipts):
        if receipt.stage != index:
            raise broken(index, f"stage {receipt.stage} out of order")
        if receipt.plan_digest != plan_digest:
            raise broken(index, "bound to another plan (a receipt from another cut)")
        if receipt.input_digest != expected_input:
            raise broken(index, "input digest is not the previous stage's output")
        if receipt.parents != tuple(digests):
            raise broken(index, "parents do not name every earlier receipt in order")
        if receipt.terminal != (index == len(receipts) - 1):
            raise broken(index, "only the last receipt is terminal")
        digests.append(receipt.digest)
        expected_input = receipt.output_digest
    if expected_input != candidate_digest:
        raise broken(len(receipts) - 1, "the terminal receipt does not bind the candidate")
    return tuple(digests)


def check_derived(receipts: Sequence[TransformationReceipt], expected: Sequence[TransformationReceipt]) -> None:
    """Every field of every receipt must be the one the verifier derived; the first difference is named.

    A receipt's digest is unkeyed (anyone can recompute it), so a chain is attested only
    field by field against what the verifier itself derives from the cut.
    """
    if len(receipts) != len(expected):
        raise CutRefused(CutReason.CHAIN_BROKEN, f"{len(receipts)} receipts where the cut derives {len(expected)}")
    for index, (found, derived) in enumerate(zip(receipts, expected, strict=True)):
        given, wanted = found.to_json(), derived.to_json()
        if given != wanted:
            field = next(name for name in wanted if given.get(name) != wanted[name])
            raise CutRefused(
                CutReason.RECEIPT_MISMATCH,
                f"receipt {index} ({derived.transformer}): its {field} is not what the verifier derives from the cut",
            )
