"""A throwaway PostgreSQL cluster for tests, started from the server binaries on the machine.

``initdb`` into a temporary directory, ``pg_ctl`` listening only on a Unix socket in that
directory (no TCP port, nothing shared with other clusters), trust authentication for
one user, stopped and deleted afterwards. PostgreSQL refuses to run as root, so under
root the cluster runs as an unprivileged user (``nobody`` unless ``LYCHD_POSTGRESQL_USER``
names another): the child process switches user itself (``subprocess``'s ``user=``), so
no ``runuser`` or ``su`` is needed on PATH (``runuser`` lives in ``/usr/sbin``, which a
minimal PATH lacks).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

INSTALL_HINT = (
    "PostgreSQL server binaries (initdb, pg_ctl) were not found. Install them, e.g. "
    "`apt-get install postgresql` (Debian/Ubuntu), `dnf install postgresql-server` or `brew install postgresql`; "
    "or set LYCHD_SKIP_POSTGRESQL=1 to skip the PostgreSQL tests on this machine (CI never does)"
)
USER = "lychd"
PORT = 5432  # only names the socket file; the cluster listens on no TCP port


class PostgresUnavailable(RuntimeError):
    """No server could be started here; the message says how to install one."""


def server_binaries() -> Path:
    """The directory holding ``initdb`` and ``pg_ctl``: PATH first, then Debian's versioned directories."""
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if versions:
        return Path(versions[-1]).parent
    raise PostgresUnavailable(INSTALL_HINT)


def server_account() -> pwd.struct_passwd:
    """The unprivileged account a cluster started by root runs as."""
    name = os.environ.get("LYCHD_POSTGRESQL_USER", "nobody")
    try:
        return pwd.getpwnam(name)
    except KeyError:
        raise PostgresUnavailable(
            f"PostgreSQL refuses to run as root, and the account {name!r} to run it as does not exist; "
            "set LYCHD_POSTGRESQL_USER to an existing unprivileged user"
        ) from None


def preflight() -> str | None:
    """Why no cluster can be started here (binaries or account missing), or ``None``: cheap, starts nothing."""
    try:
        server_binaries()
        if os.geteuid() == 0:
            server_account()
    except PostgresUnavailable as exc:
        return str(exc)
    return None


class PostgresServer:
    """One cluster in a temporary directory; :meth:`dsn` for connections."""

    def __init__(self, *, fsync: bool = False) -> None:
        self.fsync = fsync  # off for tests (nothing survives them); on for benchmarks of durable commits
        self.bin = server_binaries()
        self.root = Path(tempfile.mkdtemp(prefix="lychd-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self._account: pwd.struct_passwd | None = None
        if os.geteuid() == 0:
            self._account = server_account()
            os.chown(self.root, self._account.pw_uid, self._account.pw_gid)
        self.root.chmod(0o700)

    def _run(self, *args: str, timeout: float = 120) -> None:
        account = self._account
        env = None
        if account is not None:  # the child drops to the account itself: no runuser needed on PATH
            env = {**os.environ, "HOME": str(self.root), "USER": account.pw_name, "LOGNAME": account.pw_name}
        try:
            done = subprocess.run(
                list(args),
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
                cwd=self.root,
                env=env,
                user=None if account is None else account.pw_uid,
                group=None if account is None else account.pw_gid,
                extra_groups=None if account is None else [],
            )
        except OSError as exc:
            raise PostgresUnavailable(f"could not run {args[0]}: {exc}\n{INSTALL_HINT}") from None
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise PostgresUnavailable(
                f"{' '.join(args[:2])} failed ({done.returncode}): {done.stderr.strip()[-2000:]}\n{log}\n{INSTALL_HINT}"
            )

    def start(self) -> PostgresServer:
        if not self.data.exists():
            self._run(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", USER, "-E", "UTF8",
                      "--no-sync", "--locale=C")  # fmt: skip
        fsync = "on" if self.fsync else "off"
        options = f"-k {self.root} -c listen_addresses='' -p {PORT} -c fsync={fsync} -c max_connections=200"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.log), "-w", "start")
        return self

    def stop(self, mode: str = "fast") -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def restart(self) -> None:
        self.stop("fast")
        self.start()

    def dsn(self, dbname: str = "postgres") -> str:
        return f"host={self.root} port={PORT} user={USER} dbname={dbname}"

    def destroy(self) -> None:
        with contextlib.suppress(PostgresUnavailable, subprocess.TimeoutExpired):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
