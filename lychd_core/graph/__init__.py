"""The context graph: nodes, validation, budget, selection with explanations, render plans."""

from lychd_core.errors import (
    AccountingOverflowError,
    DuplicateNodeError,
    GraphCycleError,
    MissingDependencyError,
    RequiredHiddenError,
    RequiredOverBudgetError,
    UnknownNodeError,
)
from lychd_core.graph.budget import MAX_INT, BudgetAccounting, SelectionBounds, TokenBudget
from lychd_core.graph.explain import (
    BOUND_ORDER,
    Amounts,
    Bound,
    ClosureNeeds,
    Explanation,
    HiddenBy,
    HiddenRule,
    SelectionPlan,
    SelectionReason,
)
from lychd_core.graph.graph import ContextGraph
from lychd_core.graph.jsonio import dump_graph, graph_from_json, graph_to_json, load_graph, parse_graph
from lychd_core.graph.nodes import MAX_CONTENT_BYTES, ContextNode
from lychd_core.graph.precedence import precedence_key
from lychd_core.graph.render import MessageRole, RenderPlan, RenderSegment, render, render_key
from lychd_core.graph.selection import select, visible
from lychd_core.vocabulary import OmissionReason

__all__ = [
    "BOUND_ORDER",
    "MAX_CONTENT_BYTES",
    "MAX_INT",
    "AccountingOverflowError",
    "Amounts",
    "Bound",
    "BudgetAccounting",
    "ClosureNeeds",
    "ContextGraph",
    "ContextNode",
    "DuplicateNodeError",
    "Explanation",
    "GraphCycleError",
    "HiddenBy",
    "HiddenRule",
    "MessageRole",
    "MissingDependencyError",
    "OmissionReason",
    "RenderPlan",
    "RenderSegment",
    "RequiredHiddenError",
    "RequiredOverBudgetError",
    "SelectionBounds",
    "SelectionPlan",
    "SelectionReason",
    "TokenBudget",
    "UnknownNodeError",
    "dump_graph",
    "graph_from_json",
    "graph_to_json",
    "load_graph",
    "parse_graph",
    "precedence_key",
    "render",
    "render_key",
    "select",
    "visible",
]
