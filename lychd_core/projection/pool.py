"""Running projection jobs in-process or in a pool of processes (libcst is slow; processes scale).

Workers are forked where the platform allows, so they inherit the caller's registry
(including plugins registered without entry points). Elsewhere they start fresh and
build the registry from installed entry points.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from types import TracebackType
from typing import Any

from lychd_core.families import PluginFamily, SourceMaterial, Unavailable
from lychd_core.projection.outcomes import Checked, Job, run_profile
from lychd_core.registry import Registry, get_registry

_INHERITED: Registry | None = None


def _project_task(name: str, revision: int, options: dict[str, Any], source: SourceMaterial) -> Checked:
    registry = _INHERITED if _INHERITED is not None else get_registry()
    plugin = registry.resolve(PluginFamily.PROJECTION_PROFILE, name, revision)
    return run_profile(plugin, plugin.obj.options_model.model_validate(options), source)


class JobRunner:
    """Runs jobs in order of submission; a pool is started only when it is needed."""

    def __init__(self, registry: Registry, processes: int) -> None:
        self.registry = registry
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> JobRunner:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _executor(self) -> ProcessPoolExecutor:
        global _INHERITED
        if self._pool is None:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
            _INHERITED = self.registry  # read by forked workers
            self._pool = ProcessPoolExecutor(max_workers=self.processes, mp_context=context)
        return self._pool

    def submit(self, job: Job) -> Future[Checked]:
        """Start one job: in this process at once (a completed future), or in the pool."""
        if self.processes == 1:
            future: Future[Checked] = Future()
            future.set_result(run_profile(job.plugin, job.options, job.source))
            return future
        options = job.options.model_dump(mode="json")
        try:
            return self._executor().submit(_project_task, job.plugin.name, job.plugin.revision, options, job.source)
        except BrokenProcessPool:
            self.close()
            future = Future()
            future.set_result(Unavailable("the projection worker pool broke before this material was projected"))
            return future

    def outcome(self, future: Future[Checked]) -> Checked:
        """A finished job's checked outcome; a dead or failing worker is an explained absence."""
        try:
            return future.result()
        except BrokenProcessPool:
            self.close()  # the next submission starts a fresh pool
            return Unavailable("the projection worker process died while projecting this material")
        except Exception as exc:
            return Unavailable(f"the projection worker failed: {type(exc).__name__}: {exc}")
