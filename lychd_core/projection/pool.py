"""Running projection jobs in time-limited worker processes, one job per worker at a time.

Every profile call runs in a worker process, whatever the process count (one worker
for ``processes=1``), with a deadline: a job past its time limit has its worker
killed and becomes an explained absence; the next job gets a fresh worker. A
signal-based limit in the caller would be cheaper but cannot stop a profile stuck in
native code (no Python signal handler runs until the C call returns), and works only
on the main thread; a killed process always stops. Workers start on the first cache
miss, so a warm run starts none.

Workers are forked where the platform allows, so they inherit the caller's registry
(including plugins registered without entry points). Elsewhere they start fresh and
build the registry from installed entry points.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import time
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from types import TracebackType
from typing import Any

from lychd_core.errors import LychdError
from lychd_core.families import Unavailable
from lychd_core.projection.outcomes import Checked, Job
from lychd_core.projection.worker import serve
from lychd_core.registry import Registry

DIED = "the projection worker process died while projecting this material"


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    future: Future[Checked] | None = None
    job: Job | None = None
    deadline: float = 0.0


class JobRunner:
    """Runs jobs on up to ``processes`` workers, each job within ``time_limit`` seconds."""

    def __init__(self, registry: Registry, processes: int, time_limit: float = 120.0) -> None:
        self.registry = registry
        self.processes = processes
        self.time_limit = time_limit
        self._workers: list[_Worker | None] = [None] * processes
        self._queue: deque[tuple[Future[Checked], Job]] = deque()

    def __enter__(self) -> JobRunner:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker: asked to exit (so it closes what it opened), killed if it does not."""
        workers = [worker for worker in self._workers if worker is not None]
        self._workers = [None] * self.processes
        for worker in workers:
            if worker.future is not None:
                worker.process.kill()  # busy: its job is abandoned
                continue
            with contextlib.suppress(OSError):
                worker.conn.send(None)
        for worker in workers:
            worker.process.join(timeout=2)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.conn.close()

    def submit(self, job: Job) -> Future[Checked]:
        """Queue one job; it starts as soon as a worker is free."""
        future: Future[Checked] = Future()
        self._queue.append((future, job))
        self._dispatch()
        return future

    def outcome(self, future: Future[Checked]) -> Checked:
        """A finished job's checked outcome (a typed error from the job is raised, as in-process)."""
        return future.result()

    def wait(self, futures: Iterable[Future[Checked]]) -> set[Future[Checked]]:
        """Block until at least one of ``futures`` is done (enforcing deadlines meanwhile); the done ones."""
        pending = list(futures)
        while True:
            done = {future for future in pending if future.done()}
            if done or not pending:
                return done
            busy = {worker.conn: worker for worker in self._workers if worker is not None and worker.future}
            if not busy:
                if not self._queue:
                    raise RuntimeError("a submitted projection job is neither queued nor running")  # a bug
                self._dispatch()
                continue
            timeout = max(0.0, min(worker.deadline for worker in busy.values()) - time.monotonic())
            for conn in wait(list(busy), timeout=timeout):
                self._receive(busy[conn])  # type: ignore[index]
            now = time.monotonic()
            for worker in busy.values():
                if worker.future is not None and worker.deadline <= now:
                    self._stop(worker, self._timed_out(worker))
            self._dispatch()

    # --- internals ----------------------------------------------------------------

    def _dispatch(self) -> None:
        for slot in range(self.processes):
            if not self._queue:
                return
            worker = self._workers[slot]
            if worker is None:
                try:
                    worker = self._workers[slot] = self._start()
                except OSError as exc:  # no process could be started (process limit, memory)
                    future, _ = self._queue.popleft()
                    future.set_result(Unavailable(f"no projection worker process could be started: {exc}"))
                    continue
            if worker.future is None:
                future, job = self._queue.popleft()
                self._send(worker, future, job)

    def _start(self) -> _Worker:
        forked = "fork" in multiprocessing.get_all_start_methods()
        context: Any = multiprocessing.get_context("fork" if forked else "spawn")
        parent, child = context.Pipe()
        process = context.Process(
            target=serve, args=(child, self.registry if forked else None), name="lychd-projection", daemon=True
        )
        process.start()
        child.close()
        return _Worker(process, parent)

    def _send(self, worker: _Worker, future: Future[Checked], job: Job) -> None:
        options = job.options.model_dump(mode="json")
        worker.future, worker.job = future, job
        worker.deadline = time.monotonic() + self.time_limit
        try:
            worker.conn.send((job.plugin.name, job.plugin.revision, options, job.source))
        except OSError:  # the worker died while idle
            self._stop(worker, Unavailable(DIED))

    def _receive(self, worker: _Worker) -> None:
        future = worker.future
        assert future is not None
        try:
            kind, value = worker.conn.recv()
        except (EOFError, OSError):
            self._stop(worker, Unavailable(DIED))
            return
        except Exception as exc:  # a reply that does not unpickle
            self._stop(worker, Unavailable(f"the projection worker sent an unreadable reply: {type(exc).__name__}"))
            return
        worker.future = worker.job = None
        if kind == "raise" and isinstance(value, LychdError):
            future.set_exception(value)
        else:
            future.set_result(value)

    def _timed_out(self, worker: _Worker) -> Unavailable:
        plugin = worker.job.plugin if worker.job is not None else None
        who = "the profile" if plugin is None else f"{plugin.pin} from {plugin.distribution}"
        return Unavailable(
            f"{who} did not finish within {self.time_limit:g} s and was stopped "
            "(the limit is [projection] time_limit_seconds)"
        )

    def _stop(self, worker: _Worker, outcome: Unavailable) -> None:
        """End a worker that failed or ran out of time; its job gets ``outcome``; a fresh one replaces it."""
        future = worker.future
        worker.future = worker.job = None
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join()
        worker.conn.close()
        self._workers = [None if slot is worker else slot for slot in self._workers]
        if future is not None:
            future.set_result(outcome)
