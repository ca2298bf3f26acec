"""Build the polyglot relevance set from Debian source packages (standard library only).

Each case is an upstream commit that a Debian source package carries as a patch in
`debian/patches/series`: the query is the patch's message, the gold files are the
source files it modifies, and the tree is the package's upstream tarball with the
series' earlier patches applied (quilt order). Rules and results: README.md.

    python benchmarks/relevance/polyglot/make_cases.py --work /tmp/pg --select  # sources.json
    python benchmarks/relevance/polyglot/make_cases.py --work /tmp/pg           # cases, trees

Only apt's own tools are used, with a private configuration under --work: deb-src lines
for the mirrors and suites of this machine's /etc/apt/sources.list.d/*.sources,
`apt-get update`, `apt-get source --print-uris`, `apt-helper download-file` (checked
against the .dsc's SHA-256) and `dpkg-source -x --skip-patches`; the system's apt
state is not touched. `--select` applies the selection rule to the indexes and writes
the (package, version) list to sources.json; a build reads that list, so a rebuild
fetches the same versions and writes the same cases.json and trees/.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import lzma
import re
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent

LANGS: dict[str, tuple[str, ...]] = {
    "go": (".go",),
    "rust": (".rs",),
    "js": (".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts"),
    "java": (".java",),
}
STABLE_UPDATE = re.compile(r"[+~]deb1[23]u\d+$")
PERMISSIVE = re.compile(r"^(MIT|Expat|BSD-[234]-[Cc]lause\S*|Apache-2\.0|ISC|0BSD|Zlib|Unlicense)$")
MIN_SOURCE_BYTES = 150_000
MAX_SOURCE_BYTES = 6_000_000
MAX_PER_LANG = 30
MIN_WORDS = 6
_SKIPPED = "debian .pc vendor node_modules test tests testdata __tests__ testing examples example benches bench"
SKIP_DIRS = set((_SKIPPED + " benchmark benchmarks dist build target docs doc fuzz .git .github").split())
TEST_NAME = re.compile(r"(_test\.go|\.test\.[a-z]+|\.spec\.[a-z]+|\.min\.js|\.d\.[mc]?ts|Test\.java|Tests\.java)$")
DEP3_FIELDS = re.compile(
    r"^(Description|Subject|Origin|Bug|Bug-[A-Za-z]+|Forwarded|Author|From|Reviewed-by|Acked-by|"
    r"Signed-off-by|Applied-Upstream|Last-Update|Co-authored-by|Co-Authored-By|Gbp-Pq|Date|"
    r"Change-Id|Reviewed-on|Tested-by|Reported-by|Backported-by|Cherry-picked-from|CVE|Index)\s*:",
    re.I,
)
UPSTREAM_ORIGIN = re.compile(r"^(upstream|backport)\b|/commit/|/commits/|/pull/|/merge_requests/", re.I)

SOURCES = HERE / "sources.json"
"""The selection rule's (package, version) list, written by --select, read by a build."""


@dataclass
class Patch:
    name: str
    message: str
    origin: str
    changes: list[tuple[str, str]] = field(default_factory=list)  # (old path, new path)


def source_file(path: str, lang: str) -> bool:
    """A non-test, non-generated source file of the language, outside vendored and test dirs."""
    parts = path.split("/")
    if any(p in SKIP_DIRS for p in parts[:-1]) or not path.endswith(LANGS[lang]):
        return False
    return TEST_NAME.search(parts[-1]) is None


def lang_of(package: str) -> str | None:
    if package.startswith("golang-"):
        return "go"
    if package.startswith("rust-"):
        return "rust"
    if package.startswith("node-"):
        return "js"
    if package.startswith("lib") and package.endswith("-java"):
        return "java"
    return None


def _strip(path: str) -> str:
    path = path.split("\t")[0].strip()
    return path if path == "/dev/null" else path.split("/", 1)[-1]


