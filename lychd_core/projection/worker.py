"""The child side of projection: one worker process serves one job at a time over a pipe.

Profiles run here rather than in the caller so that a profile that never returns — a
loop in Python, or one stuck in native code where no signal handler can run — can be
stopped: the caller kills the process at the job's deadline (see :mod:`.pool`).
"""

from __future__ import annotations

import signal
from multiprocessing.connection import Connection
from typing import Any

from lychd_core.errors import LychdError
from lychd_core.families import PluginFamily, SourceMaterial, Unavailable
from lychd_core.projection.outcomes import run_profile
from lychd_core.registry import Registry, get_registry

Request = tuple[str, int, dict[str, Any], SourceMaterial]
"""A job as sent to a worker: profile name, revision, options as JSON data, the material."""

Reply = tuple[str, object]
"""``("ok", Checked)`` or ``("raise", LychdError)``: what the job would have returned or raised in-process."""


def answer(registry: Registry, request: Request) -> Reply:
    """Run one job; a typed error travels back to be raised in the caller, as in-process."""
    name, revision, options, source = request
    try:
        plugin = registry.resolve(PluginFamily.PROJECTION_PROFILE, name, revision)
        return "ok", run_profile(plugin, plugin.obj.options_model.model_validate(options), source)
    except LychdError as exc:
        return "raise", exc
    except KeyboardInterrupt:  # a worker ignores SIGINT, so this one the profile raised itself
        return "ok", Unavailable(f"{name}@{revision} raised KeyboardInterrupt")
    except Exception as exc:  # resolving or validating failed in a way the caller did not
        return "ok", Unavailable(f"the projection worker failed: {type(exc).__name__}: {exc}")


def serve(conn: Connection, inherited: Registry | None) -> None:
    """Answer requests until the pipe closes or ``None`` arrives.

    Ctrl-C reaches the whole process group; the caller handles it and stops its
    workers, so a worker ignores SIGINT rather than print its own traceback.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    registry = inherited if inherited is not None else get_registry()  # spawned: built from entry points
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        reply = answer(registry, request)
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return
        except Exception as exc:  # the reply did not pickle (a profile's odd facts or error)
            reason = f"{name_of(request)}: its result could not be sent back from the worker: {type(exc).__name__}"
            conn.send(("ok", Unavailable(reason)))


def name_of(request: Request) -> str:
    return f"{request[0]}@{request[1]}"
