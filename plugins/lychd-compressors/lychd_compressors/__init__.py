"""lychd-compressors: deterministic first-party compressors, revision 1 each."""

from lychd_compressors.digest import HISTORY_PREFIX_DIGEST, HistoryPrefixDigest, HistoryPrefixDigestOptions
from lychd_compressors.elision import TOOL_OUTPUT_ELISION, ToolOutputElision, ToolOutputElisionOptions
from lychd_compressors.structure import VERBATIM_TO_STRUCTURE, VerbatimToStructure

__all__ = [
    "HISTORY_PREFIX_DIGEST",
    "TOOL_OUTPUT_ELISION",
    "VERBATIM_TO_STRUCTURE",
    "HistoryPrefixDigest",
    "HistoryPrefixDigestOptions",
    "ToolOutputElision",
    "ToolOutputElisionOptions",
    "VerbatimToStructure",
]
