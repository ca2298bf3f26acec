"""The tree-sitter structure profiles, one per language family.

Revisions: 3 for JavaScript and TypeScript (2: CommonJS exports and ``declare global``
blocks; 3: CommonJS ``require()`` imports), 2 for Go and Rust (package docs, ``//!``
docs), 1 for Java.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from pydantic import BaseModel

from lychd_core.families import Projected, SourceMaterial, Unavailable
from lychd_structure_treesitter.bounds import parse_bound_problem
from lychd_structure_treesitter.languages import GO, JAVA, JAVASCRIPT, RUST, TSX, TYPESCRIPT, LanguageSpec
from lychd_structure_treesitter.lexical import LEXICAL_VERSION, lexical_facts, lexical_omission
from lychd_structure_treesitter.options import StructureTreeSitterOptions
from lychd_structure_treesitter.outline import OutlineTooLarge, ParseFailure, outline_facts
from lychd_structure_treesitter.render import public_facts, render
from lychd_structure_treesitter.views import resolutions


class TreeSitterProfile:
    """A deterministic, grammar-owned outline of one language's source; never full text.

    tree-sitter parses in process: its parser keeps an explicit stack (no native
    recursion), so 5,000 or 200,000 nested brackets give a tree, not a crash (see the
    hostile-input tests); the outline walk is iterative or depth-bounded.
    """

    options_model = StructureTreeSitterOptions
    time_bounded = True  # an explicit-stack parser and bounded walks; see the hostile-input tests

    def __init__(
        self,
        name: str,
        specs: Mapping[str, LanguageSpec],
        file_media_types: Mapping[str, str] | None = None,
        *,
        revision: int = 1,
    ) -> None:
        self.name = name
        self.revision = revision
        self._specs = dict(specs)
        self.media_types = frozenset(specs)
        self.file_media_types = MappingProxyType(dict(file_media_types or {}))
        grammars = "; ".join(sorted({spec.parser_version for spec in specs.values()}))
        self.parser_version = f"{grammars}; {LEXICAL_VERSION}"  # files once unavailable now outline: old entries miss

    def project(self, source: SourceMaterial, options: BaseModel) -> Projected | Unavailable:
        if not isinstance(options, StructureTreeSitterOptions):
            options = StructureTreeSitterOptions.model_validate(options.model_dump())
        spec = self._specs.get(source.media_type)
        if spec is None:
            accepted = ", ".join(sorted(self._specs))
            return Unavailable(f"{self.name} does not outline {source.media_type} (accepts: {accepted})")
        data = source.data
        if len(data) > source.max_bytes:
            return Unavailable(f"the source has {len(data)} bytes, over the bound of {source.max_bytes}")
        if b"\x00" in data:
            return Unavailable(f"the source contains a null byte (at byte {data.index(0)}); {spec.name} source cannot")
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return Unavailable(f"the source is not valid UTF-8: undecodable byte at offset {exc.start}")
        too_big = parse_bound_problem(data)  # before tree-sitter: its memory grows with the source
        if too_big is not None:
            return Unavailable(too_big)
        try:
            facts = outline_facts(data, spec, options, source.max_chars)
        except ParseFailure as exc:
            if not exc.local:
                return Unavailable(str(exc))
            return self._lexical(data, spec, options, str(exc).split(" (not ", 1)[0], source.max_chars)
        except OutlineTooLarge:
            return self._too_large(f"more than {source.max_chars}", source.max_chars)
        outline, line_map = render(facts, options)
        if len(outline) > source.max_chars:
            return self._too_large(str(len(outline)), source.max_chars)
        return Projected(text=outline, facts=public_facts(facts, options), line_map=line_map)

    def _lexical(
        self, data: bytes, spec: LanguageSpec, options: StructureTreeSitterOptions, reason: str, max_chars: int
    ) -> Projected | Unavailable:
        """The declared lexical outline of a file whose grammar errors are local (see :mod:`.lexical`)."""
        facts = lexical_facts(data, spec, reason, options.max_signature_chars)
        if not facts["definitions"]:  # nothing this language declares: likely another language
            return Unavailable(f"{reason} (not {spec.name} source?) and no {spec.name} declaration was found")
        if not options.include_imports:
            del facts["imports"]
        if options.members == "none":
            for definition in facts["definitions"]:
                definition["members"] = []
        outline, line_map = render(facts, options)
        marker = f"// lexical outline: {reason}; declarations found by their keywords, not parsed"
        text = f"{marker}\n{outline}" if outline else marker
        if len(text) > max_chars:
            return self._too_large(str(len(text)), max_chars)
        omission = lexical_omission(reason)
        return Projected(text=text, facts=public_facts(facts, options), line_map=(1, *line_map), omissions=(omission,))

    def resolutions(self, facts: object, query_terms: frozenset[str]) -> tuple[tuple[str, str], ...]:
        """Coarser views of an outline from its facts (capability read by the ranking stage)."""
        return resolutions(facts, query_terms)

    @staticmethod
    def _too_large(size: str, bound: int) -> Unavailable:
        return Unavailable(
            f"the outline has {size} characters, over the bound of {bound}; "
            "raise max_chars or select fewer parts in the profile's options (it is never cut)"
        )


PROFILES = (
    TreeSitterProfile("structure.javascript", {"text/javascript": JAVASCRIPT}, revision=3),
    TreeSitterProfile(
        "structure.typescript",
        {"text/x-typescript": TYPESCRIPT, "text/x-tsx": TSX},
        {".mts": "text/x-typescript", ".cts": "text/x-typescript"},
        revision=3,
    ),
    TreeSitterProfile("structure.go", {"text/x-go": GO}, revision=2),
    TreeSitterProfile("structure.rust", {"text/x-rust": RUST}, revision=2),
    TreeSitterProfile("structure.java", {"text/x-java": JAVA}),
)
