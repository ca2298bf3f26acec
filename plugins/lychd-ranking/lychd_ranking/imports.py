"""Import resolution beyond Python (``symbol-graph`` revision 2): which candidate files an import names.

Each file has *module keys*, the names it can be imported by; each import gives keys
to look up, most specific first (the first that names a candidate wins). Keys carry
their language family, so a Go package never matches a Java class:

- JavaScript/TypeScript: a relative specifier (``./vdom/create``, ``../util.js``)
  resolved against the importing file's folder, extension dropped; a file is known by
  its path without extension, an ``index`` file also by its folder. Bare specifiers
  (packages) name nothing in the tree.
- Go: an import path whose first element has a dot (``github.com/o/r/src/tui``) names
  the files of every folder ending in one of its suffixes (longest first); standard
  library paths (``net/http``) name nothing.
- Rust: ``crate::``, ``self::`` and ``super::`` paths resolved to a module path under
  ``src/`` (``a/b.rs``, ``a/b/mod.rs``), the path itself then its parent (the last
  segment may be an item); ``mod name;`` names the child module's file.
- Java: ``a.b.C`` names the file ``a/b/C.java``, ``a.b.*`` every file of ``a/b``.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

JS_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_RUST_ROOTS = frozenset({"lib", "main", "mod"})
_BRACES = re.compile(r"::\s*\{.*$|::\*$|\s+as\s+\w+$")


def family(path: str) -> str | None:
    """The import family of a file, by its extension (``None``: Python or not resolved here)."""
    if path.endswith(JS_EXTENSIONS):
        return "js"
    for suffix, name in ((".go", "go"), (".rs", "rust"), (".java", "java")):
        if path.endswith(suffix):
            return name
    return None


def module_keys(path: str) -> list[str]:
    """The keys a file can be imported by."""
    kind = family(path)
    folder, name = posixpath.split(path)
    stem = name.rsplit(".", 1)[0]
    if kind == "js":
        keys = [f"js:{posixpath.join(folder, stem)}"]
        return [*keys, f"js:{folder}"] if stem == "index" else keys
    if kind == "go":
        parts = folder.split("/") if folder else []
        return [f"go:{'/'.join(parts[i:])}" for i in range(len(parts))]
    if kind == "rust":
        module = _rust_module(path)
        return [] if module is None else [f"rust:{module}"]
    if kind == "java":
        parts = [*folder.split("/"), stem] if folder else [stem]
        classes = [f"java:{'.'.join(parts[i:])}" for i in range(len(parts) - 1)]
        packages = [f"java.*:{'.'.join(parts[i:-1])}" for i in range(len(parts) - 1)]
        return classes + packages
    return []


def import_keys(path: str, facts: dict[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """Per import of a non-Python file: (the import as written, its keys, most specific first)."""
    kind = family(path)
    found: list[tuple[str, tuple[str, ...]]] = []
    if kind is None:
        return found
    for fact in facts.get("imports") or ():
        module = fact.get("module") if isinstance(fact, dict) else None
        if isinstance(module, str) and module:
            text = fact.get("text")
            wildcard = kind == "java" and isinstance(text, str) and text.rstrip("; ").endswith(".*")
            keys = _keys(kind, path, f"{module}.*" if wildcard and not module.endswith(".*") else module)
            if keys:
                found.append((module, keys))
    if kind == "rust":  # mod name; declares a child module in its own file
        parent = _rust_module(path)
        for definition in facts.get("definitions") or ():
            if isinstance(definition, dict) and definition.get("kind") == "module" and parent is not None:
                name, body = definition.get("name"), definition.get("body")
                if isinstance(name, str) and body == "none":
                    found.append((f"mod {name}", (f"rust:{parent}::{name}" if parent else f"rust:{name}",)))
    return found


def _keys(kind: str, path: str, module: str) -> tuple[str, ...]:
    if kind == "js":
        if not module.startswith("."):
            return ()
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), module))
        for extension in JS_EXTENSIONS:
            if target.endswith(extension):
                target = target[: -len(extension)]
                break
        return (f"js:{target}",)
    if kind == "go":
        parts = module.split("/")
        if "." not in parts[0]:
            return ()
        return tuple(f"go:{'/'.join(parts[i:])}" for i in range(1, len(parts)))
    if kind == "rust":
        resolved = _rust_path(path, _BRACES.sub("", module.strip()))
        if not resolved:
            return ()
        parts = resolved.split("::")
        return tuple(f"rust:{'::'.join(parts[:end])}" for end in range(len(parts), 0, -1))
    dotted = module.removeprefix("static ").strip()
    if dotted.endswith(".*"):
        return (f"java.*:{dotted[:-2]}",)
    parent = dotted.rsplit(".", 1)[0]
    return (f"java:{dotted}", f"java:{parent}") if "." in dotted else (f"java:{dotted}",)


def _rust_module(path: str) -> str | None:
    """``src/a/b.rs`` -> ``a::b``; ``src/a/mod.rs`` -> ``a``; ``src/lib.rs`` -> ``""`` (the crate root)."""
    parts = path.split("/")
    if "src" not in parts:
        return None
    inner = parts[len(parts) - 1 - parts[::-1].index("src") + 1 :]
    inner[-1] = inner[-1].removesuffix(".rs")
    if inner[-1] in _RUST_ROOTS:
        inner = inner[:-1]
    return "::".join(inner)


def _rust_path(path: str, used: str) -> str | None:
    """A ``use`` path as a crate-relative module path, or None for another crate."""
    segments = [s for s in used.split("::") if s]
    if not segments:
        return None
    here = _rust_module(path)
    if segments[0] == "crate":
        return "::".join(segments[1:])
    if segments[0] in ("self", "super") and here is not None:
        base = here.split("::") if here else []
        for segment in segments:
            if segment == "super":
                base = base[:-1]
            elif segment != "self":
                base.append(segment)
        return "::".join(base)
    return None
