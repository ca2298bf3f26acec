"""One-line source text of small libcst nodes (annotations, defaults, decorators, bases)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, TypeVar

import libcst as cst

_BREAKS = re.compile(r"\r\n|\r|\n")


def count_breaks(text: str) -> int:
    """Line breaks in ``text`` as Python counts them (``\\r\\n``, ``\\r`` or ``\\n``)."""
    if "\r" not in text:
        return text.count("\n")
    return text.count("\n") + text.count("\r") - text.count("\r\n")


_PW = cst.ParenthesizedWhitespace
_EMPTY = cst.SimpleWhitespace("")
_Opening = TypeVar("_Opening", cst.LeftParen, cst.LeftSquareBracket, cst.LeftCurlyBrace)
_Closing = TypeVar("_Closing", cst.RightParen, cst.RightSquareBracket, cst.RightCurlyBrace, cst.Comma)


def _strip_after(original: _Opening, updated: _Opening) -> _Opening:
    """Drop a line break (and indentation) right after an opening bracket."""
    return updated.with_changes(whitespace_after=_EMPTY) if isinstance(original.whitespace_after, _PW) else updated


def _strip_before(original: _Closing, updated: _Closing) -> _Closing:
    """Drop a line break (and indentation) right before a closing bracket or comma."""
    return updated.with_changes(whitespace_before=_EMPTY) if isinstance(original.whitespace_before, _PW) else updated


def split_lines(text: str) -> list[str]:
    """Lines as Python counts them (not ``str.splitlines``, which also breaks at form feeds)."""
    return _BREAKS.split(text) if "\r" in text else text.split("\n")


class _Flatten(cst.CSTTransformer):
    """Replace multi-line (parenthesized, commented) whitespace by one space, or none inside brackets."""

    def leave_ParenthesizedWhitespace(
        self, original_node: cst.ParenthesizedWhitespace, updated_node: cst.ParenthesizedWhitespace
    ) -> cst.SimpleWhitespace:
        return cst.SimpleWhitespace(" ")

    def leave_SimpleWhitespace(
        self, original_node: cst.SimpleWhitespace, updated_node: cst.SimpleWhitespace
    ) -> cst.SimpleWhitespace:
        return cst.SimpleWhitespace(" ") if "\\" in updated_node.value else updated_node

    def leave_LeftParen(self, original_node: cst.LeftParen, updated_node: cst.LeftParen) -> cst.LeftParen:
        return _strip_after(original_node, updated_node)

    def leave_LeftSquareBracket(
        self, original_node: cst.LeftSquareBracket, updated_node: cst.LeftSquareBracket
    ) -> cst.LeftSquareBracket:
        return _strip_after(original_node, updated_node)

    def leave_LeftCurlyBrace(
        self, original_node: cst.LeftCurlyBrace, updated_node: cst.LeftCurlyBrace
    ) -> cst.LeftCurlyBrace:
        return _strip_after(original_node, updated_node)

    def leave_RightParen(self, original_node: cst.RightParen, updated_node: cst.RightParen) -> cst.RightParen:
        return _strip_before(original_node, updated_node)

    def leave_RightSquareBracket(
        self, original_node: cst.RightSquareBracket, updated_node: cst.RightSquareBracket
    ) -> cst.RightSquareBracket:
        return _strip_before(original_node, updated_node)

    def leave_RightCurlyBrace(
        self, original_node: cst.RightCurlyBrace, updated_node: cst.RightCurlyBrace
    ) -> cst.RightCurlyBrace:
        return _strip_before(original_node, updated_node)

    def leave_Comma(self, original_node: cst.Comma, updated_node: cst.Comma) -> cst.Comma:
        return _strip_before(original_node, updated_node)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if isinstance(original_node.whitespace_before_args, _PW):
            updated_node = updated_node.with_changes(whitespace_before_args=_EMPTY)
        return updated_node.with_changes(args=_drop_trailing_comma(original_node.args, updated_node.args))

    def leave_List(self, original_node: cst.List, updated_node: cst.List) -> cst.List:
        return updated_node.with_changes(elements=_drop_trailing_comma(original_node.elements, updated_node.elements))

    def leave_Set(self, original_node: cst.Set, updated_node: cst.Set) -> cst.Set:
        return updated_node.with_changes(elements=_drop_trailing_comma(original_node.elements, updated_node.elements))

    def leave_Dict(self, original_node: cst.Dict, updated_node: cst.Dict) -> cst.Dict:
        return updated_node.with_changes(elements=_drop_trailing_comma(original_node.elements, updated_node.elements))

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.Subscript:
        if len(original_node.slice) < 2:  # x[a,] is a tuple index
            return updated_node
        return updated_node.with_changes(slice=_drop_trailing_comma(original_node.slice, updated_node.slice))

    def leave_Tuple(self, original_node: cst.Tuple, updated_node: cst.Tuple) -> cst.Tuple:
        if len(original_node.elements) < 2:  # (x,) needs its comma
            return updated_node
        return updated_node.with_changes(elements=_drop_trailing_comma(original_node.elements, updated_node.elements))


def _drop_trailing_comma(original: Sequence[Any], updated: Sequence[Any]) -> Sequence[Any]:
    """Drop a last comma that only existed because the closing bracket was on its own line."""
    if not original:
        return updated
    comma = original[-1].comma
    if isinstance(comma, cst.Comma) and isinstance(comma.whitespace_after, _PW):
        return [*updated[:-1], updated[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    return updated


def node_text(module: cst.Module, node: cst.CSTNode) -> str:
    """The node's source on one line; multi-line fragments are flattened, never cut."""
    code = module.code_for_node(node)
    if "\n" not in code and "\r" not in code:
        return code
    # Only whitespace libcst owns is replaced, so string contents are untouched except
    # line breaks inside triple-quoted strings, which are written as escapes.
    flattened = node.visit(_Flatten())
    assert isinstance(flattened, cst.CSTNode)
    flat = module.code_for_node(flattened)
    return _BREAKS.sub("\\\\n", flat)


def dotted_name(node: cst.CSTNode) -> str:
    """``a.b.c`` for Name/Attribute chains."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{dotted_name(node.value)}.{node.attr.value}"
    raise TypeError(f"not a dotted name: {type(node).__name__}")


def string_value(node: cst.BaseExpression) -> str | None:
    """The value of a plain (non-f, non-bytes) string literal, else None."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            value = node.evaluated_value
        except Exception:  # an invalid escape or similar: not a usable literal
            return None
        return value if isinstance(value, str) else None
    return None
