"""Selecting a store backend in the TOML config, and moving a store between backends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from lychd_core.cli import main
from lychd_core.config import default_config, load_config
from lychd_core.errors import ConfigError
from lychd_core.stores.factory import open_memory_store, open_projection_cache
from lychd_core.stores.postgres import PostgresMemoryStore, PostgresProjectionCache
from lychd_core.testing.postgres import PostgresServer

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "memory.json"
HEAD = 'schema_version = 1\n[role_policy]\nname = "roles.standard"\nrevision = 1\n'


def write_config(tmp_path: Path, name: str, stores: str) -> Path:
    path = tmp_path / name
    path.write_text(HEAD + stores)
    return path


@pytest.mark.parametrize(
    ("stores", "complaint"),
    [
        ('[stores.memory]\nbackend = "postgresql"\ndsn = "postgresql://me:hunter2@db/lychd"\n', "never holds a DSN"),
        ('[stores.memory]\nbackend = "postgresql"\npassword = "hunter2"\n', "never holds a DSN or password"),
        ('[stores.memory]\nbackend = "postgresql"\ndsn_env = "postgresql://me:hunter2@db/x"\n', "never the DSN"),
        ('[stores.memory]\nbackend = "postgresql"\n', "needs dsn_env"),
        ('[stores.memory]\nbackend = "sqlite"\n', "needs path"),
        ('[stores.vault]\nbackend = "postgresql"\ndsn_env = "X"\n', "vault is a local SQLite file"),
        ('[stores]\nstate_dir = "../elsewhere"\n', "climbs out of the workspace"),
        ('[stores.memory]\npath = "postgresql://db/x"\n', "looks like a connection string"),
    ],
)
def test_configs_holding_secrets_or_escaping_paths_are_refused(tmp_path: Path, stores: str, complaint: str) -> None:
    path = write_config(tmp_path, "lychd.toml", stores)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert complaint in str(caught.value) and str(path) in str(caught.value)
    assert "hunter2" not in str(caught.value).split("never")[0].replace(str(path), "")


def test_postgresql_is_selected_by_config_and_the_dsn_comes_from_the_environment(
    tmp_path: Path, lychd_postgresql: PostgresServer, lychd_pg_schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    stores = (
        f'[stores.memory]\nbackend = "postgresql"\ndsn_env = "LYCHD_TEST_DSN"\nschema_name = "{lychd_pg_schema}"\n'
        f'[stores.projection_cache]\nbackend = "postgresql"\ndsn_env = "LYCHD_TEST_DSN"\n'
        f'schema_name = "{lychd_pg_schema}"\n'
    )
    config = load_config(write_config(tmp_path, "fleet.toml", stores))
    with pytest.raises(ConfigError, match="LYCHD_TEST_DSN is not set"):
        open_memory_store(config, tmp_path, create=True)
    monkeypatch.setenv("LYCHD_TEST_DSN", lychd_postgresql.dsn())
    with open_memory_store(config, tmp_path, create=True) as store:
        assert isinstance(store, PostgresMemoryStore)
    cache = open_projection_cache(config, tmp_path)
    assert isinstance(cache, PostgresProjectionCache) and cache.count() == 0
    cache.close()
    assert (tmp_path / ".lychd" / "cache.key").stat().st_mode & 0o777 == 0o600


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_memory_copy_moves_a_store_to_postgresql_and_back_verifying_digests(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    lychd_postgresql: PostgresServer,
    lychd_pg_schema: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LYCHD_TEST_DSN", lychd_postgresql.dsn())
    fleet = write_config(
        tmp_path,
        "fleet.toml",
        f'[stores.memory]\nbackend = "postgresql"\ndsn_env = "LYCHD_TEST_DSN"\nschema_name = "{lychd_pg_schema}"\n',
    )
    back = write_config(tmp_path, "back.toml", '[stores.memory]\npath = "copied.sqlite3"\n')
    ws = ["--workspace", str(tmp_path)]
    assert run(capsys, "memory", "add", str(EXAMPLE), *ws)[0] == 0
    assert run(capsys, "memory", "forget", "warn-flaky-ci", "--reason", "r", "--observation", "999", *ws)[0] == 0
    code, out, err = run(capsys, "memory", "copy", "--to", str(fleet), "--json", *ws)
    assert code == 0, err
    copied = json.loads(out)
    code, out, _ = run(capsys, "memory", "stats", "--json", "--config", str(fleet), *ws)
    assert code == 0 and json.loads(out)["index_digest"] == copied["index_digest"]
    code, out, _ = run(capsys, "memory", "copy", "--to", str(fleet), "--json", *ws)  # a re-run adds nothing
    assert code == 0 and json.loads(out)["added_revisions"] == 0
    code, out, err = run(capsys, "memory", "copy", "--config", str(fleet), "--to", str(back), "--json", *ws)
    assert code == 0, err
    assert json.loads(out)["index_digest"] == copied["index_digest"]
    code, _, err = run(capsys, "memory", "copy", "--to", str(write_config(tmp_path, "same.toml", "")), *ws)
    assert code == 1 and "same store" in err
    other = write_config(tmp_path, "other.toml", '[stores.memory]\npath = "other.sqlite3"\n')
    extra = tmp_path / "extra.json"
    extra.write_text(EXAMPLE.read_text().replace("warn-flaky-ci", "only-in-other"))
    assert run(capsys, "memory", "add", str(extra), "--config", str(other), *ws)[0] == 0
    code, _, err = run(capsys, "memory", "copy", "--to", str(other), *ws)
    assert code == 1 and "StoreCopyError" in err and "Traceback" not in err
    assert default_config().stores.memory.backend == "sqlite"


def test_without_server_binaries_the_fixture_says_how_to_install_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from lychd_core.testing import postgres

    monkeypatch.setattr(postgres.shutil, "which", lambda name: None)
    monkeypatch.setattr(postgres.glob, "glob", lambda pattern: [])
    with pytest.raises(postgres.PostgresUnavailable) as caught:
        postgres.server_binaries()
    assert "apt-get install postgresql" in str(caught.value) and "LYCHD_SKIP_POSTGRESQL=1" in str(caught.value)


MINIMAL_PATH = "/usr/local/bin:/usr/bin:/bin"


def test_a_server_starts_and_serves_with_a_minimal_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found on a fresh clone: with PATH lacking /usr/sbin, every PostgreSQL test errored at setup
    (the helper ran the server through ``runuser``, looked up on PATH)."""
    from lychd_core.testing.postgres import PostgresServer

    monkeypatch.setenv("PATH", MINIMAL_PATH)
    server = PostgresServer().start()
    try:
        with psycopg.connect(server.dsn()) as connection:
            assert connection.execute("select 1").fetchone() == (1,)
    finally:
        server.destroy()


@pytest.mark.skipif(os.geteuid() != 0, reason="the missing account is what fails, and only root runs the server as one")
def test_postgresql_tests_without_a_server_stop_the_run_with_one_message(tmp_path: Path) -> None:
    """Selected tests that need a server that cannot be started: one message, no per-test setup errors."""
    (tmp_path / "test_needs_pg.py").write_text(
        "def test_one(lychd_postgresql):\n    pass\n\n\ndef test_two(lychd_postgresql):\n    pass\n"
    )
    env = {**os.environ, "PATH": str(tmp_path), "LYCHD_POSTGRESQL_USER": "no-such-user-here"}
    env.pop("LYCHD_SKIP_POSTGRESQL", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path / "test_needs_pg.py")],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, output
    assert output.count("need a PostgreSQL server") == 1, output
    assert "ERROR at setup" not in output and "passed" not in output, output
