"""libcst module -> outline facts (plain JSON data), selected by the options.

Runs inside the parser worker process. Facts carry line numbers located by
:mod:`lychd_structure_python.locate`; rendering text from facts happens elsewhere.
"""

from __future__ import annotations

import inspect
from typing import Any

import libcst as cst

from lychd_structure_python.choices import OutlineOptions
from lychd_structure_python.codetext import count_breaks, dotted_name, split_lines, string_value
from lychd_structure_python.locate import Sequence_, Target

FORMAT = "structure.python/1"


def is_public_member(name: str) -> bool:
    """No leading underscore, or a dunder such as ``__init__``."""
    return not name.startswith("_") or (len(name) > 4 and name.startswith("__") and name.endswith("__"))


class OutlineBuilder:
    """Collects targets and facts for one parsed module."""

    def __init__(self, module: cst.Module, options: OutlineOptions) -> None:
        self.module = module
        self.options = options
        self.root = Sequence_()
        self.imports: list[tuple[Target, dict[str, Any]]] = []
        self.all_targets: list[Target] = []
        self.all_names: list[str] = []
        self.all_dynamic = False
        self.defined_names: list[str] = []
        self.definitions: list[tuple[Target, cst.FunctionDef | cst.ClassDef]] = []

    # --- targets -----------------------------------------------------------------

    def _simple_target(self, stmt: cst.SimpleStatementLine, indent: str) -> Target:
        code = self.module.code_for_node(stmt)
        lines = split_lines(code)
        first = lines[len(stmt.leading_lines)] if len(lines) > len(stmt.leading_lines) else None
        return Target(stmt, indent, None if first is None else indent + first, True, None, anchor=stmt.body[0])

    @staticmethod
    def _def_target(node: cst.FunctionDef | cst.ClassDef, indent: str) -> Target:
        if isinstance(node, cst.ClassDef):
            prefix = "class" + node.whitespace_after_class.value + node.name.value
            return Target(node, indent, indent + prefix + node.whitespace_after_name.value, False, "class")
        head = "def" + node.whitespace_after_def.value + node.name.value + node.whitespace_after_name.value
        if node.asynchronous is not None:
            head = "async" + node.asynchronous.whitespace_after.value + head
            return Target(node, indent, indent + head, False, "async")
        return Target(node, indent, indent + head, False, "def")

    @staticmethod
    def _compound_target(node: cst.BaseCompoundStatement, indent: str) -> Target | None:
        """A boundary target (keyword and its whitespace) that keeps sibling ranges tight."""
        if isinstance(node, cst.If):
            return Target(node, indent, indent + "if" + node.whitespace_before_test.value, False, "if")
        if isinstance(node, (cst.Try, cst.TryStar)):
            return Target(node, indent, indent + "try" + node.whitespace_before_colon.value + ":", False, "try")
        after: cst.BaseParenthesizableWhitespace | None = None
        if isinstance(node, cst.For) and node.asynchronous is None:
            keyword, after = "for", node.whitespace_after_for
        elif isinstance(node, cst.With) and node.asynchronous is None:
            keyword, after = "with", node.whitespace_after_with
        elif isinstance(node, cst.While):
            keyword, after = "while", node.whitespace_after_while
        if after is None:
            return None
        space = after.value if isinstance(after, cst.SimpleWhitespace) else None
        return Target(node, indent, None if space is None else indent + keyword + space, False, keyword)

    # --- module level ------------------------------------------------------------

    def collect(self) -> None:
        for stmt in self.module.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                self._module_simple(stmt)
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                target = self._def_target(stmt, "")
                self.root.targets.append(target)
                self.definitions.append((target, stmt))
                self.defined_names.append(stmt.name.value)
            elif isinstance(stmt, cst.BaseCompoundStatement):
                boundary = self._compound_target(stmt, "")
                if boundary is None:
                    continue
                self.root.targets.append(boundary)
                if self.options.include_imports and isinstance(stmt, (cst.If, cst.Try, cst.TryStar)):
                    child = self._conditional_imports(stmt, "")
                    if child.targets:
                        self.root.children.append((boundary, child))

    def _module_simple(self, stmt: cst.SimpleStatementLine) -> None:
        target: Target | None = None
        for small in stmt.body:
            wanted = self._record_names(small)
            if isinstance(small, (cst.Import, cst.ImportFrom)) and self.options.include_imports:
                wanted = True
            if wanted and target is None:
                target = self._simple_target(stmt, "")
                self.root.targets.append(target)
            if isinstance(small, (cst.Import, cst.ImportFrom)) and self.options.include_imports:
                assert target is not None
                self.imports.append((target, self._import_fact(small, conditional=False)))
            if self._is_all_statement(small):
                assert target is not None
                self.all_targets.append(target)

    def _record_names(self, small: cst.BaseSmallStatement) -> bool:
        """Collect defined names and literal ``__all__``; True when it is an ``__all__`` statement."""
        if isinstance(small, cst.Assign):
            for assign_target in small.targets:
                self._names_of(assign_target.target)
        elif isinstance(small, cst.AnnAssign):
            self._names_of(small.target)
        if not self._is_all_statement(small):
            return False
        self._read_all(small)
        return True

    def _names_of(self, node: cst.BaseExpression) -> None:
        if isinstance(node, cst.Name):
            self.defined_names.append(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                self._names_of(element.value)
        elif isinstance(node, cst.StarredElement):
            self._names_of(node.value)

    @staticmethod
    def _is_all_statement(small: cst.BaseSmallStatement) -> bool:
        if isinstance(small, cst.Assign):
            return any(isinstance(t.target, cst.Name) and t.target.value == "__all__" for t in small.targets)
        if isinstance(small, (cst.AnnAssign, cst.AugAssign)):
            return isinstance(small.target, cst.Name) and small.target.value == "__all__"
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            func = small.value.func
            return (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "__all__"
                and func.attr.value in ("append", "extend", "remove")
            )
        return False

    def _read_all(self, small: cst.BaseSmallStatement) -> None:
        names: list[str] | None = None
        if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is not None:
            names = _literal_strings(small.value)
            if names is not None:
                self.all_names = []
        elif isinstance(small, cst.AugAssign) and isinstance(small.operator, cst.AddAssign):
            names = _literal_strings(small.value)
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            call = small.value
            assert isinstance(call.func, cst.Attribute)
            method = call.func.attr.value
            if len(call.args) == 1 and method == "extend":
                names = _literal_strings(call.args[0].value)
            elif len(call.args) == 1 and method == "append":
                single = string_value(call.args[0].value)
                names = None if single is None else [single]
        if names is None:
            self.all_dynamic = True
        else:
            self.all_names.extend(names)

    def _conditional_imports(self, node: cst.If | cst.Try | cst.TryStar, indent: str) -> Sequence_:
        """Imports inside a module-level if/try, across all its branches, in source order."""
        sequence = Sequence_()
        for block in _branch_blocks(node):
            if isinstance(block, cst.SimpleStatementSuite):
                smalls = [s for s in block.body if isinstance(s, (cst.Import, cst.ImportFrom))]
                if smalls:  # on its header's line; only the exact road can say which line that is
                    suite = Target(block, indent, None, True, None, anchor=block.body[0])
                    sequence.targets.append(suite)
                    self.imports.extend((suite, self._import_fact(s, conditional=True)) for s in smalls)
                continue
            assert isinstance(block, cst.IndentedBlock)
            inner = indent + (self.module.default_indent if block.indent is None else block.indent)
            for stmt in block.body:
                if isinstance(stmt, cst.SimpleStatementLine):
                    smalls = [s for s in stmt.body if isinstance(s, (cst.Import, cst.ImportFrom))]
                    if smalls:
                        target = self._simple_target(stmt, inner)
                        sequence.targets.append(target)
                        self.imports.extend((target, self._import_fact(s, conditional=True)) for s in smalls)
                elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                    sequence.targets.append(self._def_target(stmt, inner))
                elif isinstance(stmt, cst.BaseCompoundStatement):
                    boundary = self._compound_target(stmt, inner)
                    if boundary is None:
                        continue
                    sequence.targets.append(boundary)
                    if isinstance(stmt, (cst.If, cst.Try, cst.TryStar)):
                        child = self._conditional_imports(stmt, inner)
                        if child.targets:
                            sequence.children.append((boundary, child))
        return sequence

    def _import_fact(self, node: cst.Import | cst.ImportFrom, *, conditional: bool) -> dict[str, Any]:
        if isinstance(node, cst.Import):
            names = [_alias(alias) for alias in node.names]
            return {"statement": "import", "module": None, "level": 0, "names": names, "conditional": conditional}
        module = None if node.module is None else dotted_name(node.module)
        if isinstance(node.names, cst.ImportStar):
            names = [{"name": "*", "asname": None}]
        else:
            names = [_alias(alias) for alias in node.names]
        level = len(node.relative)
        return {"statement": "from", "module": module, "level": level, "names": names, "conditional": conditional}

    # --- classes -----------------------------------------------------------------

    def class_sequence(self, node: cst.ClassDef, indent: str) -> tuple[Sequence_, list[tuple[Target, cst.CSTNode]]]:
        """Targets of a class body: every definition and annotated attribute (all, so ranges stay tight)."""
        sequence = Sequence_()
        members: list[tuple[Target, cst.CSTNode]] = []
        body = node.body
        if not isinstance(body, cst.IndentedBlock):
            return sequence, members
        inner = indent + (self.module.default_indent if body.indent is None else body.indent)
        for stmt in body.body:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                target = self._def_target(stmt, inner)
                sequence.targets.append(target)
                members.append((target, stmt))
            elif isinstance(stmt, cst.SimpleStatementLine):
                small = stmt.body[0]
                attribute = isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)
                if self.options.include_attributes and attribute:
                    target = self._simple_target(stmt, inner)
                    sequence.targets.append(target)
                    members.append((target, small))
            elif isinstance(stmt, cst.BaseCompoundStatement):
                boundary = self._compound_target(stmt, inner)
                if boundary is not None:
                    sequence.targets.append(boundary)
        return sequence, members


