"""The core runs the contract kit over every installed plugin, first-party or third-party.

Each plugin distribution also runs the same contracts in its own tests; this file
proves that whatever the registry holds right now honours them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lychd_compressors.samples import SAMPLE_BUDGETS, SAMPLE_NODES

from lychd_core.families import PluginFamily
from lychd_core.registry import Registry, get_registry
from lychd_core.testing import (
    CompressorContract,
    PrivacyProfileContract,
    ProjectionProfileContract,
    RankingProfileContract,
    RolePolicyContract,
    TokenCounterContract,
)

SAMPLES = {
    "text/x-python": b'"""A module."""\n\nimport os\n\n\ndef greet(name: str) -> str:\n    return "hi " + name\n',
    "application/json": b'{"a": [1, 2, 3]}\n',
    "application/toml": b'[tool]\nname = "x"\n',
    "application/yaml": b"a: 1\nb: [2, 3]\n",
    "text/javascript": b"/** Greets. */\nexport function greet(name) {\n  return 'hi ' + name;\n}\n",
    "text/x-tsx": b"export const App = (props: { name: string }) => <div>{props.name}</div>;\n",
    "text/x-go": b"package demo\n\n// Greet greets.\nfunc Greet(name string) string { return name }\n",
    "text/x-rust": b"/// Greets.\npub fn greet(name: &str) -> String {\n    name.to_string()\n}\n",
    "text/x-java": b"/** Greets. */\npublic class Greeter {\n  public String greet(String n) { return n; }\n}\n",
}
FIXTURE = {
    PluginFamily.PROJECTION_PROFILE: ("profile", ProjectionProfileContract),
    PluginFamily.COMPRESSOR: ("compressor", CompressorContract),
    PluginFamily.ROLE_POLICY: ("policy", RolePolicyContract),
    PluginFamily.PRIVACY_PROFILE: ("privacy_profile", PrivacyProfileContract),
    PluginFamily.RANKING_PROFILE: ("ranking_profile", RankingProfileContract),
    PluginFamily.TOKEN_COUNTER: ("token_counter", TokenCounterContract),
}
FIRST_PARTY = {
    "lychd-structure-python",
    "lychd-structure-treesitter",
    "lychd-verbatim",
    "lychd-roles",
    "lychd-compressors",
    "lychd-closed-diagnostic",
    "lychd-ranking",
    "lychd-tokens",
}


def _contract_class(entry: Any) -> type:
    fixture_name, base = FIXTURE[entry.family]
    namespace: dict[str, Any] = {fixture_name: pytest.fixture(lambda self: entry.obj)}
    if entry.family is PluginFamily.PROJECTION_PROFILE:
        sample = SAMPLES.get(sorted(entry.obj.media_types)[0], b"sample text\nsecond line\n")
        namespace["sample_bytes"] = pytest.fixture(lambda self: sample)
    if entry.family is PluginFamily.COMPRESSOR and entry.name in SAMPLE_NODES:
        nodes, budget = SAMPLE_NODES[entry.name], SAMPLE_BUDGETS.get(entry.name)
        namespace["sample_nodes"] = pytest.fixture(lambda self: nodes)
        namespace["max_chars"] = pytest.fixture(lambda self: 4_000)
        if budget is not None:
            namespace["sample_budget"] = pytest.fixture(lambda self: budget)
    return type(f"TestContract_{entry.family.name}_{entry.name}", (base,), namespace)


for _entry in get_registry().all():
    _cls = _contract_class(_entry)
    globals()[_cls.__name__] = _cls


def test_first_party_plugins_are_installed_and_registered() -> None:
    distributions = {entry.distribution for entry in get_registry().all()}
    assert distributions >= FIRST_PARTY


def test_pytest11_fixtures_reach_every_test_session(lychd_registry: Registry, lychd_workspace: Path) -> None:
    """Installing lychd-core registers its fixtures through the pytest11 entry point."""
    assert "roles.standard" in lychd_registry.names(PluginFamily.ROLE_POLICY)
    assert lychd_workspace.is_dir() and not any(lychd_workspace.iterdir())
