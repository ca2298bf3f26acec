"""Pydantic validation errors spelled as configuration key paths."""

from __future__ import annotations

from pydantic import ValidationError


def format_location(loc: tuple[int | str, ...]) -> str:
    parts = []
    for item in loc:
        text = str(item)
        parts.append(f"[{item}]" if isinstance(item, int) else (f'"{text}"' if "/" in text or "." in text else text))
    return ".".join(parts).replace(".[", "[")


def validation_problems(exc: ValidationError, prefix: tuple[int | str, ...] = ()) -> tuple[str, ...]:
    problems = []
    for error in exc.errors():
        where = format_location(prefix + tuple(error["loc"]))
        message = "unknown key (not allowed here)" if error["type"] == "extra_forbidden" else error["msg"]
        problems.append(f"{where}: {message}")
    return tuple(problems)
