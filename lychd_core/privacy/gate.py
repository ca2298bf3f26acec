"""``EgressGate``: the one check before every model call.

An assembled context goes to a target when its joined label fits the target; a
sealed Privacy Cut's exact candidate goes to its plan's target, consumer and purpose
even though its source would be refused, using one disclosure each time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from lychd_core.labels import PrivatizationLabel
from lychd_core.privacy.egress import EgressDecision, decide_egress
from lychd_core.privacy.settings import EgressConfig

if TYPE_CHECKING:
    from lychd_core.privacy.projection import CallProjection
    from lychd_core.privacy.seal import PrivacyCut, SealAuthority


class Labelled(Protocol):
    """Anything that names the label of each node it would send (an ``AssembledContext``)."""

    @property
    def node_labels(self) -> Mapping[str, PrivatizationLabel]: ...


class EgressGate:
    """Decides egress for contexts under one ``[egress]`` configuration and one seal authority."""

    def __init__(self, egress: EgressConfig | None = None, authority: SealAuthority | None = None) -> None:
        self.egress = egress if egress is not None else EgressConfig()
        self._authority = authority

    @property
    def authority(self) -> SealAuthority:
        """The seal authority, made on first use: a gate that never admits a sealed candidate
        (every ``lychd assemble``) does not load the Privacy Cut (benchmarks/bench_cold_assemble.py)."""
        if self._authority is None:
            from lychd_core.privacy.seal import SealAuthority

            self._authority = SealAuthority()
        return self._authority

    def decide(self, node_labels: Mapping[str, PrivatizationLabel], target: str | None = None) -> EgressDecision:
        """Admit or refuse (as data); an unknown target name is a typed error."""
        name, spec = self.egress.target(target)
        return decide_egress(node_labels, name, spec)

    def check(self, context: Labelled | Mapping[str, PrivatizationLabel], target: str | None = None) -> EgressDecision:
        """The admitting decision, or ``EgressRefused`` naming the offending nodes and their labels."""
        labels = context if isinstance(context, Mapping) else context.node_labels
        return self.decide(labels, target).raise_if_refused()

    def admit_sealed(
        self,
        cut: PrivacyCut,
        candidate: CallProjection,
        *,
        consumer_kind: str,
        consumer_id: str,
        purpose: str,
        now: int,
        target: str | None = None,
        delivery_id: str | None = None,
    ) -> EgressDecision:
        """Admit a sealed candidate (see :meth:`SealAuthority.admit`); the target must be configured."""
        name, _ = self.egress.target(cut.plan.target if target is None else target)
        return self.authority.admit(
            cut,
            candidate=candidate,
            target=name,
            consumer_kind=consumer_kind,
            consumer_id=consumer_id,
            purpose=purpose,
            now=now,
            delivery_id=delivery_id,
        )
