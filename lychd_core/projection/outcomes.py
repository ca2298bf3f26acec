"""A projection job and the checks every profile's outcome passes, shared by the projector and its pool."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from lychd_core.blocks import Omission
from lychd_core.digests import canonical_json
from lychd_core.families import Projected, SourceMaterial, Unavailable
from lychd_core.projection.cache_entries import CacheKey
from lychd_core.projection.materials import MaterialRef
from lychd_core.projection.media import MediaDecision
from lychd_core.registry import RegisteredPlugin

__all__ = ["Checked", "Job", "check_outcome", "checked", "run_profile"]


@dataclass(frozen=True)
class Job:
    """A resolved reference whose projection is not cached yet."""

    ref: MaterialRef
    plugin: RegisteredPlugin
    options: BaseModel
    source: SourceMaterial
    key: CacheKey
    media: MediaDecision | None = None


_INT = frozenset({int})  # exactly int: a bool is not a line number

Checked = tuple[Projected, bytes] | Unavailable
"""A checked outcome: a projection with its canonical facts, or an explained absence."""


def checked(outcome: object, max_chars: int) -> Checked:
    """Hold any profile (first- or third-party) to the family contract; a breach is unavailable."""
    if isinstance(outcome, Unavailable):
        return outcome if outcome.reason else Unavailable("the profile gave no reason")
    if not isinstance(outcome, Projected) or not isinstance(outcome.text, str):
        return Unavailable(f"the profile returned {type(outcome).__name__}, not Projected or Unavailable")
    if len(outcome.text) > max_chars:
        return Unavailable(f"the profile returned {len(outcome.text)} characters, over the bound of {max_chars}")
    line_map = outcome.line_map
    if line_map and (
        len(line_map) != len(outcome.text.splitlines()) or not set(map(type, line_map)) <= _INT or min(line_map) < 1
    ):
        return Unavailable("the profile returned a line map that does not give one source line per text line")
    if not all(isinstance(omission, Omission) for omission in outcome.omissions):
        return Unavailable("the profile returned omissions that are not Omission values")
    try:
        facts = canonical_json(outcome.facts)
    except TypeError as exc:
        return Unavailable(f"the profile returned facts that are not canonical JSON: {exc}")
    return outcome, facts


def check_outcome(outcome: object, max_chars: int) -> Projected | Unavailable:
    """:func:`checked` without the canonical facts."""
    result = checked(outcome, max_chars)
    return result if isinstance(result, Unavailable) else result[0]


def run_profile(plugin: RegisteredPlugin, options: BaseModel, source: SourceMaterial) -> Checked:
    """Call the profile; a crash inside it is an explained absence, not a crash of the caller."""
    try:
        outcome = plugin.obj.project(source, options)
    except KeyboardInterrupt:  # Ctrl-C reaches the main thread wherever it is: the user stops, no plugin failed
        raise
    except (Exception, SystemExit) as exc:  # SystemExit too: plugin code never ends the process
        return Unavailable(f"{plugin.pin} raised {type(exc).__name__}: {exc}")
    return checked(outcome, source.max_chars)
