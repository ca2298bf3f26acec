"""Digests, labels and blocks: the core types every other part relies on."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from lychd_core import Block, Layer, PrivacyClass, PrivatizationLabel, join_labels, prefix_digest
from lychd_core.digests import canonical_json, check_digest, is_digest, json_digest, text_digest
from lychd_core.errors import BlockError

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_canonical_json_is_deterministic_and_key_order_free(value: object) -> None:
    assert canonical_json(value) == canonical_json(value)
    if isinstance(value, dict):
        reordered = dict(reversed(list(value.items())))
        assert canonical_json(reordered) == canonical_json(value)


def test_canonical_json_form() -> None:
    assert canonical_json({"b": 1, "a": [True, None, "é"]}) == '{"a":[true,null,"é"],"b":1}'.encode()


@pytest.mark.parametrize("bad", [1.5, float("nan"), {"a": 0.0}, {1: "x"}, object()])
def test_canonical_json_refuses_unstable_values(bad: object) -> None:
    with pytest.raises(TypeError):
        canonical_json(bad)


def test_digest_format() -> None:
    digest = text_digest("hi")
    assert is_digest(digest) and digest.startswith("sha256:") and len(digest) == 71
    assert json_digest({"a": 1}) == json_digest({"a": 1})
    with pytest.raises(ValueError, match="sha256"):
        check_digest("md5:abc")


labels = st.builds(
    PrivatizationLabel,
    privacy_class=st.sampled_from(list(PrivacyClass)),
    weight=st.integers(0, 10_000),
    categories=st.frozensets(st.sampled_from(["pii", "secret", "health"])),
    subjects=st.frozensets(st.sampled_from(["alice", "bob"])),
    material_parents=st.frozensets(st.sampled_from(["a.py", "b.py"])),
    handling_constraints=st.frozensets(st.sampled_from(["local-only", "no-log"])),
    lineage_known=st.just(True),
) | st.just(PrivatizationLabel.restricted_unknown())


@given(labels, labels)
def test_join_is_monotone_and_commutative(a: PrivatizationLabel, b: PrivatizationLabel) -> None:
    joined = a.join(b)
    assert joined == b.join(a)
    for part in (a, b):
        assert joined.privacy_class >= part.privacy_class
        assert joined.weight >= part.weight
        assert joined.categories >= part.categories and joined.subjects >= part.subjects
        assert joined.material_parents >= part.material_parents
        assert joined.handling_constraints >= part.handling_constraints
    assert joined.lineage_known == (a.lineage_known and b.lineage_known)


@given(labels, labels, labels)
def test_join_is_associative_and_idempotent(
    a: PrivatizationLabel, b: PrivatizationLabel, c: PrivatizationLabel
) -> None:
    assert a.join(b).join(c) == a.join(b.join(c))
    assert a.join(a) == a


def test_unknown_lineage_must_be_restricted() -> None:
    with pytest.raises(ValidationError, match="RESTRICTED"):
        PrivatizationLabel(privacy_class=PrivacyClass.PUBLIC, weight=0, lineage_known=False)
    joined = PrivatizationLabel.public("a").join(PrivatizationLabel.restricted_unknown())
    assert joined.privacy_class is PrivacyClass.RESTRICTED and not joined.lineage_known


def test_joining_nothing_is_never_public() -> None:
    assert join_labels([]) == PrivatizationLabel.restricted_unknown()


def test_unlabelled_block_is_restricted_unknown() -> None:
    block = Block(layer=Layer.CODEX, key="k", text="x")
    assert block.label == PrivatizationLabel.restricted_unknown()


def test_label_weight_is_bounded() -> None:
    with pytest.raises(ValidationError):
        PrivatizationLabel(privacy_class=PrivacyClass.PUBLIC, weight=10_001, lineage_known=True)


def test_block_hash_is_derived_never_accepted() -> None:
    block = Block(layer=Layer.IDENTITY, key="identity", text="You are careful.")
    assert block.content_hash == text_digest("You are careful.")
    with pytest.raises(BlockError, match="'identity': content_hash is derived from the text"):
        Block(layer=Layer.IDENTITY, key="identity", text="x", content_hash=text_digest("y"))  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        block.text = "changed"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"layer": 7, "key": "k", "text": "x"}, "layer: Input should be 1, 2, 3, 4, 5 or 6"),
        ({"layer": Layer.CODEX, "key": "", "text": "x"}, "key: String should have at least 1 character"),
        ({"layer": Layer.CODEX, "key": "k"}, "text: Field required"),
        ({"layer": Layer.CODEX, "key": "k", "text": "x", "hash": "y"}, "hash: Extra inputs .* takes layer, key"),
    ],
)
def test_bad_block_fields_are_a_block_error_naming_the_field(fields: dict[str, object], problem: str) -> None:
    with pytest.raises(BlockError, match=problem):
        Block(**fields)  # type: ignore[arg-type]


def test_prefix_digest_covers_order_and_content() -> None:
    a = Block(layer=Layer.IDENTITY, key="a", text="one")
    b = Block(layer=Layer.CODEX, key="b", text="two")
    assert prefix_digest([a, b]) == prefix_digest([a, b])
    assert prefix_digest([a, b]) != prefix_digest([b, a])
    assert prefix_digest([a, b]) != prefix_digest([a, Block(layer=Layer.CODEX, key="b", text="two!")])
    with pytest.raises(ValueError, match="floor"):
        prefix_digest([Block(layer=Layer.QUERY, key="q", text="?")])
