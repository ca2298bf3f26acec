"""The closed vocabularies shared by nodes, role policies and memory.

Enumerations are ordered where the reference text orders them: a larger
``Authority`` outranks a smaller one; ``Requirement`` likewise.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Provenance(StrEnum):
    """Where a piece of context originally came from."""

    SYSTEM = "system"
    APPLICATION = "application"
    USER = "user"
    REPOSITORY = "repository"
    EXTERNAL = "external"
    MEMORY = "memory"
    TOOL = "tool"
    AGENT = "agent"
    REVIEW = "review"
    DERIVED_COMPACTION = "derived-compaction"


class Authority(IntEnum):
    """Instruction authority, highest first in precedence."""

    NON_AUTHORITATIVE = 0
    USER_INSTRUCTION = 1
    ACCEPTANCE_SPECIFICATION = 2
    APPLICATION_POLICY = 3
    SYSTEM_POLICY = 4


class Trust(IntEnum):
    """Factual trust ceiling: what a node may be relied on for, never instruction authority."""

    UNTRUSTED = 0
    TRUSTED = 1


class Requirement(IntEnum):
    """Selection mode; a larger value is admitted first."""

    OPTIONAL = 0
    DEPENDENCY_REQUIRED = 1
    REQUIRED = 2


class ContextClass(StrEnum):
    """Semantic class of a node, the unit role policies filter on."""

    POLICY = "policy"
    INSTRUCTION = "instruction"
    SPECIFICATION = "specification"
    CANDIDATE = "candidate"
    SOURCE = "source"
    GATE_EVIDENCE = "gate-evidence"
    FINDING = "finding"
    ENVIRONMENT = "environment"
    MEMORY_EVIDENCE = "memory-evidence"
    TOOL_OUTPUT = "tool-output"
    HISTORY = "history"
    CONTINUATION = "continuation"
    QUERY = "query"
    COMPACTION = "compaction"
    PRODUCER_ANCESTRY = "producer-ancestry"
    PRODUCER_REASONING = "producer-reasoning"
    PRODUCER_RATIONALE = "producer-rationale"


class Operation(StrEnum):
    """Operation classes a role's read-only capability view may list."""

    READ_CONTEXT = "read-context"
    PROPOSE_CHANGE = "propose-change"
    RUN_CHECKS = "run-checks"
    RECORD_FINDING = "record-finding"
    RESOLVE_FINDING = "resolve-finding"
    RECORD_EVALUATION = "record-evaluation"
    PROPOSE_HARNESS_CHANGE = "propose-harness-change"
