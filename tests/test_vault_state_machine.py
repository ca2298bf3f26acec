"""The lease store against a simple model: legal transitions only, terminals absorb, claim is idempotent."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from lychd_core.errors import ClaimConflict, LeaseExpired, LeaseStateError, RehydrationRefused, RejectReason
from lychd_core.privacy.vault import LeaseState, rehydrate
from tests.support.vaults import SCHEMA, Clock, claim_for, cut_binding, model_return, new_lease, open_vault, tokens_of

ACTIVE, CLAIMED, CONSUMED, EXPIRED, REVOKED = (
    LeaseState.ACTIVE,
    LeaseState.CLAIMED,
    LeaseState.CONSUMED,
    LeaseState.EXPIRED,
    LeaseState.REVOKED,
)


class LeaseMachine(RuleBasedStateMachine):
    leases = Bundle("leases")

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="vault-sm-"))
        self.clock = Clock()
        self.vault = open_vault(self.tmp, self.clock)
        self.model: dict[str, tuple[LeaseState, int | None]] = {}
        self.expires: dict[str, int] = {}
        self.returns: dict[str, Any] = {}

    def teardown(self) -> None:
        self.vault.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _claim(self, lease_id: str, who: int) -> Any:
        return claim_for(self.returns[lease_id], principal=f"agent-{who}")

    def _due(self, lease_id: str) -> bool:
        state, _ = self.model[lease_id]
        return not state.terminal and self.clock.now >= self.expires[lease_id]

    @rule(target=leases)
    def create(self) -> str:
        now = self.clock.now
        cut = cut_binding(cut_expires_at=now + 3600, source_expires_at=now + 7200)
        grant = new_lease(self.vault, cut=cut, remote_deadline_at=now + 600)
        self.model[grant.lease_id] = (ACTIVE, None)
        self.expires[grant.lease_id] = grant.expires_at
        self.returns[grant.lease_id] = model_return(*tokens_of(grant))
        return grant.lease_id

    @rule(lease_id=leases, who=st.integers(0, 1))
    def claim(self, lease_id: str, who: int) -> None:
        state, holder = self.model[lease_id]
        if self._due(lease_id):
            with pytest.raises(LeaseExpired):
                self.vault.claim(lease_id, self._claim(lease_id, who))
            self.model[lease_id] = (EXPIRED, holder)
        elif state is ACTIVE or (state is CLAIMED and holder == who):
            assert self.vault.claim(lease_id, self._claim(lease_id, who)).state is CLAIMED
            self.model[lease_id] = (CLAIMED, who)
        elif state is CLAIMED:
            with pytest.raises(ClaimConflict):
                self.vault.claim(lease_id, self._claim(lease_id, who))
        else:
            with pytest.raises(LeaseStateError):
                self.vault.claim(lease_id, self._claim(lease_id, who))

    @rule(lease_id=leases, who=st.integers(0, 1))
    def rehydrate(self, lease_id: str, who: int) -> None:
        state, holder = self.model[lease_id]
        args = (self.vault, lease_id, self._claim(lease_id, who), self.returns[lease_id], SCHEMA)
        if state is CONSUMED:
            with pytest.raises(RehydrationRefused) as raised:
                rehydrate(*args)
            assert raised.value.reason is RejectReason.REPLAYED
        elif state.terminal or (state is ACTIVE and not self._due(lease_id)):
            with pytest.raises(LeaseStateError):
                rehydrate(*args)
        elif self._due(lease_id):
            with pytest.raises(LeaseExpired):
                rehydrate(*args)
            self.model[lease_id] = (EXPIRED, holder)
        elif holder != who:
            with pytest.raises(ClaimConflict):
                rehydrate(*args)
        else:
            assert rehydrate(*args).receipt.lease_id == lease_id
            self.model[lease_id] = (CONSUMED, holder)

    @rule(lease_id=leases)
    def revoke(self, lease_id: str) -> None:
        state, holder = self.model[lease_id]
        assert self.vault.revoke(lease_id).state is (state if state.terminal else REVOKED)
        if not state.terminal:
            self.model[lease_id] = (REVOKED, holder)

    @rule(seconds=st.sampled_from([1, 299, 900, 4000]))
    def advance(self, seconds: int) -> None:
        self.clock.now += seconds

    @rule()
    def purge(self) -> None:
        due = [lease_id for lease_id in self.model if self._due(lease_id)]
        assert self.vault.purge()["expired"] == len(due)
        for lease_id in due:
            self.model[lease_id] = (EXPIRED, self.model[lease_id][1])

    @invariant()
    def store_matches_model(self) -> None:
        counts = {state.value: 0 for state in LeaseState}
        for lease_id, (state, _) in self.model.items():
            view = self.vault.get(lease_id)
            assert view.state is state
            assert view.key_present is not state.terminal
            counts[state.value] += 1
        assert self.vault.counts() == counts
        assert self.vault.keys.lease_ids() - self.vault.pooled_ids == {
            i for i, (s, _) in self.model.items() if not s.terminal
        }


LeaseMachine.TestCase.settings = settings(max_examples=25, stateful_step_count=20, deadline=None)
test_lease_store_follows_the_model = LeaseMachine.TestCase