def parse_patch(name: str, text: str) -> Patch:
    """Message, DEP-3 origin and changed paths of one quilt patch (format-patch or DEP-3)."""
    head, _, _ = text.partition("\n--- ")
    head = re.split(r"^(?:diff --git |Index: |={5,})", head, maxsplit=1, flags=re.M)[0]
    lines = head.split("\n")
    origin = ""
    msg: list[str] = []
    subject = ""
    if lines and re.match(r"^From [0-9a-f]{40} ", lines[0]):
        body_at = next((i for i, ln in enumerate(lines) if ln == ""), len(lines))
        hdr = "\n".join(lines[:body_at])
        m = re.search(r"^Subject: (.*(?:\n[ \t].*)*)", hdr, re.M)
        subject = re.sub(r"^\[PATCH[^\]]*\]\s*", "", " ".join((m.group(1) if m else "").split()))
        lines = lines[body_at + 1 :]
        if subject:
            msg.extend([subject, ""])
    cont = False
    for ln in lines:
        if ln.rstrip() == "---":
            break
        m = DEP3_FIELDS.match(ln)
        if m:
            key = m.group(1).lower()
            value = ln[m.end() :].strip()
            cont = key in ("description", "subject")
            if key == "origin":
                origin = value
            if cont and value:
                msg.append(value)
            continue
        if cont and ln.startswith((" ", "\t")):
            msg.append(ln.strip() if ln.strip() != "." else "")
            continue
        cont = False
        if not re.match(r"^[A-Z][A-Za-z-]+: ", ln):  # other trailers dropped
            msg.append(ln.rstrip())
    message = "\n".join(msg).strip()
    message = re.sub(r"\n{3,}", "\n\n", message)
    changes = [(_strip(a), _strip(b)) for a, b in re.findall(r"^--- (.+)\n\+\+\+ (.+)$", text, re.M)]
    return Patch(name, message, origin, changes)


def eligible(patch: Patch, lang: str, existing: set[str]) -> tuple[list[str] | None, str]:
    """The gold files when the patch is a case, else None and the reason."""
    if not UPSTREAM_ORIGIN.search(patch.origin):
        return None, "origin not upstream"
    if len(patch.message.split()) < MIN_WORDS:
        return None, "message under 6 words"
    if re.match(r"^(Merge|Revert|Bump|Release|Version)\b", patch.message):
        return None, "merge/revert/bump/release subject"
    gold: set[str] = set()
    for old, new in patch.changes:
        for p in (old, new):
            if p != "/dev/null" and source_file(p, lang):
                if old != new:
                    return None, "adds, deletes or renames a source file"
                gold.add(p)
    if not gold:
        return None, "no source file of the language"
    if not gold <= existing:
        return None, "modifies a file not in the tree"
    if len(gold) > 4:
        return None, "more than 4 source files"
    return sorted(gold), ""


def series(debian: Path) -> list[tuple[str, int]]:
    path = debian / "patches" / "series"
    if not path.is_file():
        return []
    out = []
    for ln in path.read_text(errors="replace").splitlines():
        ln = ln.split("#", 1)[0].split()
        if ln:
            level = next((int(x[2:]) for x in ln[1:] if x.startswith("-p")), 1)
            out.append((ln[0], level))
    return out


def licenses(debian: Path) -> list[str]:
    """License short names of the `Files: *` stanzas in a machine-readable debian/copyright."""
    text = (debian / "copyright").read_text(errors="replace") if (debian / "copyright").is_file() else ""
    found = []
    for st in text.split("\n\n"):
        if re.search(r"^Files:\s*\*\s*$", st, re.M):
            m = re.search(r"^License:\s*(.+)$", st, re.M)
            if m:
                found.append(m.group(1).strip())
    return found


def permissive(debian: Path) -> bool:
    names = licenses(debian)
    return bool(names) and all(
        all(PERMISSIVE.match(x.strip()) for x in re.split(r"\s+or\s+|\s+and\s+|,", n, flags=re.I)) for n in names
    )


def tree_files(root: Path, lang: str) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and source_file(p.relative_to(root).as_posix(), lang)
    }


