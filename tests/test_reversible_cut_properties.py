"""Properties of reversible cuts: tokens never collide across leases and never reach a receipt
or log; a candidate never holds a raw owner value; a round trip restores exactly."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.errors import CutRefused
from lychd_core.privacy.pseudonyms import TOKEN_RE
from lychd_core.privacy.vault import ClaimRequest, Sink, rehydrate, return_digest
from tests.support.cuts import projection_of, record_text
from tests.support.reversible import SCHEMA, open_vault, prepare_reversible, slot_tokens
from tests.support.sensitive import captured

RECORDS = ("jinja2 3.1.2 vulnerable - - -", "requests 2.31.0 clean - - -", "urllib3 1.26.5 clean - - -")
# owner values in the slot grammar; at least one character no token can hold, so none hides in one by chance
OWNERS = st.from_regex(r"[a-z][a-z0-9]{2,12}[._-][A-Za-z0-9]{1,8}", fullmatch=True)


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def _texts(owners: list[str]) -> list[str]:
    return [record_text(RECORDS[i % len(RECORDS)], owner=owner) for i, owner in enumerate(owners)]


def test_tokens_never_collide_across_leases_and_never_reach_a_receipt_or_log(tmp_path: Path) -> None:
    handler = Collect()
    root = logging.getLogger()
    root.addHandler(handler)
    previous = root.level
    root.setLevel(logging.DEBUG)
    seen: dict[str, str] = {}
    made: list[str] = []
    try:
        with open_vault(tmp_path) as vault:

            @settings(max_examples=20)
            @given(owners=st.lists(OWNERS, min_size=1, max_size=4, unique=True))
            def check(owners: list[str]) -> None:
                try:
                    prepared = prepare_reversible(vault, projection_of(*_texts(owners)))
                except CutRefused:
                    return  # an owner value that collides with a public item is refused, never cut
                made.append(prepared.lease_id)
                tokens = set(slot_tokens(prepared))
                assert len(tokens) == len(owners)
                for token in tokens:
                    assert seen.setdefault(token, prepared.lease_id) == prepared.lease_id  # no token in two leases
                returned = {"owner": sorted(tokens)[0], "summary": "s", "findings": []}
                claim = ClaimRequest(
                    principal="p", run_id="run-1", attempt=1, station="station-a", return_digest=return_digest(returned)
                )
                vault.claim(prepared.lease_id, claim)
                result = rehydrate(vault, prepared.lease_id, claim, returned, SCHEMA)
                assert result.value_for(Sink.LOCAL_VIEW)["owner"] in owners
                evidence = json.dumps(
                    [
                        prepared.to_json(),
                        result.receipt.model_dump(mode="json"),
                        repr(result),
                        vault.get(prepared.lease_id).model_dump(mode="json"),
                    ]
                )
                captured(evidence)
                for secret in [*tokens, *owners]:
                    assert secret not in evidence and not any(secret in line for line in handler.lines)

            check()
            assert len(made) >= 10  # the property ran on real cuts, not only on refusals
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)


def test_a_candidate_never_holds_a_raw_owner_value(tmp_path: Path) -> None:
    made: list[int] = []
    with open_vault(tmp_path) as vault:

        @settings(max_examples=25)
        @given(owners=st.lists(OWNERS, min_size=1, max_size=5, unique=True), repeat=st.integers(1, 3))
        def check(owners: list[str], repeat: int) -> None:
            try:
                prepared = prepare_reversible(vault, projection_of(*_texts(owners * repeat)))
            except CutRefused:
                return
            made.append(1)
            for item in prepared.prepared.candidate.items:
                slots = re.findall(r" owner=([^\n]*)\n", item.text)
                assert slots and all(TOKEN_RE.fullmatch(slot) for slot in slots)
                assert not any(owner in TOKEN_RE.sub("", item.text) for owner in owners)
            assert prepared.prepared.cut.reversible and prepared.prepared.verification.verdict == "pass"

        check()
    assert len(made) >= 10
