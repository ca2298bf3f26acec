"""The rehydration port: exact tokens at marked paths only, the attack matrix, the receipt and the result."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lychd_core.digests import json_digest
from lychd_core.errors import (
    ClaimConflict,
    LeaseStateError,
    LeaseUnrecoverable,
    RehydratedFlowRefused,
    RehydrationRefused,
    RejectReason,
)
from lychd_core.privacy.vault import LeaseState, Sink, Vault, rehydrate
from lychd_core.privacy.vault.rehydrate import REHYDRATED_CONSTRAINTS
from tests.support.vaults import (
    EMAIL,
    OWNER,
    SCHEMA,
    SOURCE_LABEL,
    T0,
    VALUES,
    claim_for,
    cut_binding,
    lease_request,
    model_return,
    new_lease,
    open_vault,
    tokens_of,
)


def _claimed(vault: Vault, returned_of: Callable[[list[str]], Any], **lease: Any) -> tuple[str, Any, Any]:
    grant = new_lease(vault, **lease)
    returned = returned_of(tokens_of(grant))
    claim = claim_for(returned)
    vault.claim(grant.lease_id, claim)
    return grant.lease_id, claim, returned


def test_exact_tokens_at_marked_paths_are_restored_with_a_receipt(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        lease_id, claim, returned = _claimed(vault, lambda t: model_return(*t))
        result = rehydrate(vault, lease_id, claim, returned, SCHEMA)
        assert vault.get(lease_id).state is LeaseState.CONSUMED and not vault.get(lease_id).key_present
    value = result.value_for(Sink.LOCAL_VIEW)
    assert value == {"owner": OWNER, "summary": "upgrade the dependency", "findings": [{"contact": EMAIL, "id": "F1"}]}
    receipt = result.receipt
    assert receipt.schema_id == "RehydrationReceipt@1" and receipt.substitutions == {"email": 1, "owner": 1}
    assert receipt.quarantined_return_digest == json_digest(returned) and receipt.final_digest == json_digest(value)
    assert receipt.restored_label_digest == json_digest(result.label.to_json())
    assert (receipt.cut_id, receipt.lease_id, receipt.output_schema_digest) == ("cut-1", lease_id, SCHEMA.digest)
    evidence = receipt.model_dump_json() + repr(result)
    assert OWNER not in evidence and EMAIL not in evidence and "<<ps:" not in evidence


def test_the_result_regains_its_label_stays_local_and_purges_in_time(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        lease_id, claim, returned = _claimed(vault, lambda t: model_return(*t))
        result = rehydrate(vault, lease_id, claim, returned, SCHEMA)
    assert result.label.privacy_class == SOURCE_LABEL.privacy_class and result.label.subjects == SOURCE_LABEL.subjects
    assert result.label.handling_constraints >= REHYDRATED_CONSTRAINTS and result.local_only and not result.executable
    for sink in (Sink.EXECUTABLE_FIELD, Sink.EFFECT, Sink.PUBLIC_DELIVERY, Sink.REMOTE_CALL):
        with pytest.raises(RehydratedFlowRefused, match=sink.value):
            result.value_for(sink)
    copy = result.value_for(Sink.LOCAL_VALIDATION)
    copy["owner"] = "changed"
    assert result.value_for(Sink.LOCAL_VIEW)["owner"] == OWNER
    assert result.purge_at == T0 + 3600  # cut expiry is the earliest bound here


@pytest.mark.parametrize(
    ("cut_expires_at", "source_expires_at", "retention_max", "expected"),
    [
        (T0 + 5000, T0 + 4000, 86_400, T0 + 4000),
        (T0 + 5000, None, 86_400, T0 + 5000),
        (T0 + 99_000, None, 10, T0 + 10),
    ],
)
def test_purge_at_is_the_earliest_source_cut_or_retention_bound(
    tmp_path: Path, cut_expires_at: int, source_expires_at: int | None, retention_max: int, expected: int
) -> None:
    cut = cut_binding(cut_expires_at=cut_expires_at, source_expires_at=source_expires_at)
    with open_vault(tmp_path) as vault:
        lease_id, claim, returned = _claimed(vault, lambda t: model_return(*t), cut=cut, retention_max=retention_max)
        assert rehydrate(vault, lease_id, claim, returned, SCHEMA).purge_at == expected


def _swap(text: str, index: int, new: str) -> str:
    parts = text[5:-2].split(":")
    parts[index] = new
    return "<<ps:" + ":".join(parts) + ">>"


ATTACKS: dict[str, tuple[Callable[[list[str], list[str]], Any], RejectReason]] = {
    "invented token": (
        lambda t, o: model_return(_swap(t[0], 2, "7"), t[1]),
        RejectReason.INVENTED_OR_ALTERED,
    ),
    "altered tag": (
        lambda t, o: model_return(_swap(t[0], 3, "0" * 12), t[1]),
        RejectReason.INVENTED_OR_ALTERED,
    ),
    "cross-namespace (another lease's token)": (lambda t, o: model_return(o[0], t[1]), RejectReason.CROSS_NAMESPACE),
    "cross-category (email token in the owner field)": (
        lambda t, o: model_return(t[1], t[1]),
        RejectReason.CROSS_CATEGORY,
    ),
    "wrong path (issued token in an unmarked field)": (
        lambda t, o: {**model_return(t[0], t[1]), "summary": t[0]},
        RejectReason.WRONG_PATH,
    ),
    "wrong path (path marked for another purpose)": (
        lambda t, o: {**model_return(t[0], t[1]), "audit": t[0]},
        RejectReason.WRONG_PATH,
    ),
    "over-cardinality": (
        lambda t, o: {"owner": t[0], "findings": [{"contact": t[1]}] * 3},
        RejectReason.OVER_CARDINALITY,
    ),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_token_attack_matrix_is_refused_and_revokes(tmp_path: Path, attack: str) -> None:
    build, reason = ATTACKS[attack]
    with open_vault(tmp_path) as vault:
        other = tokens_of(new_lease(vault))
        lease_id, claim, returned = _claimed(vault, lambda t: build(t, other))
        with pytest.raises(RehydrationRefused) as raised:
            rehydrate(vault, lease_id, claim, returned, SCHEMA)
        assert raised.value.reason is reason
        assert OWNER not in str(raised.value) and EMAIL not in str(raised.value)
        view = vault.get(lease_id)
        assert view.state is LeaseState.REVOKED and not view.key_present


def test_an_issued_but_undisclosed_token_is_refused(tmp_path: Path) -> None:
    issued: list[str] = []

    def owner_only(tokens: tuple[str, ...]) -> str:
        issued.extend(tokens)  # the preparer sees every token; only the owner's enters the candidate
        return f"owner={tokens[0]}"

    with open_vault(tmp_path) as vault:
        grant = vault.create_lease(lease_request(), VALUES, owner_only)
        returned = model_return(issued[0], issued[1])
        claim = claim_for(returned)
        vault.claim(grant.lease_id, claim)
        with pytest.raises(RehydrationRefused) as raised:
            rehydrate(vault, grant.lease_id, claim, returned, SCHEMA)
        assert raised.value.reason is RejectReason.NOT_DISCLOSED


def test_prose_is_never_scanned_for_tokens(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        lease_id, claim, returned = _claimed(
            vault, lambda t: {"owner": f"see {t[0]}", "summary": f"owner is {t[0]}", "findings": []}
        )
        value = rehydrate(vault, lease_id, claim, returned, SCHEMA).value_for(Sink.LOCAL_VIEW)
    assert value == returned and OWNER not in str(value)


def test_replay_after_consumption_is_refused(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        lease_id, claim, returned = _claimed(vault, lambda t: model_return(*t))
        rehydrate(vault, lease_id, claim, returned, SCHEMA)
        with pytest.raises(RehydrationRefused) as raised:
            rehydrate(vault, lease_id, claim, returned, SCHEMA)
        assert raised.value.reason is RejectReason.REPLAYED


def test_return_schema_and_claim_mismatches_are_refused(tmp_path: Path) -> None:
    other_schema = SCHEMA.model_copy(update={"revision": 2})
    with open_vault(tmp_path) as vault:
        lease_id, claim, returned = _claimed(vault, lambda t: model_return(*t))
        with pytest.raises(ClaimConflict):
            rehydrate(vault, lease_id, claim_for(returned, principal="intruder"), returned, SCHEMA)
        with pytest.raises(RehydrationRefused) as raised:
            rehydrate(vault, lease_id, claim, {**returned, "summary": "edited"}, SCHEMA)
        assert raised.value.reason is RejectReason.RETURN_MISMATCH
        lease_id, claim, returned = _claimed(vault, lambda t: model_return(*t))
        with pytest.raises(RehydrationRefused) as raised:
            rehydrate(vault, lease_id, claim, returned, other_schema)
        assert raised.value.reason is RejectReason.SCHEMA_MISMATCH
        unclaimed = new_lease(vault)
        with pytest.raises(LeaseStateError, match="claim it"):
            rehydrate(vault, unclaimed.lease_id, claim, returned, SCHEMA)


def test_the_restored_value_is_validated_again_without_leaking_it(tmp_path: Path) -> None:
    def validate(value: Any) -> None:
        raise ValueError(f"bad owner {value['owner']}")

    with open_vault(tmp_path) as vault:
        lease_id, claim, returned = _claimed(vault, lambda t: model_return(*t))
        with pytest.raises(RehydrationRefused) as raised:
            rehydrate(vault, lease_id, claim, returned, SCHEMA, validate)
        assert raised.value.reason is RejectReason.VALIDATION_FAILED and OWNER not in str(raised.value)
        assert raised.value.__cause__ is None and raised.value.__context__ is None


def test_a_lost_key_never_licenses_reconstruction(tmp_path: Path) -> None:
    with open_vault(tmp_path) as vault:
        lease_id, claim, returned = _claimed(vault, lambda t: model_return(*t))
        vault.keys.destroy([lease_id])  # key store lost this lease (e.g. restored from elsewhere)
        with pytest.raises(LeaseUnrecoverable, match="will not be rebuilt"):
            rehydrate(vault, lease_id, claim, returned, SCHEMA)
        assert vault.get(lease_id).state is LeaseState.REVOKED