def write_tree(files: dict[str, bytes], out: Path) -> None:
    """A deterministic tar.xz: sorted paths, fixed mtime/owner/mode."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for path in sorted(files):
            info = tarfile.TarInfo(path)
            info.size, info.mtime, info.mode = len(files[path]), 0, 0o644
            tar.addfile(info, io.BytesIO(files[path]))
    out.write_bytes(lzma.compress(buf.getvalue(), preset=9 | lzma.PRESET_EXTREME))


# ---------------------------------------------------------------- apt plumbing


class Apt:
    def __init__(self, work: Path, sources: Path) -> None:
        self.work = work
        for d in ("state/lists/partial", "cache/archives/partial", "etc/sources.list.d", "etc/preferences.d"):
            (work / d).mkdir(parents=True, exist_ok=True)
        stanzas = []
        for st in sorted(sources.glob("*.sources")):
            for block in st.read_text().split("\n\n"):
                d = dict(re.findall(r"^(\S+):\s*(.*)$", block, re.M))
                if "deb" in d.get("Types", "").split() and d.get("URIs"):  # the same suites, as deb-src
                    key = d.get("Signed-By", "/usr/share/keyrings/debian-archive-keyring.gpg")
                    stanzas.append(
                        f"Types: deb-src\nURIs: {d['URIs']}\nSuites: {d['Suites']}\n"
                        f"Components: main\nSigned-By: {key}\n"
                    )
        (work / "etc/sources.list.d/src.sources").write_text("\n".join(sorted(set(stanzas))))
        self.opts = [
            "-o", f"Dir::Etc::SourceList={work}/etc/none.list",
            "-o", f"Dir::Etc::SourceParts={work}/etc/sources.list.d",
            "-o", f"Dir::Etc::PreferencesParts={work}/etc/preferences.d",
            "-o", f"Dir::State={work}/state", "-o", f"Dir::Cache={work}/cache",
            "-o", "APT::Sandbox::User=root", "-o", "Acquire::GzipIndexes=false", "-q",
        ]  # fmt: skip

    def update(self) -> None:
        subprocess.run(["apt-get", *self.opts, "update"], check=True, capture_output=True)

    def indexes(self) -> list[dict[str, str]]:
        recs = []
        for f in sorted((self.work / "state/lists").glob("*_source_Sources")):
            for block in f.read_text(errors="replace").split("\n\n"):
                d = dict(re.findall(r"^(Package|Version|Format):\s*(.*)$", block, re.M))
                if "Package" in d:
                    recs.append(d)
        return recs

    def uris(self, package: str, version: str) -> list[tuple[str, str, str]]:
        out = subprocess.run(
            ["apt-get", *self.opts, "source", "--print-uris", f"{package}={version}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        return [(u, n, d) for u, n, _s, d in re.findall(r"^'(\S+)' (\S+) (\d+) (\S+)$", out, re.M)]

    def download(self, dest: Path, files: list[tuple[str, str, str]]) -> None:
        dest.mkdir(parents=True, exist_ok=True)
        for uri, name, digest in files:
            if not (dest / name).is_file():
                subprocess.run(
                    ["/usr/lib/apt/apt-helper", *self.opts, "download-file", uri, str(dest / name), digest],
                    check=True,
                    capture_output=True,
                )

    def debian_dir(self, package: str, version: str) -> Path:
        """Only the .dsc and the debian tarball, unpacked: enough to judge a package's patches."""
        dest = self.work / "src" / f"{package}_{version}"
        files = [f for f in self.uris(package, version) if f[1].endswith((".dsc", ".debian.tar.xz"))]
        self.download(dest, files)
        if not (dest / "debian").is_dir():
            tar = next(dest.glob("*.debian.tar.xz"))
            subprocess.run(["tar", "-xJf", tar.name], cwd=dest, check=True)
        return dest / "debian"

    def fetch(self, package: str, version: str) -> Path:
        """All the source package's files, unpacked without its patches."""
        dest = self.work / "src" / f"{package}_{version}"
        if (dest / "unpacked").is_dir():
            return dest / "unpacked"
        self.download(dest, self.uris(package, version))
        dsc = next(dest.glob("*.dsc"))
        subprocess.run(
            ["dpkg-source", "--skip-patches", "-x", dsc.name, "unpacked"], cwd=dest, check=True, capture_output=True
        )
        return dest / "unpacked"


# ---------------------------------------------------------------- the build


def dpkg_newer(a: str, b: str) -> bool:
    return subprocess.run(["dpkg", "--compare-versions", a, "gt", b]).returncode == 0


def select(apt: Apt) -> list[tuple[str, str]]:
    """Per package of a language (by name), its newest stable-update version (+debNNuM)."""
    best: dict[str, str] = {}
    for d in apt.indexes():
        p, v = d["Package"], d["Version"]
        quilt = d.get("Format", "").startswith("3.0 (quilt)")
        if lang_of(p) and STABLE_UPDATE.search(v) and quilt and (p not in best or dpkg_newer(v, best[p])):
            best[p] = v
    return sorted(best.items())


def apply(tree: Path, patch: Path, level: int) -> bool:
    proc = subprocess.run(
        ["patch", f"-p{level}", "--batch", "--forward", "--no-backup-if-mismatch", "-s", "-r", "-", "-i", str(patch)],
        cwd=tree,
        capture_output=True,
    )
    return proc.returncode == 0


