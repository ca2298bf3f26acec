"""Base classes of the contract suites, one per plugin family."""

from __future__ import annotations

from typing import Any

import pytest

from lychd_core.compression import replace, validate_proposal
from lychd_core.compression.runner import compression_request, pinned
from lychd_core.digests import canonical_json, sha256_digest
from lychd_core.errors import CompactionError, LychdError, PrivacyRefusal, RolePolicyError
from lychd_core.families import CompactionRequest, PluginFamily, Projected, SourceMaterial, Unavailable
from lychd_core.graph import ContextGraph, ContextNode, TokenBudget, select
from lychd_core.labels import PrivatizationLabel
from lychd_core.mediatypes import normalize_media_type
from lychd_core.registry import registry_from
from lychd_core.roles import PRODUCER_CLASSES, RoleProfile, allowed_operations
from lychd_core.vocabulary import Authority, ContextClass, Provenance, Requirement, Trust


class _PluginContract:
    family: PluginFamily

    @pytest.fixture
    def plugin(self) -> Any:
        raise NotImplementedError("override the family fixture")

    def test_registers_cleanly(self, plugin: Any) -> None:
        registry = registry_from([(self.family, plugin)])
        entry = registry.resolve(self.family, plugin.name, plugin.revision)
        assert entry.obj is plugin

    def test_options_model_is_strict(self, plugin: Any) -> None:
        assert plugin.options_model.model_config.get("extra") == "forbid"
        with pytest.raises(ValueError):
            plugin.options_model.model_validate({"no_such_option_anywhere": 1})

    def test_options_defaults_validate(self, plugin: Any) -> None:
        assert plugin.options_model() == plugin.options_model.model_validate({})


class ProjectionProfileContract(_PluginContract):
    """Override ``profile`` and, for a meaningful sample, ``sample_bytes``."""

    family = PluginFamily.PROJECTION_PROFILE

    @pytest.fixture
    def profile(self) -> Any:
        raise NotImplementedError("override the 'profile' fixture")

    @pytest.fixture
    def plugin(self, profile: Any) -> Any:
        return profile

    @pytest.fixture
    def sample_bytes(self) -> bytes:
        return b"sample text\nsecond line\n"

    def _source(self, profile: Any, data: bytes, max_chars: int = 100_000) -> SourceMaterial:
        media_type = sorted(profile.media_types)[0]
        return SourceMaterial("sample/path.txt", media_type, data, sha256_digest(data), 10_000_000, max_chars)

    def test_media_types_are_normalized(self, profile: Any) -> None:
        assert profile.media_types
        for media_type in profile.media_types:
            assert normalize_media_type(media_type) == media_type

    def test_parser_version_is_named(self, profile: Any) -> None:
        assert isinstance(profile.parser_version, str) and profile.parser_version

    def test_projection_is_deterministic(self, profile: Any, sample_bytes: bytes) -> None:
        options = profile.options_model()
        first = profile.project(self._source(profile, sample_bytes), options)
        second = profile.project(self._source(profile, sample_bytes), options)
        assert isinstance(first, (Projected, Unavailable))
        assert first == second

    def test_sample_projects(self, profile: Any, sample_bytes: bytes) -> None:
        outcome = profile.project(self._source(profile, sample_bytes), profile.options_model())
        assert isinstance(outcome, Projected), outcome
        canonical_json(outcome.facts)
        if outcome.line_map:
            assert len(outcome.line_map) == len(outcome.text.splitlines())

    def test_character_bound_is_never_exceeded(self, profile: Any, sample_bytes: bytes) -> None:
        outcome = profile.project(self._source(profile, sample_bytes, max_chars=1), profile.options_model())
        if isinstance(outcome, Projected):
            assert len(outcome.text) <= 1
        else:
            assert isinstance(outcome, Unavailable) and outcome.reason

    def test_binary_is_never_projected_as_text(self, profile: Any) -> None:
        data = bytes(range(256)) * 4
        try:
            outcome = profile.project(self._source(profile, data), profile.options_model())
        except LychdError:
            return
        assert isinstance(outcome, Unavailable), "binary bytes must not project"


