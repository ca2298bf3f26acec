"""Privacy Cut on worst-case input: censor + verify must stay linear (issue 27).

    python benchmarks/bench_privacy_worst.py            # 0.1 MB and 1 MB (quick)
    python benchmarks/bench_privacy_worst.py --full     # 1 MB and 10 MB (the issue's sizes)
    python benchmarks/bench_privacy_worst.py --full --shuffled   # owner cases, owners in random order

Two inputs, each at a small and a ten-times larger size, timed side by side:

1. *long lines*: every line outside the grammar, 64 KB each (half without a space, half
   ``a a a ...``). The censor (``closed-diagnostic@1``) and the core verifier's parser
   each refuse it; both are timed. Before issue 27 one such line of 10k characters cost
   16.6 s (an unanchored pattern retried at every position).
2. *many owners*: distinct owners x distinct vocabulary items (10k x 10k per MB, so
   100k x 100k at 10 MB), every record valid; ``prepare_cut`` end to end (censor, verifier,
   seal). Before issue 27, 20k x 20k cost 289 s (every owner against every item).
3. *short owners*: as 2, with owners (8 characters) shorter than the items, so none can
   be left out of the verifier's search of the items.

Goal: large / small <= 12x for a tenfold input (linear, with slack for cache effects).
The owners of cases 2 and 3 ascend through the text; the owner tries are built in the text's order,
which that helps, so ``--shuffled`` permutes them (the same owners, reported alike).
The ordinary-report goal (<= 5x one regex scan) is ``bench_privacy.py``'s. Besides the regex
floor, each case reports how a set of the same texts' owner values alone scales (reported only).
"""

from __future__ import annotations

import argparse
import gc
import random
import re
import time
from collections.abc import Callable

from lychd_closed_diagnostic import PROFILE, ClosedDiagnosticOptions

from lychd_core.errors import CutRefused
from lychd_core.labels import PrivacyClass, PrivatizationLabel
from lychd_core.privacy import CallProjection, ClosedVocabulary, SealAuthority, local_ref, parse_text
from lychd_core.privacy.plan import DisclosurePlan
from lychd_core.privacy.prepare import prepare_cut

NOW = 1_800_000_000
LABEL = PrivatizationLabel(
    privacy_class=PrivacyClass.PRIVATE, weight=0, categories=frozenset({"diagnostic"}), lineage_known=True
)
OPTIONS = ClosedDiagnosticOptions()
LINE = 64 * 1024
RECORD_BYTES = 100
FLOOR = re.compile(r"^(\S+) (\S+) (\S+) (\S+) (\S+) (\S+) owner=(\S+)$", re.M)  # bench_privacy.py's anchor
OWNER_VALUES = re.compile(r" owner=(\S*)$", re.M)


def set_floor(text: str) -> frozenset[str]:
    """A second reference, reported only: the set of a text's owner values (one scan, one hash set).
    The cut must hold every distinct value in sets; this shows what that alone scales to here."""
    return frozenset(OWNER_VALUES.findall(text))


def timed(fn: Callable[[], object]) -> float:
    """CPU seconds of this process (the machine is shared: wall time would count other work)."""
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


def plan(source: CallProjection) -> DisclosurePlan:
    return DisclosurePlan.from_json(
        {
            "consumer_kind": "model", "consumer_id": "hosted-llm", "purpose": "triage",
            "manifest_digest": source.manifest_digest, "restricted_ref": local_ref(),
            "semantic_invariants": ["dependencies"], "threat_model": "provider",
            "retention": "none", "max_uses": 1, "target": "hosted", "expires_at": NOW + 60,
        }
    )  # fmt: skip


def vocabulary(items: int) -> ClosedVocabulary:
    return ClosedVocabulary.from_mapping(
        {
            "schema": "closed-vocabulary@1",
            "items": {
                "dependencies": [f"package-{i:07d}" for i in range(items)],
                "versions": [f"{a}.{b}.{c}" for a in range(1, 5) for b in range(10) for c in range(10)],
                "statuses": ["clean", "vulnerable"],
                "diagnostics": [f"GHSA-{i:04d}-wxyz-{i:04d}" for i in range(1000)],
                "citations": [f"CVE-2024-{i:05d}" for i in range(1000)],
            },
        }
    )


def long_lines(size: int) -> str:
    """``size`` bytes of 64 KB lines, every one outside the grammar (the last one shorter)."""
    lines, total = [], 0
    while total < size:
        width = min(LINE, size - total)
        lines.append("x" * width if len(lines) % 2 else ("a " * width)[:width])
        total += width + 1
    return "closed-diagnostic@1\n" + "\n".join(lines) + "\n"


