"""Privacy: the Privacy Cut against a regex scan, and the egress decision against a label join.

    python benchmarks/bench_privacy.py            # 1 MB of records, 10k nodes (quick)
    python benchmarks/bench_privacy.py --full     # 10 MB of records, 100k nodes (the issue's sizes)

1. Prepare + verify + seal (``closed-diagnostic@1``: censor, independent verifier,
   in-memory seal, every digest) over diagnostic records, against the floor: one
   compiled-regex scan of the same text that finds every record and its owner slot.
   Goal <= 5x the floor.
2. The egress decision for a context of N labelled nodes (admit path: join once, check
   once), against joining the same labels. Goal <= 1.2x. The refusal path, which also
   names every offending node, is reported.

Inputs come from a fixed seed; each figure is the fastest of several rounds (the
machine is shared).
"""

from __future__ import annotations

import argparse
import gc
import random
import re
import time
from collections.abc import Callable
from typing import TypeVar

from lychd_closed_diagnostic import PROFILE, ClosedDiagnosticOptions

from lychd_core.labels import PrivacyClass, PrivatizationLabel, join_labels
from lychd_core.privacy import CallProjection, ClosedVocabulary, EgressTarget, SealAuthority, decide_egress, local_ref
from lychd_core.privacy.plan import DisclosurePlan
from lychd_core.privacy.prepare import prepare_cut

T = TypeVar("T")
NOW = 1_800_000_000
FLOOR = re.compile(r"^(\S+) (\S+) (\S+) (\S+) (\S+) (\S+) owner=(\S+)$", re.M)


def best(fn: Callable[[], T], rounds: int) -> tuple[float, T]:
    times, result = [], None
    for _ in range(rounds):
        gc.collect()
        start = time.process_time()  # CPU seconds: the machine is shared, wall time counts other work
        result = fn()
        times.append(time.process_time() - start)
    return min(times), result  # type: ignore[return-value]


def paired(anchor: Callable[[], object], measured: Callable[[], object], rounds: int) -> tuple[float, float]:
    """Best times of the anchor and the measured function, run alternately so load hits both alike."""
    anchor_times, measured_times = [], []
    for _ in range(rounds):
        anchor_times.append(best(anchor, 1)[0])
        measured_times.append(best(measured, 1)[0])
    return min(anchor_times), min(measured_times)


def vocabulary(rnd: random.Random) -> ClosedVocabulary:
    items = {
        "dependencies": [f"package-{i:03d}" for i in range(300)],
        "versions": [f"{a}.{b}.{c}" for a in range(1, 5) for b in range(10) for c in range(10)],
        "statuses": ["clean", "vulnerable"],
        "diagnostics": [f"GHSA-{rnd.getrandbits(40):010x}" for _ in range(500)],
        "citations": [f"CVE-2024-{i:05d}" for i in range(500)],
    }
    return ClosedVocabulary.from_mapping({"schema": "closed-vocabulary@1", "items": items})


def records(vocab: ClosedVocabulary, size: int, rnd: random.Random) -> str:
    kinds = {kind: sorted(values) for kind, values in vocab.kinds.items()}
    owners = [f"private-project-{i}" for i in range(8)]
    lines, total = ["closed-diagnostic@1"], 0
    while total < size:
        dep, version = rnd.choice(kinds["dependencies"]), rnd.choice(kinds["versions"])
        if rnd.random() < 0.5:
            line = f"{dep} {version} clean - - - owner={rnd.choice(owners)}"
        else:
            diag, cite, fix = (rnd.choice(kinds[k]) for k in ("diagnostics", "citations", "versions"))
            line = f"{dep} {version} vulnerable {diag} {cite} {fix} owner={rnd.choice(owners)}"
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines) + "\n"


def bench_cut(size: int, rounds: int) -> float:
    rnd = random.Random(12)
    vocab = vocabulary(rnd)
    text = records(vocab, size, rnd)
    label = PrivatizationLabel(
        privacy_class=PrivacyClass.PRIVATE, weight=0, categories=frozenset({"diagnostic"}), lineage_known=True
    )
    options = ClosedDiagnosticOptions()

    def cut() -> str:
        source = CallProjection.of_texts("artifacts", [text], label)
        plan = DisclosurePlan.from_json(
            {
                "consumer_kind": "model", "consumer_id": "hosted-llm", "purpose": "triage",
                "manifest_digest": source.manifest_digest, "restricted_ref": local_ref(),
                "semantic_invariants": ["dependencies", "diagnostics"], "threat_model": "provider",
                "retention": "none", "max_uses": 1, "target": "hosted", "expires_at": NOW + 60,
            }
        )  # fmt: skip
        prepared = prepare_cut(PROFILE, source, plan, vocab, options, SealAuthority(), now=NOW)
        return prepared.cut.event_id

    found = FLOOR.findall(text)
    floor_time, cut_time = paired(lambda: FLOOR.findall(text), cut, rounds)
    megabytes = len(text.encode()) / 1e6
    print(f"{megabytes:.1f} MB, {len(found):,} records")
    print(f"  regex scan (floor)                       {floor_time:8.3f} s")
    print(f"  prepare + verify + seal                  {cut_time:8.3f} s")
    ratio = cut_time / floor_time
    print(f"cut / floor                     {ratio:.2f}x (goal <= 5)")
    return ratio


def labels(count: int, rnd: random.Random) -> dict[str, PrivatizationLabel]:
    pool = [
        PrivatizationLabel(
            privacy_class=rnd.choice([PrivacyClass.PUBLIC, PrivacyClass.INTERNAL]),
            weight=rnd.randrange(0, 5000),
            categories=frozenset(rnd.sample(["source-code", "documentation", "configuration", "diagnostic"], 2)),
            subjects=frozenset({f"team-{rnd.randrange(20)}"}),
            material_parents=frozenset({f"file-{i}@sha256:{rnd.getrandbits(64):016x}"}),
            lineage_known=True,
        )
        for i in range(1000)
    ]
    return {f"node-{i}": pool[i % len(pool)] for i in range(count)}


def bench_egress(count: int, rounds: int) -> float:
    nodes = labels(count, random.Random(5))
    admit = EgressTarget(remote=True, max_class="internal")
    refuse = EgressTarget(remote=True, max_class="public")
    joined = join_labels(nodes.values())
    decision = decide_egress(nodes, "hosted", admit)
    join_time, admit_time = paired(
        lambda: join_labels(nodes.values()), lambda: decide_egress(nodes, "hosted", admit), rounds
    )
    refuse_time, refused = best(lambda: decide_egress(nodes, "public-only", refuse), 2)
    assert decision.admitted and decision.label == joined and not refused.admitted
    print(f"{count:,} nodes, {len(joined.material_parents):,} distinct parents")
    print(f"  join labels                              {join_time:8.3f} s")
    print(f"  egress decision (admit)                  {admit_time:8.3f} s")
    print(f"  egress decision (refuse, {len(refused.offenders):,} offenders)  {refuse_time:8.3f} s")
    ratio = admit_time / join_time
    print(f"decision / join                 {ratio:.2f}x (goal <= 1.2)")
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="10 MB of records and 100k nodes")
    args = parser.parse_args()
    bench_cut(10_000_000 if args.full else 1_000_000, 5)
    bench_egress(100_000 if args.full else 10_000, 9)


if __name__ == "__main__":
    main()