def package_cases(apt: Apt, package: str, version: str, log: list[str]) -> list[dict[str, object]]:
    lang = lang_of(package)
    assert lang
    debian = apt.debian_dir(package, version)
    if not permissive(debian):
        log.append(f"{package} {version}: license {licenses(debian)} not permissive")
        return []
    heads = [parse_patch(n, (debian / "patches" / n).read_text(errors="replace")) for n, _ in series(debian)]
    if not any(eligible(p, lang, {q for ch in p.changes for q in ch})[0] for p in heads):
        log.append(f"{package} {version}: no patch passes the header rules")
        return []
    src = apt.fetch(package, version)
    return walk_series(src, apt.work / "apply" / f"{package}_{version}", package, version, log)


def walk_series(src: Path, work: Path, package: str, version: str, log: list[str]) -> list[dict[str, object]]:
    """The cases of one unpacked source package: each patch judged on the tree its
    earlier patches made (a copy of `src` in `work`), then applied; no network."""
    lang = lang_of(package)
    assert lang
    debian = src / "debian"
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(src, work, symlinks=True, ignore=shutil.ignore_patterns("debian"))
    out: list[dict[str, object]] = []
    for i, (name, level) in enumerate(series(debian)):
        pfile = debian / "patches" / name
        patch = parse_patch(name, pfile.read_text(errors="replace"))
        files = tree_files(work, lang)
        size = sum(len(b) for b in files.values())
        gold, why = eligible(patch, lang, set(files))
        if gold and not MIN_SOURCE_BYTES <= size <= MAX_SOURCE_BYTES:
            gold, why = None, f"tree has {size} bytes of source"
        log.append(f"{package} {version} {name}: {'case' if gold else why}")
        if gold:
            digest = hashlib.sha256(b"".join(p.encode() + b"\0" + files[p] for p in sorted(files))).hexdigest()
            out.append(
                {
                    "id": f"{package}-{i + 1:02d}",
                    "lang": lang,
                    "package": package,
                    "version": version,
                    "patch": name,
                    "series_index": i,
                    "origin": patch.origin,
                    "query": patch.message,
                    "gold": gold,
                    "files": len(files),
                    "source_bytes": size,
                    "tree": f"{package}_{version}_{i + 1:02d}.tar.xz".replace("~", "_").replace(":", "_"),
                    "tree_sha256": digest,
                    "_files": files,
                }
            )
        if not apply(work, pfile, level):
            log.append(f"{package} {version} {name}: does not apply, series stops")
            break
    return out


def evenly(items: list[dict[str, object]], n: int) -> list[dict[str, object]]:
    if len(items) <= n:
        return items
    return [items[(k * len(items)) // n] for k in range(n)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, required=True, help="scratch folder (apt state, downloads)")
    ap.add_argument("--apt-sources", type=Path, default=Path("/etc/apt/sources.list.d"))
    ap.add_argument("--select", action="store_true", help="write the selection rule's packages to sources.json")
    ap.add_argument("--out", type=Path, default=HERE, help="where cases.json and trees/ go")
    args = ap.parse_args()
    apt = Apt(args.work.resolve(), args.apt_sources)
    apt.update()
    if args.select:
        SOURCES.write_text(json.dumps(select(apt), indent=0) + "\n")
        return 0
    chosen = [(str(p), str(v)) for p, v in json.loads(SOURCES.read_text())]
    log: list[str] = []
    by_lang: dict[str, list[dict[str, object]]] = {k: [] for k in LANGS}
    for package, version in chosen:
        try:
            for case in package_cases(apt, package, version, log):
                by_lang[str(case["lang"])].append(case)
        except subprocess.CalledProcessError as exc:  # the mirror does not serve every file
            log.append(f"{package} {version}: a file is not served ({' '.join(map(str, exc.cmd[-3:-1]))})")
    cases = [c for lang in LANGS for c in evenly(by_lang[lang], MAX_PER_LANG)]
    trees = args.out / "trees"
    trees.mkdir(parents=True, exist_ok=True)
    for c in cases:
        write_tree(c.pop("_files"), trees / str(c["tree"]))  # type: ignore[arg-type]
    (args.out / "cases.json").write_text(json.dumps(cases, indent=1, ensure_ascii=False) + "\n")
    (args.work / "build.log").write_text("\n".join(log) + "\n")
    tally: dict[str, int] = {}
    for line in log:  # "package version[ patch]: outcome"; byte counts folded into one reason
        reason = re.sub(r"\d+ bytes|\(.*\)|\[.*\]", "N", line.split(": ", 1)[1])
        tally[reason] = tally.get(reason, 0) + 1
    for reason, n in sorted(tally.items(), key=lambda kv: -kv[1]):
        print(f"{n:5d}  {reason}")
    print(f"{len(cases)} cases: " + ", ".join(f"{k} {sum(c['lang'] == k for c in cases)}" for k in LANGS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
