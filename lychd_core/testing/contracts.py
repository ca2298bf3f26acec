"""Base classes of the contract suites, one per plugin family."""

from __future__ import annotations

from typing import Any

import pytest

from lychd_core.blocks import Block, Layer
from lychd_core.digests import canonical_json, sha256_digest
from lychd_core.errors import CompactionError, LychdError, PrivacyRefusal
from lychd_core.families import Compressed, PluginFamily, Projected, SourceMaterial, Unavailable
from lychd_core.labels import PrivatizationLabel
from lychd_core.mediatypes import normalize_media_type
from lychd_core.registry import registry_from
from lychd_core.roles import PRODUCER_CLASSES, RoleProfile, allowed_operations


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
    """Override ``compressor`` and optionally ``sample_blocks``."""

    family = PluginFamily.COMPRESSOR

    @pytest.fixture
    def compressor(self) -> Any:
        raise NotImplementedError("override the 'compressor' fixture")

    @pytest.fixture
    def plugin(self, compressor: Any) -> Any:
        return compressor

    @pytest.fixture
    def sample_blocks(self) -> tuple[Block, ...]:
        text = "\n".join(f"line {i}: the quick brown fox jumps over the lazy dog" for i in range(40))
        return (Block(layer=Layer.CODEX, key="codex:a", text=text), Block(layer=Layer.KARMA, key="karma:b", text=text))

    def test_compression_fits_and_is_deterministic(self, compressor: Any, sample_blocks: tuple[Block, ...]) -> None:
        limit = sum(len(b.text) for b in sample_blocks) // 4
        options = compressor.options_model()
        first = compressor.compress(sample_blocks, limit, options)
        assert first == compressor.compress(sample_blocks, limit, options)
        assert isinstance(first, Compressed)
        assert len(first.text) <= limit

    def test_shorter_output_declares_omissions(self, compressor: Any, sample_blocks: tuple[Block, ...]) -> None:
        limit = sum(len(b.text) for b in sample_blocks) // 4
        result = compressor.compress(sample_blocks, limit, compressor.options_model())
        assert result.omissions, "compression that drops material must declare what it omitted"

    def test_impossible_fit_refuses(self, compressor: Any, sample_blocks: tuple[Block, ...]) -> None:
        try:
            result = compressor.compress(sample_blocks, 1, compressor.options_model())
        except CompactionError:
            return
        assert len(result.text) <= 1 and result.omissions


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

    def test_other_roles_are_restricted(self, policy: Any) -> None:
        profile = policy.profile("some-role-nobody-named", policy.options_model())
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
