"""The orchestrator asks the role policy once per role and configuration, not per assembly."""

from __future__ import annotations

from typing import Any

from lychd_toy.plugins import ToyRoles

from lychd_core.assembly import ContextOrchestrator
from lychd_core.config import default_config
from lychd_core.families import PluginFamily
from lychd_core.registry import registry_from
from lychd_core.roles import RoleProfile


class CountingRoles(ToyRoles):
    def __init__(self) -> None:
        self.asked: list[str] = []

    def profile(self, role: str, options: Any) -> RoleProfile:
        self.asked.append(role)
        return super().profile(role, options)


def orchestrator(policy: CountingRoles) -> ContextOrchestrator:
    registry = registry_from([(PluginFamily.ROLE_POLICY, policy)], distribution="acme-roles")
    base = default_config()
    config = base.model_copy(
        update={"role_policy": base.role_policy.model_copy(update={"name": policy.name, "revision": policy.revision})}
    )
    return ContextOrchestrator(config, registry=registry)


def test_repeated_assemblies_ask_the_policy_once_per_role() -> None:
    policy = CountingRoles()
    orch = orchestrator(policy)
    for n in range(3):
        orch.assemble(query="where is the parser?", role="reader", run_id=f"run-{n}", session_id="s")
        orch.release(f"run-{n}")
    orch.assemble(query="and the writer?", role="writer", run_id="run-w", session_id="s")
    assert policy.asked == ["reader", "writer"]
    assert orch.role_profile("reader") is orch.role_profile("reader")


def test_a_new_configuration_asks_the_policy_again() -> None:
    policy = CountingRoles()
    orch = orchestrator(policy)
    first = orch.role_profile("reader")
    orch.config = orch.config.model_copy()
    second = orch.role_profile("reader")
    assert policy.asked == ["reader", "reader"]
    assert first == second