class CompressorContract(_PluginContract):
    """Override ``compressor`` and, for material it compresses, ``sample_nodes``.

    The sample nodes become a graph that a writer's plan selects; every proposal the
    compressor makes for them must pass the core's validation and replacement.
    """

    family = PluginFamily.COMPRESSOR

    @pytest.fixture
    def compressor(self) -> Any:
        raise NotImplementedError("override the 'compressor' fixture")

    @pytest.fixture
    def plugin(self, compressor: Any) -> Any:
        return compressor

    @pytest.fixture
    def sample_nodes(self) -> tuple[ContextNode, ...]:
        text = "\n".join(f"line {i}: the quick brown fox jumps over the lazy dog" for i in range(40))
        return tuple(
            ContextNode.create(
                id=node_id,
                content=text,
                provenance=Provenance.REPOSITORY,
                authority=Authority.NON_AUTHORITATIVE,
                trust=Trust.CONSTRAINED,
                context_class=ContextClass.SOURCE,
                requirement=Requirement.OPTIONAL,
                token_estimate=len(text) // 3 + 1,
            )
            for node_id in ("source:a", "source:b")
        )

    @pytest.fixture
    def max_chars(self, sample_nodes: tuple[ContextNode, ...]) -> int:
        return max(64, sum(node.chars for node in sample_nodes) // 4)

    @pytest.fixture
    def sample_budget(self) -> TokenBudget:
        """The budget the sample is selected under (small, to offer omitted sources)."""
        return TokenBudget(window=10**9, reserved_output=1)

    @pytest.fixture(autouse=True)
    def _budget(self, sample_budget: TokenBudget) -> None:
        self._sample_budget = sample_budget

    def _setup(self, compressor: Any, nodes: tuple[ContextNode, ...], max_chars: int) -> Any:
        graph = ContextGraph(nodes)
        profile = RoleProfile("writer", frozenset(ContextClass), frozenset(Provenance), ())
        plan = select(graph, profile, self._sample_budget)
        pin = pinned(compressor)
        request = compression_request(graph, plan, pin.policy, max_chars=max_chars, chars_per_token=3)
        return graph, plan, pin, request

    def test_preserves_trust_is_declared(self, compressor: Any) -> None:
        assert isinstance(compressor.preserves_trust, bool)

    def test_proposals_are_deterministic(
        self, compressor: Any, sample_nodes: tuple[ContextNode, ...], max_chars: int
    ) -> None:
        _, _, pin, request = self._setup(compressor, sample_nodes, max_chars)
        first = compressor.propose(request, pin.options)
        assert isinstance(first, tuple)
        assert first == compressor.propose(request, pin.options)

    def test_sample_is_compressed_and_validates(
        self, compressor: Any, sample_nodes: tuple[ContextNode, ...], max_chars: int
    ) -> None:
        graph, plan, pin, request = self._setup(compressor, sample_nodes, max_chars)
        proposals = compressor.propose(request, pin.options)
        assert proposals, "the sample must give at least one proposal (override sample_nodes)"
        validated = [validate_proposal(p, graph, plan, pin.policy, max_chars=max_chars) for p in proposals]
        replaced = replace(graph, validated)
        for compaction in validated:
            assert compaction.node.id in replaced
            assert all(source not in replaced for source in compaction.replaced)

    def test_every_proposal_declares_its_omissions(
        self, compressor: Any, sample_nodes: tuple[ContextNode, ...], max_chars: int
    ) -> None:
        _, _, pin, request = self._setup(compressor, sample_nodes, max_chars)
        for proposal in compressor.propose(request, pin.options):
            assert proposal.omissions, "a strictly smaller derivation drops something; declare what"

    def test_no_sources_no_proposals(self, compressor: Any, sample_nodes: tuple[ContextNode, ...]) -> None:
        _, _, pin, request = self._setup(compressor, sample_nodes, 64)
        empty = CompactionRequest((), request.policy, request.max_chars, request.chars_per_token)
        assert compressor.propose(empty, pin.options) == ()

    def test_tight_bound_refuses_or_fits(self, compressor: Any, sample_nodes: tuple[ContextNode, ...]) -> None:
        _, _, pin, request = self._setup(compressor, sample_nodes, 1)
        try:
            proposals = compressor.propose(request, pin.options)
        except CompactionError:
            return
        assert all(len(p.content) <= 1 for p in proposals)


class RolePolicyContract(_PluginContract):
    """Override ``policy``."""

    family = PluginFamily.ROLE_POLICY

    @pytest.fixture
    def policy(self) -> Any:
        raise NotImplementedError("override the 'policy' fixture")

    @pytest.fixture
    def plugin(self, policy: Any) -> Any:
        return policy

    def test_named_roles_have_profiles_within_the_core_table(self, policy: Any) -> None:
        assert policy.roles
        for role in policy.roles:
            profile = policy.profile(role, policy.options_model())
            assert isinstance(profile, RoleProfile) and profile.role == role
            assert set(profile.capability_view) <= allowed_operations(role)

    def test_other_roles_are_refused_or_restricted(self, policy: Any) -> None:
        """A role the policy does not name is refused with a ``RolePolicyError`` naming it and
        the known roles, or (when the deployment declared it) gets a restricted profile."""
        try:
            profile = policy.profile("some-role-nobody-named", policy.options_model())
        except RolePolicyError as exc:
            assert "some-role-nobody-named" in str(exc)
            assert all(role in str(exc) for role in policy.roles), f"the refusal should name the known roles: {exc}"
            return
        assert isinstance(profile, RoleProfile)
        assert set(profile.capability_view) <= allowed_operations("some-role-nobody-named")

    def test_profiles_are_deterministic(self, policy: Any) -> None:
        options = policy.options_model()
        for role in policy.roles:
            assert policy.profile(role, options) == policy.profile(role, options)

    def test_reviewer_context_is_fresh(self, policy: Any) -> None:
        profile = policy.profile("reviewer", policy.options_model())
        assert not profile.visible_classes & PRODUCER_CLASSES


class PrivacyProfileContract(_PluginContract):
    """Override ``privacy_profile`` and optionally ``sample_text``."""

    family = PluginFamily.PRIVACY_PROFILE

    @pytest.fixture
    def privacy_profile(self) -> Any:
        raise NotImplementedError("override the 'privacy_profile' fixture")

    @pytest.fixture
    def plugin(self, privacy_profile: Any) -> Any:
        return privacy_profile

    @pytest.fixture
    def sample_text(self) -> str:
        return "Contact alice@example.com about ticket 42 from host 10.0.0.7."

    def test_findings_are_ordered_disjoint_spans(self, privacy_profile: Any, sample_text: str) -> None:
        label = PrivatizationLabel.restricted_unknown()
        try:
            findings = privacy_profile.propose(sample_text, label, privacy_profile.options_model())
        except PrivacyRefusal:
            return
        end = 0
        for finding in findings:
            assert end <= finding.start < finding.end <= len(sample_text)
            assert finding.operation in ("redact", "pseudonymize", "generalize") and finding.category
            end = finding.end

    def test_findings_are_deterministic(self, privacy_profile: Any, sample_text: str) -> None:
        label = PrivatizationLabel.restricted_unknown()
        options = privacy_profile.options_model()
        try:
            first = privacy_profile.propose(sample_text, label, options)
        except PrivacyRefusal:
            with pytest.raises(PrivacyRefusal):
                privacy_profile.propose(sample_text, label, options)
            return
        assert first == privacy_profile.propose(sample_text, label, options)
