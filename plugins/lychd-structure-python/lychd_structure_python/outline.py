"""Source text -> outline facts: parse once with libcst, select, locate, describe.

Facts always carry line numbers here (rendering needs them for line provenance);
:func:`lychd_structure_python.render.public_facts` drops them when the options say so.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from lychd_structure_python.choices import OutlineOptions
from lychd_structure_python.codetext import count_breaks, node_text
from lychd_structure_python.extract import FORMAT, OutlineBuilder, docstring_fact, is_public_member
from lychd_structure_python.locate import Sequence_, Target, all_targets, locate
from lychd_structure_python.symbols import symbols_fact


class OutlineError(Exception):
    """The outline could not be built; the message is the unavailable reason."""


def outline_facts(source: str, options: OutlineOptions) -> tuple[dict[str, Any], str]:
    """Facts of ``source`` and the line-location road taken ("fast" or "exact")."""
    module = cst.parse_module(source)
    builder = OutlineBuilder(module, options)
    builder.collect()
    literal_all = bool(builder.all_targets) and not builder.all_dynamic
    public = _unique(builder.all_names) if literal_all else _unique(n for n in builder.defined_names if n[:1] != "_")
    selected = [(t, n) for t, n in builder.definitions if _selected(n.name.value, options, literal_all, public)]
    describer = _Describer(module, builder, options)
    plans = [describer.plan(target, node, "", builder.root) for target, node in selected]
    road = locate(module, source, builder.root)
    if any(target.line < 1 for target in all_targets(builder.root)):
        raise OutlineError("could not determine source lines of the outlined statements")
    facts: dict[str, Any] = {"format": FORMAT}
    facts["docstring"] = docstring_fact(module, options.module_docstring)
    if options.include_imports:
        facts["imports"] = [{"line": target.line, **fact} for target, fact in builder.imports]
    if options.include_public_symbols:
        facts["public"] = _public_fact(builder, literal_all, public)
    facts["definitions"] = [describer.describe(plan) for plan in plans]
    facts["symbols"] = symbols_fact(source, module, builder.defined_names)
    return facts, road


def _unique(names: Any) -> list[str]:
    return list(dict.fromkeys(names))


def _selected(name: str, options: OutlineOptions, literal_all: bool, public: list[str]) -> bool:
    if options.definitions == "none":
        return False
    if options.definitions == "all":
        return True
    if options.definitions == "public" or not literal_all:
        return not name.startswith("_")
    return name in public


def _public_fact(builder: OutlineBuilder, literal_all: bool, public: list[str]) -> dict[str, Any]:
    if builder.all_targets:
        source = "__all__" if literal_all else "names (__all__ is computed)"
        return {"source": source, "line": builder.all_targets[0].line, "names": public}
    return {"source": "names", "line": None, "names": public}


# A plan pairs a located target with its node and, for classes, the planned members.
Plan = tuple[Target, cst.CSTNode, list["Plan"]]


class _Describer:
    def __init__(self, module: cst.Module, builder: OutlineBuilder, options: OutlineOptions) -> None:
        self.module = module
        self.builder = builder
        self.options = options

    def plan(self, target: Target, node: cst.CSTNode, indent: str, parent: Sequence_) -> Plan:
        members: list[Plan] = []
        if isinstance(node, cst.ClassDef) and self.options.methods != "none":
            sequence, found = self.builder.class_sequence(node, indent)
            if sequence.targets:
                parent.children.append((target, sequence))
            for member_target, member in found:
                name = member.name.value if isinstance(member, (cst.FunctionDef, cst.ClassDef)) else None
                if isinstance(member, cst.AnnAssign) and isinstance(member.target, cst.Name):
                    name = member.target.value
                if name is None or (self.options.methods == "public" and not is_public_member(name)):
                    continue
                members.append(self.plan(member_target, member, member_target.indent, sequence))
        return (target, node, members)

    def text(self, node: cst.CSTNode) -> str:
        return node_text(self.module, node)

    def describe(self, plan: Plan) -> dict[str, Any]:
        target, node, members = plan
        if isinstance(node, cst.AnnAssign):
            assert isinstance(node.target, cst.Name)
            return {
                "kind": "attribute",
                "name": node.target.value,
                "line": target.line,
                "annotation": self.text(node.annotation.annotation),
                "default": self._default(node.value),
            }
        assert isinstance(node, (cst.FunctionDef, cst.ClassDef))
        fact: dict[str, Any] = {"kind": "class" if isinstance(node, cst.ClassDef) else "function"}
        fact["name"] = node.name.value
        fact["line"] = target.line
        if isinstance(node, cst.FunctionDef):
            fact["async"] = node.asynchronous is not None
        if self.options.include_decorators:
            fact["decorators"] = self._decorators(node, target.line)
        fact["type_parameters"] = None if node.type_parameters is None else self.text(node.type_parameters)
        if isinstance(node, cst.FunctionDef):
            if self.options.include_signatures:
                fact["parameters"] = self._parameters(node.params)
                fact["returns"] = None if node.returns is None else self.text(node.returns.annotation)
        else:
            if self.options.include_bases:
                fact["bases"] = [self._argument(arg) for arg in node.bases]
                fact["keywords"] = [self._argument(arg) for arg in node.keywords]
            if self.options.methods != "none":
                fact["members"] = [self.describe(member) for member in members]
        return fact

    def _decorators(self, node: cst.FunctionDef | cst.ClassDef, key_line: int) -> list[dict[str, Any]]:
        """Each decorator's text and the line of its ``@``, counted back from the key line."""
        line = key_line - len(node.lines_after_decorators)
        found: list[dict[str, Any]] = []
        for decorator in reversed(node.decorators):
            own = count_breaks(self.module.code_for_node(decorator)) - len(decorator.leading_lines)
            line -= own
            found.append({"text": "@" + self.text(decorator.decorator), "line": line})
        found.reverse()
        return found

    def _argument(self, arg: cst.Arg) -> str:
        value = self.text(arg.value)
        if arg.keyword is not None:
            return f"{arg.keyword.value}={value}"
        return f"{arg.star}{value}" if isinstance(arg.star, str) else value

    def _parameters(self, params: cst.Parameters) -> list[dict[str, Any]]:
        found = [self._param(p, "positional_only") for p in params.posonly_params]
        found.extend(self._param(p, "positional_or_keyword") for p in params.params)
        if isinstance(params.star_arg, cst.Param):
            found.append(self._param(params.star_arg, "var_positional"))
        found.extend(self._param(p, "keyword_only") for p in params.kwonly_params)
        if params.star_kwarg is not None:
            found.append(self._param(params.star_kwarg, "var_keyword"))
        return found

    def _param(self, param: cst.Param, kind: str) -> dict[str, Any]:
        annotation = None if param.annotation is None else self.text(param.annotation.annotation)
        return {
            "name": param.name.value,
            "kind": kind,
            "annotation": annotation,
            "default": self._default(param.default),
        }

    def _default(self, value: cst.BaseExpression | None) -> str | None:
        """The default's text; ``...`` when defaults are not shown (as in a stub), None without one."""
        if value is None:
            return None
        return self.text(value) if self.options.include_defaults else "..."
