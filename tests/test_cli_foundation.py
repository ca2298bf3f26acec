"""The lychd command: plugins, config init/validate/schema, --version, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lychd_core import __version__
from lychd_core.cli import main
from lychd_core.config import default_config, load_config

ROOT = Path(__file__).resolve().parents[1]
TOY_NAMES = {"toy.upper", "toy.head", "toy.roles", "toy.emails", "toy.words"}


def lychd(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lychd_core.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )


def test_plugins_lists_the_toy_distribution_when_installed() -> None:
    result = lychd("plugins", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    toy = {row["name"]: row for row in rows if row["distribution"] == "lychd-toy-plugin"}
    assert set(toy) == TOY_NAMES
    assert toy["toy.upper"] == {
        "name": "toy.upper",
        "family": "projection-profile",
        "revision": 1,
        "media_types": ["text/x-toy"],
        "distribution": "lychd-toy-plugin",
        "version": "0.1.0",
    }


def test_allowlist_hides_unlisted_distributions() -> None:
    result = lychd("plugins", "--json", env={"LYCHD_LOAD_PLUGINS": "lychd-roles"})
    assert result.returncode == 0, result.stderr
    assert not TOY_NAMES & {row["name"] for row in json.loads(result.stdout)}


def test_plugins_table_for_people() -> None:
    result = lychd("plugins", env={"COLUMNS": "200"})
    assert result.returncode == 0
    assert "toy.upper" in result.stdout and "lychd-toy-plugin" in result.stdout


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"lychd {__version__}"


def test_usage_errors_exit_2() -> None:
    assert lychd("no-such-command").returncode == 2
    assert lychd().returncode == 2
    assert lychd("config", "no-such-action").returncode == 2


def test_config_init_writes_the_default_and_refuses_to_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "lychd.toml"
    assert main(["config", "init", "--output", str(target)]) == 0
    assert load_config(target) == default_config()
    target.write_text("# mine\n")
    result = lychd("config", "init", "--output", str(target))
    assert result.returncode == 1 and "--force" in result.stderr and "Traceback" not in result.stderr
    assert target.read_text() == "# mine\n", "a refusal must not touch the file"
    assert main(["config", "init", "--output", str(target), "--force"]) == 0


def test_config_validate_reports_typed_errors_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('schema_version = 1\n[role_policy]\nname = "toy.role"\nrevision = 1\n')
    result = lychd("config", "validate", str(bad))
    assert result.returncode == 1
    assert "ConfigError" in result.stderr and "toy.roles" in result.stderr
    assert "Traceback" not in result.stderr


def test_config_validate_accepts_a_good_file(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text(
        'schema_version = 1\n[role_policy]\nname = "toy.roles"\nrevision = 1\n'
        '[projection.rules."text/x-toy"]\nprofile = "toy.upper"\nrevision = 1\n'
    )
    result = lychd("config", "validate", str(good), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["valid"] is True


def test_default_profile_validates_against_first_party_plugins() -> None:
    result = lychd("config", "validate", str(ROOT / "profiles" / "default.toml"))
    assert result.returncode == 0, result.stderr


def test_config_schema_is_json_schema() -> None:
    result = lychd("config", "schema")
    schema = json.loads(result.stdout)
    assert schema["title"] == "LychdConfig" and "governors" in schema["properties"]


@pytest.mark.parametrize("columns", ["80", "100"])
def test_plugins_reads_well_at_80_and_100_columns(columns: str) -> None:
    """No collapsed media-types column, no truncated names: every plugin on one whole line."""
    result = lychd("plugins", env={"COLUMNS": columns})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= int(columns)
    rows = json.loads(lychd("plugins", "--json").stdout)
    for row in rows:
        pin = f"{row['name']}@{row['revision']}"
        assert any(line.split()[:3] == [pin, row["distribution"], row["version"]] for line in lines), pin
    words = {word.rstrip(",") for line in lines for word in line.split()}
    assert {media for row in rows for media in row["media_types"]} <= words, "a media type was cut"