def _alias(alias: cst.ImportAlias) -> dict[str, Any]:
    asname = alias.asname
    as_text = asname.name.value if asname is not None and isinstance(asname.name, cst.Name) else None
    return {"name": dotted_name(alias.name), "asname": as_text}


def _literal_strings(node: cst.BaseExpression) -> list[str] | None:
    if not isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return None
    values: list[str] = []
    for element in node.elements:
        value = string_value(element.value) if isinstance(element, cst.Element) else None
        if value is None:
            return None
        values.append(value)
    return values


def _branch_blocks(node: cst.If | cst.Try | cst.TryStar) -> list[cst.BaseSuite]:
    blocks: list[cst.BaseSuite] = []
    if isinstance(node, cst.If):
        current: cst.If | cst.Else | None = node
        while current is not None:
            blocks.append(current.body)
            current = current.orelse if isinstance(current, cst.If) else None
            if isinstance(current, cst.Else):
                blocks.append(current.body)
                current = None
        return blocks
    blocks.append(node.body)
    blocks.extend(handler.body for handler in node.handlers)
    if node.orelse is not None:
        blocks.append(node.orelse.body)
    if node.finalbody is not None:
        blocks.append(node.finalbody.body)
    return blocks


def docstring_fact(module: cst.Module, mode: str) -> dict[str, Any] | None:
    """The module docstring, cleaned, with the source line of each kept line."""
    if mode == "none" or not module.body:
        return None
    first = module.body[0]
    if not isinstance(first, cst.SimpleStatementLine) or not isinstance(first.body[0], cst.Expr):
        return None
    literal = first.body[0].value
    raw = string_value(literal)
    if raw is None:
        return None
    start = 1 + len(module.header) + len(first.leading_lines)
    cleaned = inspect.cleandoc(raw)
    lines = cleaned.split("\n")
    if mode == "summary" and "" in lines:
        lines = lines[: lines.index("")]
    raw_lines = raw.expandtabs().split("\n")
    skipped = 0
    for index, line in enumerate(raw_lines):
        if (line.lstrip() if index == 0 else line.strip()) != "":
            break
        skipped += 1
    exact = isinstance(literal, cst.SimpleString) and count_breaks(literal.value) == len(raw_lines) - 1
    source_lines = [start + skipped + i if exact else start for i in range(len(lines))]
    return {"line": start, "text": "\n".join(lines), "lines": source_lines}