def many_owners(
    size: int, owner: str = "private-project-{:07d}", *, shuffled: bool = False
) -> tuple[str, ClosedVocabulary]:
    """Distinct owners (``owner`` formats the record number, or a permutation of it) x as many items."""
    count = size // RECORD_BYTES
    numbers = list(range(count))
    if shuffled:
        random.Random(27).shuffle(numbers)
    lines = ["closed-diagnostic@1"]
    for i in range(count):
        version, fix = f"{1 + i % 4}.{i % 10}.{i // 10 % 10}", f"{1 + i % 4}.{i % 10}.9"
        lines.append(
            f"package-{i:07d} {version} vulnerable GHSA-{i % 1000:04d}-wxyz-{i % 1000:04d} "
            f"CVE-2024-{i % 1000:05d} {fix} owner={owner.format(numbers[i])}"
        )
    return "\n".join(lines) + "\n", vocabulary(count)


def censor_and_verify_refusal(text: str, vocab: ClosedVocabulary) -> None:
    source = CallProjection.of_texts("artifacts", [text], LABEL)
    for check in (
        lambda: PROFILE.censor(source, plan(source), vocab, OPTIONS),
        lambda: parse_text(text, PROFILE.grammar, vocab, where="text", candidate=False),
    ):
        try:
            check()
        except CutRefused:
            continue
        raise AssertionError("a worst-case text was not refused")


def prepare(text: str, vocab: ClosedVocabulary) -> None:
    source = CallProjection.of_texts("artifacts", [text], LABEL)
    prepared = prepare_cut(PROFILE, source, plan(source), vocab, OPTIONS, SealAuthority(), now=NOW)  # type: ignore[arg-type]
    assert prepared.verification.verdict == "pass"


def compare(
    name: str,
    small: Callable[[], object],
    large: Callable[[], object],
    texts: tuple[str, str],
    *,
    with_set: bool = True,
) -> float:
    """Best of three of each size and of the regex floor on the same texts, alternating, so load
    falls on all alike. The floor is linear by construction, so its own large / small ratio shows
    what this machine's memory hierarchy adds to a tenfold scan."""
    keys = ("small", "large", "floor small", "floor large", "set small", "set large")
    runs: dict[str, list[float]] = {key: [] for key in keys}
    for _ in range(3):
        runs["floor small"].append(timed(lambda: FLOOR.findall(texts[0])))
        runs["set small"].append(timed(lambda: set_floor(texts[0])))
        runs["small"].append(timed(small))
        runs["floor large"].append(timed(lambda: FLOOR.findall(texts[1])))
        runs["set large"].append(timed(lambda: set_floor(texts[1])))
        runs["large"].append(timed(large))
    best = {key: min(values) for key, values in runs.items()}
    ratio, floor_ratio = best["large"] / best["small"], best["floor large"] / best["floor small"]
    set_ratio = best["set large"] / max(best["set small"], 1e-9)
    sizes = [len(text.encode()) / 1e6 for text in texts]
    print(name)
    print(f"  {sizes[0]:5.1f} MB   cut {best['small']:8.3f} s   regex floor {best['floor small']:8.3f} s")
    print(f"  {sizes[1]:5.1f} MB   cut {best['large']:8.3f} s   regex floor {best['floor large']:8.3f} s")
    print(f"  large / small: cut {ratio:6.2f}x (goal <= 12), regex floor {floor_ratio:6.2f}x, "
          f"cut / floor scaling {ratio / floor_ratio:5.2f}")  # fmt: skip
    if with_set:
        print(f"  (reported only) a set of the owner values, same texts: {set_ratio:6.2f}x")
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="1 MB and 10 MB (default: 0.1 MB and 1 MB)")
    parser.add_argument("--shuffled", action="store_true", help="owners in random order through the text")
    args = parser.parse_args()
    sizes = (1_000_000, 10_000_000) if args.full else (100_000, 1_000_000)
    empty = vocabulary(10)
    small_lines, large_lines = long_lines(sizes[0]), long_lines(sizes[1])
    compare(
        "long lines outside the grammar (censor + verifier refuse)",
        lambda: censor_and_verify_refusal(small_lines, empty),
        lambda: censor_and_verify_refusal(large_lines, empty),
        (small_lines, large_lines),
        with_set=False,  # these texts hold no owner value
    )
    (small_text, small_vocab), (large_text, large_vocab) = (many_owners(size, shuffled=args.shuffled) for size in sizes)
    order = "in random order" if args.shuffled else "ascending"
    print(
        f"(many owners: {sizes[0] // RECORD_BYTES:,} and {sizes[1] // RECORD_BYTES:,} owners x as many items, {order})"
    )
    compare(
        "distinct owners x vocabulary items (prepare + verify + seal passes)",
        lambda: prepare(small_text, small_vocab),
        lambda: prepare(large_text, large_vocab),
        (small_text, large_text),
    )
    # Owners shorter than the items: the verifier cannot leave any owner out of its automaton.
    (small_text, small_vocab), (large_text, large_vocab) = (
        many_owners(size, "p{:07d}", shuffled=args.shuffled) for size in sizes
    )
    compare(
        "distinct owners shorter than the items (prepare + verify + seal passes)",
        lambda: prepare(small_text, small_vocab),
        lambda: prepare(large_text, large_vocab),
        (small_text, large_text),
    )


if __name__ == "__main__":
    main()
