"""codex_block builds, without validation, exactly the Block and Lineage validation would build."""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.blocks import Block, Layer, Lineage, Omission
from lychd_core.digests import sha256_digest, text_digest
from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy.rules import rule_label
from lychd_core.privacy.settings import LabelRule
from lychd_core.projection.codex import codex_block

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=300)
NAME = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=40)
OMISSIONS = st.lists(
    st.builds(
        Omission,
        kind=NAME,
        first_line=st.none() | st.integers(1, 10**6),
        last_line=st.none() | st.integers(1, 10**6),
        reason=NAME,
    ),
    max_size=3,
)
UNKNOWN = PrivatizationLabel.restricted_unknown()
LABELS = st.sampled_from(
    [
        UNKNOWN,
        rule_label(LabelRule(path="src/**", privacy_class="internal", weight=10, categories=["code"]), "a", "d"),
    ]
)


@settings(max_examples=150)
@given(NAME, st.binary(max_size=40), NAME, NAME, OMISSIONS, st.lists(NAME, max_size=3), TEXT, LABELS)
def test_codex_block_equals_the_validated_models(
    source: str,
    content: bytes,
    pin: str,
    parser_version: str,
    omissions: list[Omission],
    tags: list[str],
    text: str,
    label: PrivatizationLabel,
) -> None:
    digest = sha256_digest(content)
    made = codex_block(
        source, digest, pin, parser_version, tuple(omissions), tuple(tags), text, text_digest(text), label
    )
    lineage = Lineage(
        source_path=source,
        source_digests=(digest,),
        profile=pin,
        parser_version=parser_version,
        omissions=omissions,
        tags=tags,
    )
    valid = Block(layer=Layer.CODEX, key=f"codex:{source}:{pin}", text=text, label=label, lineage=lineage)
    assert type(made) is Block and type(made.lineage) is Lineage
    assert made == valid and made.lineage == valid.lineage and hash(made) == hash(valid)
    assert made.content_hash == valid.content_hash and made.to_json() == valid.to_json()
    assert made.model_dump() == valid.model_dump() and made.model_dump_json() == valid.model_dump_json()
    assert made.model_fields_set == valid.model_fields_set
    assert made.lineage.model_fields_set == valid.lineage.model_fields_set
    assert made.__pydantic_private__ == valid.__pydantic_private__
    assert made.__pydantic_extra__ == valid.__pydantic_extra__ and made.lineage.__pydantic_extra__ is None
    assert pickle.loads(pickle.dumps(made)) == valid
    assert Block.model_validate(made.model_dump(exclude={"content_hash"})) == made


def test_a_wrong_content_hash_is_what_it_is_told() -> None:
    """A control: the hash is taken as given (callers pass the text's own), so this test can tell them apart."""
    made = codex_block("a", sha256_digest(b""), "p@1", "v", (), (), "text", text_digest("other"), UNKNOWN)
    assert made.content_hash == text_digest("other") != text_digest("text")
