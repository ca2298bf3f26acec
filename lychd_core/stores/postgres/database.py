"""A psycopg 3 connection pool per process, with transactions that retry or fail typed.

Every call runs one transaction on a pooled connection: committed whole when the body
returns, rolled back when it raises. A serialization failure or deadlock is retried
with backoff (the caller never sees it); a lost or refused connection becomes a typed
error (the pool drops broken connections, so later calls recover once the server is
back; a single-statement read is retried once on a fresh connection).
"""

from __future__ import annotations

import hashlib
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool, PoolTimeout

from lychd_core.errors import LychdError

T = TypeVar("T")

RETRIES = 12
CONNECT_TIMEOUT_S = 10
POOL_WAIT_S = 15.0

ErrorFactory = Callable[[str, bool], LychdError]
"""``(message, connection_lost) -> typed error``: each store family supplies its own."""


def lock_key(*parts: str) -> int:
    """A stable signed 64-bit advisory-lock key for ``parts`` (same on every machine)."""
    digest = hashlib.blake2b("\0".join(parts).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def lock_space(schema: str) -> int:
    """A signed 32-bit namespace for the two-key advisory locks of one schema."""
    return lock_key(schema) >> 32


def describe_dsn(dsn: str) -> str:
    """``host:port/dbname`` of a DSN, never its password."""
    try:
        info = conninfo_to_dict(dsn)
    except psycopg.Error:
        return "postgresql (unparsable DSN)"
    host = info.get("host") or "localhost"
    port = info.get("port") or "5432"
    return f"postgresql://{host}:{port}/{info.get('dbname') or info.get('user') or ''}"


class Database:
    """One DSN and schema, a lazily opened pool per process, and typed transactions."""

    def __init__(
        self, dsn: str, schema: str, error: ErrorFactory, *, pool_size: int = 4, pool_timeout: float = POOL_WAIT_S
    ) -> None:
        self.dsn = dsn
        self.schema = schema
        self.where = f"{describe_dsn(dsn)} schema {schema}"
        self._error = error
        self._pool_size = pool_size
        self._pool_timeout = pool_timeout
        self._pool: ConnectionPool[Any] | None = None
        self._pid = 0
        self._lock = threading.Lock()

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        conn.execute(psycopg.sql.SQL("SET search_path TO {}").format(psycopg.sql.Identifier(self.schema)))

    def pool(self) -> ConnectionPool[Any]:
        with self._lock:
            if self._pool is None or self._pid != os.getpid():
                # A pool inherited through fork is another process's: leave it, open our own.
                self._pool = ConnectionPool(
                    self.dsn,
                    min_size=1,
                    max_size=self._pool_size,
                    # autocommit: a read is one round trip; writes open explicit transactions.
                    kwargs={"connect_timeout": CONNECT_TIMEOUT_S, "autocommit": True},
                    configure=self._configure,
                    timeout=self._pool_timeout,
                    reconnect_timeout=3600,
                    open=False,
                    name=f"lychd-{self.schema}",
                )
                self._pool.open(wait=False)
                self._pid = os.getpid()
            return self._pool

    def close(self) -> None:
        with self._lock:
            if self._pool is not None and self._pid == os.getpid():
                self._pool.close()
            self._pool = None

    def connect(self) -> psycopg.Connection[Any]:
        """One direct connection (for opening checks), failing fast and typed."""
        with self.errors("connect"):
            return psycopg.connect(self.dsn, connect_timeout=CONNECT_TIMEOUT_S, autocommit=False)

    @contextmanager
    def errors(self, action: str) -> Iterator[None]:
        try:
            yield
        except (pg_errors.SerializationFailure, pg_errors.DeadlockDetected):
            raise
        except psycopg.OperationalError as exc:
            raise self._error(
                f"{self.where}: the connection was lost or refused while trying to {action} ({_first_line(exc)}); "
                "nothing of this call was acknowledged. Retry when the server is reachable",
                True,
            ) from None
        except psycopg.Error as exc:
            raise self._error(f"{self.where}: cannot {action}: {_first_line(exc)}", False) from None

    def run(
        self,
        action: str,
        body: Callable[[psycopg.Connection[Any]], T],
        *,
        isolation: str | None = None,
        transaction: bool = True,
    ) -> T:
        """``body`` in one transaction, retried on serialization failure or deadlock.

        ``transaction=False`` runs a single read statement in autocommit (one round trip);
        such a read is also retried once on a fresh connection when its pooled one was lost.
        """
        lost_once = False
        for attempt in range(RETRIES):
            try:
                with self.pool().connection() as conn:
                    if not transaction:
                        return body(conn)
                    with conn.transaction():
                        if isolation is not None:
                            conn.execute(f"SET TRANSACTION ISOLATION LEVEL {isolation}")
                        return body(conn)
            except (pg_errors.SerializationFailure, pg_errors.DeadlockDetected):
                if attempt == RETRIES - 1:
                    raise self._error(
                        f"{self.where}: gave up after {RETRIES} serialization retries while trying to {action}; "
                        "nothing was written. Retry later",
                        False,
                    ) from None
                time.sleep(random.uniform(0, 0.01 * 2**attempt))
            except psycopg.OperationalError as exc:
                if transaction or lost_once or isinstance(exc, PoolTimeout):
                    with self.errors(action):
                        raise
                lost_once = True  # a stale pooled connection: the pool drops it, the read goes again
            except psycopg.Error:
                with self.errors(action):
                    raise
        raise AssertionError("unreachable")


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
