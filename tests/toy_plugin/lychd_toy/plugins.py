"""Five tiny plugins, one per family, each honest about what it does."""

from __future__ import annotations

import re
from types import MappingProxyType

from pydantic import BaseModel, ConfigDict, Field

from lychd_core.blocks import Omission
from lychd_core.errors import CompactionError
from lychd_core.families import (
    MAX_SCORE,
    CompactionProposal,
    CompactionRequest,
    PrivacyFinding,
    Projected,
    RankingCandidate,
    RankingQuery,
    Score,
    SourceMaterial,
    SourceRange,
    Unavailable,
)
from lychd_core.labels import PrivatizationLabel
from lychd_core.roles import RoleProfile, allowed_operations
from lychd_core.vocabulary import ContextClass, Provenance


class NoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class UpperOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    strip: bool = Field(default=False, description="Strip surrounding whitespace of each line.")


class UpperProfile:
    """Projects text/x-toy files to upper case, line for line."""

    name = "toy.upper"
    revision = 1
    options_model = UpperOptions
    media_types = frozenset({"text/x-toy"})
    file_media_types = MappingProxyType({".toy": "text/x-toy"})  # optional: files of its media type
    parser_version = "toy 1"

    def project(self, source: SourceMaterial, options: UpperOptions) -> Projected | Unavailable:
        try:
            text = source.data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return Unavailable(f"not UTF-8: {exc.reason} at byte {exc.start}")
        if "\x00" in text or any(ord(c) < 32 and c not in "\n\t\r" for c in text):
            return Unavailable("binary content")
        lines = text.splitlines()
        out = [line.strip().upper() if options.strip else line.upper() for line in lines]
        projected = "\n".join(out)
        if len(projected) > source.max_chars:
            return Unavailable(f"{len(projected)} characters exceed the bound of {source.max_chars}")
        return Projected(projected, {"lines": len(out)}, tuple(range(1, len(out) + 1)))


class HeadCompressor:
    """Proposes, per source, its first lines that fit and an omission for the rest."""

    name = "toy.head"
    revision = 1
    options_model = NoOptions
    preserves_trust = False  # a toy: it promises nothing about what it keeps

    def propose(self, request: CompactionRequest, options: NoOptions) -> tuple[CompactionProposal, ...]:
        marker = "[... omitted]"
        if request.sources and request.max_chars < len(marker):
            raise CompactionError(f"{request.max_chars} characters cannot hold even the omission marker")
        proposals = []
        for source in request.sources:
            lines = source.content.splitlines()
            kept: list[str] = []
            used = len(marker)
            for line in lines:
                if used + len(line) + 1 > request.max_chars:
                    break
                kept.append(line)
                used += len(line) + 1
            if len(kept) == len(lines):
                continue
            omission = Omission(kind="truncated", first_line=len(kept) + 1, last_line=len(lines), reason="over budget")
            proposals.append(
                CompactionProposal(
                    output_id=f"head:{source.node_id}",
                    policy_id=request.policy.id,
                    policy_digest=request.policy.digest,
                    content="\n".join([*kept, marker]),
                    ranges=(SourceRange(source.node_id, 0, len(source.content)),),
                    source_digests=((source.node_id, source.digest),),
                    invariants=("leading lines verbatim",),
                    omissions=(omission,),
                )
            )
        return tuple(proposals)


class ToyRoles:
    """Every role sees only the Stable Floor, sources, specifications and the query, and may only read."""

    name = "toy.roles"
    revision = 1
    options_model = NoOptions
    roles = ("reader",)

    def profile(self, role: str, options: NoOptions) -> RoleProfile:
        view = tuple(sorted(allowed_operations(role) & allowed_operations("*")))
        return RoleProfile(
            role=role,
            visible_classes=frozenset(
                {
                    ContextClass.POLICY,
                    ContextClass.INSTRUCTION,
                    ContextClass.ENVIRONMENT,
                    ContextClass.SOURCE,
                    ContextClass.SPECIFICATION,
                    ContextClass.QUERY,
                }
            ),
            visible_provenances=frozenset(
                {Provenance.SYSTEM, Provenance.APPLICATION, Provenance.REPOSITORY, Provenance.USER}
            ),
            capability_view=view,
        )


EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")


class EmailFinder:
    """Proposes to pseudonymize e-mail addresses; nothing else."""

    name = "toy.emails"
    revision = 1
    options_model = NoOptions

    def propose(self, text: str, label: PrivatizationLabel, options: NoOptions) -> tuple[PrivacyFinding, ...]:
        return tuple(PrivacyFinding(m.start(), m.end(), "email", "pseudonymize") for m in EMAIL.finditer(text))


class WordCount:
    """Ranks candidates by how many of the query's lower-cased words their text contains."""

    name = "toy.words"
    revision = 1
    options_model = NoOptions

    def rank(
        self, query: RankingQuery, candidates: tuple[RankingCandidate, ...], options: NoOptions
    ) -> dict[str, Score]:
        words = set(re.findall(r"[a-z]+", query.text.lower()))
        if not words:
            return {}
        scores = {}
        for candidate in candidates:
            found = sorted(words & set(re.findall(r"[a-z]+", candidate.text.lower())))
            if found:
                scores[candidate.node_id] = Score(MAX_SCORE * len(found) // len(words), "words " + ", ".join(found[:3]))
        return scores
