"""The ``structure.python`` revision 1 projection profile."""

from __future__ import annotations

import io
import tokenize
from importlib.metadata import version
from typing import Any

from pydantic import BaseModel

from lychd_core.families import Projected, SourceMaterial, Unavailable
from lychd_structure_python.options import StructurePythonOptions
from lychd_structure_python.render import public_facts, render
from lychd_structure_python.resolutions import resolutions
from lychd_structure_python.worker import ParserWorker, WorkerFailure

LIBCST_VERSION = version("libcst")
DEFAULT_TIME_LIMIT = 60.0


def decode_python(data: bytes) -> str | Unavailable:
    """Source text under Python's own encoding rules (PEP 263 cookie, UTF-8 BOM), strictly."""
    if b"\x00" in data:
        return Unavailable(f"the source contains a null byte (at byte {data.index(0)}); Python source cannot")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as bad:  # no usable declaration, and not UTF-8 either
            return Unavailable(f"the source is not valid UTF-8: undecodable byte at offset {bad.start}")
        return Unavailable(f"the source's encoding declaration is invalid: {exc}")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        return Unavailable(f"the source is not valid {encoding}: undecodable byte at offset {exc.start}")
    except LookupError:
        return Unavailable(f"the source declares an unknown encoding {encoding!r}")


class StructurePythonProfile:
    """A deterministic, parser-owned outline of a Python module; never full text."""

    name = "structure.python"
    revision = 1
    options_model = StructurePythonOptions
    media_types = frozenset({"text/x-python"})
    parser_version = f"libcst {LIBCST_VERSION}; symbols 1"
    """The facts gained ``symbols`` (same outline text, same revision): older cache entries miss."""
    time_bounded = True  # libcst runs in this profile's own worker process, killed at its time limit

    def __init__(self, time_limit: float = DEFAULT_TIME_LIMIT) -> None:
        self._worker = ParserWorker(time_limit)

    def resolutions(self, facts: object, query_terms: frozenset[str]) -> tuple[tuple[str, str], ...]:
        """Coarser resolutions of an outline from its facts (capability read by the ranking stage)."""
        return resolutions(facts, query_terms)

    def close(self) -> None:
        """Stop the parser worker process (it restarts on the next projection)."""
        self._worker.close()

    def outline(self, text: str, options: StructurePythonOptions) -> dict[str, Any]:
        """The worker's raw reply for decoded ``text``: ``facts`` and ``road``, or ``unavailable``."""
        try:
            return self._worker.request({"source": text, "options": options.model_dump(mode="json")})
        except WorkerFailure as exc:
            return {"unavailable": str(exc)}

    def project(self, source: SourceMaterial, options: BaseModel) -> Projected | Unavailable:
        if not isinstance(options, StructurePythonOptions):
            options = StructurePythonOptions.model_validate(options.model_dump())
        if len(source.data) > source.max_bytes:
            return Unavailable(f"the source has {len(source.data)} bytes, over the bound of {source.max_bytes}")
        text = decode_python(source.data)
        if isinstance(text, Unavailable):
            return text
        reply = self.outline(text, options)
        if "unavailable" in reply:
            return Unavailable(str(reply["unavailable"]))
        outline, line_map = render(reply["facts"], options)
        if len(outline) > source.max_chars:
            return Unavailable(
                f"the outline has {len(outline)} characters, over the bound of {source.max_chars}; "
                "raise max_chars or select fewer parts in the profile's options (it is never cut)"
            )
        return Projected(text=outline, facts=public_facts(reply["facts"], options), line_map=line_map)


PROFILE = StructurePythonProfile()
