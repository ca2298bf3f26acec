"""The symbol graph's index, its seeds and an integer personalized PageRank."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from lychd_core.families import RankingCandidate, RankingQuery
from lychd_core.ranking.terms import identifiers, path_terms, terms
from lychd_ranking.imports import family, import_keys, module_keys

ONE = 1 << 32
"""Fixed-point one: ranks are integers summing to about ``ONE``."""
CODE_WEIGHT = 3
"""An identifier written like code (``snake_case``, ``CamelCase``, dotted) seeds three times as much."""


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def module_names(path: str) -> list[str]:
    """Dotted module names a path may be imported as (``src/pkg/a/b.py`` -> ``pkg.a.b``, ``a.b``, ``b``)."""
    parts = path.rsplit(".", 1)[0].split("/") if path.endswith(".py") else []
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return [".".join(parts[start:]) for start in range(len(parts))]


@dataclass(frozen=True, slots=True)
class SymbolIndex:
    """Who defines which name, and each file's links, resolved only when PageRank asks.

    The forward push reaches the files near the seeds (a few hundred in a tree of ten
    thousand), so each file's out-links are resolved on first use and kept: building
    them all up front made the index cost grow with the tree, not with what is ranked.
    """

    paths: tuple[str, ...]
    definers: dict[str, tuple[int, ...]]
    references: tuple[object, ...]
    """Per file: its ``symbols.references`` fact as given (filtered to strings on use)."""
    imports: tuple[list[tuple[str, tuple[str, ...]]], ...]
    """Per file: (import as written, the module keys it may name, most specific first)."""
    modules: dict[str, list[int]]
    resolved: dict[int, dict[int, tuple[int, str]]] = field(default_factory=dict)

    @classmethod
    def of(cls, candidates: tuple[RankingCandidate, ...], max_definers: int, languages: bool = False) -> SymbolIndex:
        """The index; ``languages`` also resolves JavaScript/TypeScript, Go, Rust and Java imports
        (revision 2, :mod:`lychd_ranking.imports`), where revision 1 resolved Python's only."""
        paths = tuple(c.path for c in candidates)
        definers: dict[str, list[int]] = {}
        references: list[object] = []
        imports: list[list[tuple[str, tuple[str, ...]]]] = []
        for position, candidate in enumerate(candidates):
            facts: dict[str, object] = candidate.facts if isinstance(candidate.facts, dict) else {}
            found = facts.get("symbols")
            symbols: dict[str, object] = found if isinstance(found, dict) else {}
            for name in set(_strings(symbols.get("defines"))):
                if len(name) >= 3 and not name.startswith("__"):
                    definers.setdefault(name, []).append(position)
            references.append(symbols.get("references"))
            if languages and family(paths[position]) is not None:
                imports.append(import_keys(paths[position], facts))
                continue
            written = _imports(facts.get("imports"))
            imports.append([(module, (_target(paths[position], level, module),)) for level, module in written])
        usable = {name: tuple(found) for name, found in definers.items() if len(found) <= max_definers}
        # Only the module names some file imports are indexed (not every dotted suffix of every path).
        wanted = {key for found in imports for _, keys in found for key in keys}
        modules: dict[str, list[int]] = {}
        if wanted:
            for position, path in enumerate(paths):
                names = module_keys(path) if languages and family(path) is not None else module_names(path)
                for module in names:
                    if module in wanted:
                        modules.setdefault(module, []).append(position)
        return cls(paths, usable, tuple(references), tuple(imports), modules)

    def edges(self, position: int) -> dict[int, tuple[int, str]]:
        """The file's out-links: target -> (integer weight, one name that links them)."""
        out = self.resolved.get(position)
        if out is not None:
            return out
        out = {}
        usable = self.definers
        for name in _strings(self.references[position]):
            for target in usable.get(name, ()):
                if target != position:
                    weight, first = out.get(target, (0, name))
                    out[target] = (weight + 12 // len(usable[name]), first)
        for module, keys in self.imports[position]:
            key = next((k for k in keys if k in self.modules), None)
            targets = self.modules.get(key, []) if key is not None else []
            # a key of another language (``go:src/tui``) may name a package of many files: the link is split
            share = max(1, 24 // len(targets)) if key is not None and ":" in key else 24
            for target in targets:
                if target != position:
                    weight, first = out.get(target, (0, f"import {module or '.'}"))
                    out[target] = (weight + share, first)
        self.resolved[position] = out
        return out


def _imports(value: object) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for fact in value if isinstance(value, list) else ():
        if not isinstance(fact, dict):
            continue
        raw_level, raw_module = fact.get("level"), fact.get("module")
        level = raw_level if isinstance(raw_level, int) else 0
        module = raw_module if isinstance(raw_module, str) else ""
        names: list[str] = [
            n["name"] for n in fact.get("names", ()) if isinstance(n, dict) and isinstance(n.get("name"), str)
        ]
        if fact.get("statement") == "import":
            found.extend((0, name) for name in names)
        else:
            found.append((level, module))
            found.extend((level, f"{module}.{name}" if module else name) for name in names if name != "*")
    return found


def _target(path: str, level: int, module: str) -> str:
    """The dotted module an import in ``path`` names (a relative one resolved against its package)."""
    if level:
        package = path.split("/")[:-1]
        base = package[: len(package) - (level - 1)] if level > 1 else package
        dotted = ".".join([*base[-2:], module] if module else base[-2:])
        module = dotted.strip(".")
    return module


def seeds_of(index: SymbolIndex, query: RankingQuery, packages: bool = False) -> tuple[dict[int, int], dict[int, str]]:
    """Restart weights per file and why each seed is one. ``packages`` (revision 4): a
    package's ``__init__.py`` is named by its directory (``config/__init__.py`` by
    ``config``), at half the weight of a module named by its file."""
    seeds: dict[int, int] = {}
    reasons: dict[int, list[str]] = {}

    def add(position: int, weight: int, why: str) -> None:
        seeds[position] = seeds.get(position, 0) + weight
        reasons.setdefault(position, []).append(why)

    for text, factor in ((query.text, 2), (query.history, 1)):
        for word in sorted(identifiers(text)):
            found = index.definers.get(word)
            if found:
                code_like = "_" in word.strip("_") or word[1:] != word[1:].lower() or not word.isalpha()
                weight = factor * (CODE_WEIGHT if code_like else 1)
                for position in found:
                    add(position, weight * 12 // len(found), f"defines {word}")
    query_terms = set(terms(query.text))
    for position, path in enumerate(index.paths):
        parts = path_terms(path)
        if parts and parts[-1] in query_terms and parts[-1] != "init":
            add(position, 2 * 12 * CODE_WEIGHT, "named in the query")
        elif packages and len(parts) > 1 and parts[-1] == "init" and parts[-2] in query_terms:
            # the package is what the query names; its __init__ is one of several files in it
            add(position, 12 * CODE_WEIGHT, "package named in the query")
    required = set(query.required_paths)
    for position, path in enumerate(index.paths):
        if path in required:
            add(position, 12, "required")
    return seeds, {p: "seed: " + ", ".join(sorted(set(w))[:4]) for p, w in reasons.items()}


def pagerank(
    index: SymbolIndex, seeds: dict[int, int], damping: int, precision: int
) -> tuple[list[int], dict[int, tuple[int, str]]]:
    """Integer personalized PageRank by forward push (Andersen, Chung and Lang, 2006).

    Mass starts at the seeds; a file holding at least ``2**-precision`` of it per outgoing
    link keeps ``100 - damping`` percent and pushes the rest along its links, in FIFO
    order from the seeds in position order. The work is bounded by the precision, not by
    the number of files. What was never pushed stays with the file that holds it.
    Also returns, per file reached, the link that brought it the largest share.
    """
    total_seed = sum(seeds.values())
    residual = {position: ONE * weight // total_seed for position, weight in sorted(seeds.items())}
    ranks = [0] * len(index.paths)
    unit = ONE >> precision
    via: dict[int, tuple[int, str]] = {}
    best: dict[int, int] = {}
    queue = deque(sorted(residual))
    queued = set(queue)
    while queue:
        source = queue.popleft()
        queued.discard(source)
        mass = residual.pop(source, 0)
        edges = index.edges(source)
        kept = mass * (100 - damping) // 100
        ranks[source] += kept
        out = sum(weight for weight, _ in edges.values())
        if not out:
            ranks[source] += mass - kept
            continue
        spread = mass - kept
        for target, (weight, name) in edges.items():
            share = spread * weight // out
            if not share:
                continue
            held = residual.get(target, 0) + share
            residual[target] = held
            if share > best.get(target, 0):
                best[target], via[target] = share, (source, name)
            if target not in queued and held >= unit * max(1, len(index.edges(target))):
                queue.append(target)
                queued.add(target)
    for position, held in residual.items():
        ranks[position] += held
    return ranks, via
