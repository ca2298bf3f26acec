"""The base of every lychd-core error, ``LychdError``, and one family base per concern.

One base, `LychdError`; each error also inherits the matching builtin where natural,
so callers can catch either. Messages name the thing, what was expected and what to do.
"""

from __future__ import annotations


class LychdError(Exception):
    """Base of every error lychd-core raises on purpose."""


# --- plugins and registry -------------------------------------------------------


class PluginError(LychdError):
    """A plugin could not be loaded, validated or registered."""


class PluginLoadError(PluginError, ImportError):
    """A plugin's entry point failed to import; names the distribution."""


class PluginValidationError(PluginError, TypeError):
    """A plugin object or hook implementation does not meet its contract."""


class DuplicatePluginError(PluginError, ValueError):
    """Two plugins of one family registered the same name."""


class PluginCallError(PluginError):
    """Plugin code raised (even ``SystemExit`` or ``KeyboardInterrupt``); names the distribution."""


class PluginTimeoutError(PluginCallError, TimeoutError):
    """Plugin code did not finish within its per-call time limit."""


class UnknownPluginError(PluginError, LookupError):
    """A name that no installed plugin registered."""


class RevisionMismatchError(PluginError, LookupError):
    """The pinned revision differs from the installed one."""


class BlockError(LychdError, ValueError):
    """A block is used where its layer does not belong."""


# --- configuration --------------------------------------------------------------


class ConfigError(LychdError, ValueError):
    """A deployment configuration is malformed or does not match the registry."""

    def __init__(self, message: str, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems


class MediaTypeConflictError(ConfigError):
    """Installed profiles declare one file name or extension as different media types, unsettled."""


# --- material and projection ----------------------------------------------------


class MediaTypeError(LychdError, ValueError):
    """A media type is malformed, unknown, or has no projection rule."""


class BinaryMaterialError(MediaTypeError):
    """Material whose bytes are binary (NUL bytes, or libmagic's charset ``binary``) and no rule projects."""


class MaterialError(LychdError, ValueError):
    """A material reference cannot be resolved safely (path, size, digest, kind)."""


class ProjectionUnavailable(LychdError):
    """A required projection could not be produced; never replaced by full text."""


class ProjectionCacheError(LychdError):
    """The projection cache store cannot be opened or written."""


# --- graph, budget and selection ------------------------------------------------


class GraphError(LychdError, ValueError):
    """A context node or graph is malformed (duplicate, missing, cyclic, unsorted)."""


class BudgetError(LychdError, ValueError):
    """Token accounting is invalid: negative, non-integer, overflowing or unusable."""


class SelectionError(LychdError):
    """Required material is hidden, incomplete or over budget: no partial plan."""


class CompactionError(LychdError, ValueError):
    """A compaction proposal violates lineage, range or reduction rules."""


class RolePolicyError(LychdError, ValueError):
    """A role policy asks for more than the core's operation table allows."""


# --- assembly -------------------------------------------------------------------


class ContextBudgetExceededError(LychdError):
    """Required input (floor, query, continuation) does not fit the window."""

    def __init__(self, message: str, *, required: int, available: int, parts: dict[str, int]) -> None:
        super().__init__(message)
        self.required = required
        self.available = available
        self.parts = dict(parts)


class AssemblyError(LychdError, ValueError):
    """Assembly inputs are malformed (wrong layer, empty query, duplicate keys)."""


class HistoryError(LychdError, ValueError):
    """History or continuation messages are malformed or split a tool exchange."""


class LeaseError(LychdError):
    """A run or snapshot lease was used after release or by the wrong run."""


# --- derived memory -------------------------------------------------------------


class MemoryRecordError(LychdError, ValueError):
    """A memory record or lifecycle transition is invalid."""


class MemoryStoreError(LychdError):
    """The memory store is corrupt, foreign, locked or unwritable."""


# --- privacy --------------------------------------------------------------------


class PrivacyRefusal(LychdError):
    """A privacy profile refuses to prepare material for egress."""
