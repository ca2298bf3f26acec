"""Running projection jobs in time-limited worker processes.

A profile call runs in a worker process, whatever the process count (one worker for
``processes=1``), with a deadline: a job past its time limit has its worker killed and
becomes an explained absence; the next job gets a fresh worker. A signal-based limit in
the caller would be cheaper but cannot stop a profile stuck in native code (no Python
signal handler runs until the C call returns) and works only on the main thread; a
killed process always stops. The round trip costs about 0.1-0.2 ms per material, so
with one process, profiles that bound their own time (``time_bounded = True``, as the
first-party ones do) are called in the caller instead. Workers start on the first job
that needs one, so a warm run starts none.

Workers are forked where the platform allows, so they inherit the caller's registry
(including plugins registered without entry points). Elsewhere they start fresh and
build the registry from installed entry points.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import time
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from types import TracebackType
from typing import Any

from lychd_core.errors import LychdError
from lychd_core.families import Unavailable
from lychd_core.projection.outcomes import Checked, Job, run_profile
from lychd_core.projection.worker import serve
from lychd_core.registry import Registry


def in_process(job: Job) -> bool:
    """A profile that declares ``time_bounded = True`` ends its calls on its own (its parser runs in a
    process it kills at a limit, or its work is linear in the bounded input); with one process it is
    called here, without the round trip. Every other profile runs in a worker, within the limit."""
    return getattr(job.plugin.obj, "time_bounded", False) is True


DIED = "the projection worker process died while projecting this material"
PIPELINED_BYTES = 16 * 1024
"""A job this small may be sent while its worker is still busy with the one before (the
pipe holds it, so the send never blocks); a worker never waits for its next job."""


@dataclass(eq=False)
class _Worker:
    process: BaseProcess
    conn: Connection
    sent: deque[tuple[Future[Checked], Job]] = field(default_factory=deque)
    """Jobs sent and not answered, oldest first; the oldest is the one running."""
    deadline: float = 0.0
    """When the running job's time is up."""


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
            if worker.sent:
                worker.process.kill()  # busy: its jobs are abandoned
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
        """Queue one job; it starts as soon as a worker is free (or now, in-process: see :func:`in_process`)."""
        future: Future[Checked] = Future()
        if self.processes == 1 and in_process(job):
            future.set_result(run_profile(job.plugin, job.options, job.source))
            return future
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
            busy = {worker.conn: worker for worker in self._workers if worker is not None and worker.sent}
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
                if worker.sent and worker.deadline <= now and any(live is worker for live in self._workers):
                    self._stop(worker, self._timed_out(worker.sent[0][1]))
            self._dispatch()

    # --- internals ----------------------------------------------------------------

    def _dispatch(self) -> None:
        for slot in range(self.processes):
            worker = self._workers[slot]
            while self._queue:
                if worker is None:
                    try:
                        worker = self._workers[slot] = self._start()
                    except OSError as exc:  # no process could be started (process limit, memory)
                        future, _ = self._queue.popleft()
                        future.set_result(Unavailable(f"no projection worker process could be started: {exc}"))
                        continue
                if worker.sent and (len(worker.sent) > 1 or len(self._queue[0][1].source.data) > PIPELINED_BYTES):
                    break
                if not self._send(worker, *self._queue.popleft()):
                    worker = self._workers[slot]

    def _start(self) -> _Worker:
        forked = "fork" in multiprocessing.get_all_start_methods()
        context: Any = multiprocessing.get_context("fork" if forked else "spawn")
        parent, child = context.Pipe()
        process = context.Process(
            target=serve, args=(child, self.registry if forked else None), name="lychd-projection", daemon=True
        )
        gc.freeze()  # the child's collector then skips every inherited object, so it copies fewer pages
        try:
            process.start()
        finally:
            gc.unfreeze()
        child.close()
        return _Worker(process, parent)

    def _send(self, worker: _Worker, future: Future[Checked], job: Job) -> bool:
        if not worker.sent:
            worker.deadline = time.monotonic() + self.time_limit
        worker.sent.append((future, job))
        try:
            worker.conn.send((job.plugin.name, job.plugin.revision, job.options.model_dump(mode="json"), job.source))
        except OSError:  # the worker died
            self._stop(worker, Unavailable(DIED))
            return False
        return True

    def _receive(self, worker: _Worker) -> None:
        try:
            kind, value = worker.conn.recv()
        except (EOFError, OSError):
            self._stop(worker, Unavailable(DIED))
            return
        except Exception as exc:  # a reply that does not unpickle
            self._stop(worker, Unavailable(f"the projection worker sent an unreadable reply: {type(exc).__name__}"))
            return
        future, _ = worker.sent.popleft()
        worker.deadline = time.monotonic() + self.time_limit  # the next sent job starts now
        if kind == "raise" and isinstance(value, LychdError):
            future.set_exception(value)
        else:
            future.set_result(value)

    def _timed_out(self, job: Job) -> Unavailable:
        return Unavailable(
            f"{job.plugin.pin} from {job.plugin.distribution} did not finish within {self.time_limit:g} s and was "
            "stopped (the limit is [projection] time_limit_seconds)"
        )

    def _stop(self, worker: _Worker, outcome: Unavailable) -> None:
        """End a worker that failed or ran out of time: its running job gets ``outcome``, the jobs
        sent after it (never started) go back to the front of the queue, a fresh worker replaces it."""
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join()
        worker.conn.close()
        self._workers = [None if slot is worker else slot for slot in self._workers]
        if worker.sent:
            future, _ = worker.sent.popleft()
            self._queue.extendleft(reversed(worker.sent))
            worker.sent.clear()
            future.set_result(outcome)
