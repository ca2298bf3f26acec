"""Pydantic validation errors spelled as configuration key paths.

An unknown key names the nearest allowed one ("Typo?"), as unknown plugin names do,
when the model it was found in is known; otherwise it lists the keys allowed there.
"""

from __future__ import annotations

import difflib
import types
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

MAX_LISTED = 12


def format_location(loc: tuple[int | str, ...]) -> str:
    parts = []
    for item in loc:
        text = str(item)
        parts.append(f"[{item}]" if isinstance(item, int) else (f'"{text}"' if "/" in text or "." in text else text))
    return ".".join(parts).replace(".[", "[")


def _step(annotation: Any, part: int | str) -> Any:
    """The annotation one location part below ``annotation``, or None when it cannot be followed."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        field = annotation.model_fields.get(part) if isinstance(part, str) else None
        return None if field is None else field.annotation
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, types.UnionType):
        named = [arg for arg in args if getattr(arg, "__name__", None) == part]
        if named:  # pydantic names the union member it tried in the location
            return ("member", named[0])
        models = [arg for arg in args if isinstance(arg, type) and issubclass(arg, BaseModel)]
        return _step(models[0], part) if len(models) == 1 else None
    if origin is dict and len(args) == 2:
        return args[1]
    if origin in (list, tuple) and args and isinstance(part, int):
        return args[0]
    return None


def model_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The model whose fields a value at ``loc`` (inside ``model``) is checked against."""
    current: Any = model
    for part in loc:
        current = _step(current, part)
        if isinstance(current, tuple):  # a union member named in the location: no step down
            current = current[1]
        if current is None:
            return None
    while get_origin(current) in (Union, types.UnionType):  # Optional[Model]
        models = [arg for arg in get_args(current) if isinstance(arg, type) and issubclass(arg, BaseModel)]
        current = models[0] if len(models) == 1 else None
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def unknown_key_message(model: type[BaseModel] | None, loc: tuple[int | str, ...]) -> str:
    """``unknown key (not allowed here)``, with the nearest allowed key or the allowed keys."""
    message = "unknown key (not allowed here)"
    owner = model_at(model, loc[:-1]) if model is not None and loc else None
    if owner is None:
        return message
    known = sorted(owner.model_fields)
    close = difflib.get_close_matches(str(loc[-1]), known, n=1, cutoff=0.6)
    if close:
        return f"{message}; did you mean {close[0]!r}? Typo?"
    listed = ", ".join(known[:MAX_LISTED]) + (", ..." if len(known) > MAX_LISTED else "")
    return f"{message}; allowed here: {listed or 'none'}"


def validation_problems(
    exc: ValidationError, prefix: tuple[int | str, ...] = (), model: type[BaseModel] | None = None
) -> tuple[str, ...]:
    """One line per error: where (as a key path) and what; ``model`` is what was validated."""
    problems = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        where = format_location(prefix + loc)
        message = unknown_key_message(model, loc) if error["type"] == "extra_forbidden" else error["msg"]
        problems.append(f"{where}: {message}")
    return tuple(problems)
