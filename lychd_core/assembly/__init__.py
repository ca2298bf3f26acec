"""Context assembly: the Stable Floor, bounded history, continuation and query."""

from lychd_core.assembly.bounds import AssemblyBounds
from lychd_core.assembly.context import AssembledContext, Unexplained
from lychd_core.assembly.environment import EnvironmentSnapshots, Grant, environment_block, environment_key
from lychd_core.assembly.governors import request_input_limit
from lychd_core.assembly.orchestrator import ContextOrchestrator

__all__ = [
    "AssembledContext",
    "AssemblyBounds",
    "ContextOrchestrator",
    "EnvironmentSnapshots",
    "Grant",
    "Unexplained",
    "environment_block",
    "environment_key",
    "request_input_limit",
]
