"""Neutral defaults found on their own (issue 23): ``lychd.toml`` or ``[tool.lychd]`` from
the workspace upward, ``config init`` writing a commented neutral file that commands then
use, and a hosted refusal that says which ``[[labels]]`` rule to add."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
import tomli_w

from lychd_core.cli import main
from lychd_core.config import default_config, parse_config
from lychd_core.config.discovery import config_source, find_config
from lychd_core.config.template import LABELS_EXAMPLE, commented_config
from lychd_core.errors import ConfigError

LABELLED = '[[labels]]\npath = "src/**"\nprivacy_class = "public"\n'


def workspace(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("def answer():\n    return 42\n")
    return root


def assemble(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    asked = ["--query", "what is answer?", "--query-label", "public", "--target", "hosted"]
    code = main(["assemble", "--workspace", str(root), "--material", "src", *asked, *extra])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_without_any_config_the_neutral_default_refuses_hosted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, output = assemble(workspace(tmp_path), capsys)
    assert code == 1 and "EgressRefused" in output


def test_lychd_toml_in_the_workspace_is_used_without_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = workspace(tmp_path)
    (root / "lychd.toml").write_text(commented_config() + LABELLED)
    code, output = assemble(root, capsys)
    assert code == 0, output


def test_a_config_in_a_parent_folder_is_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "lychd.toml").write_text(commented_config() + LABELLED.replace("src/**", "**"))
    root = workspace(tmp_path / "deep" / "project")
    assert find_config(root).path == tmp_path / "lychd.toml"
    assert assemble(root, capsys)[0] == 0


def test_tool_lychd_in_pyproject_is_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = workspace(tmp_path)
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert find_config(root).path is None, "a pyproject.toml without [tool.lychd] is not a config"
    table = tomllib.loads(commented_config() + LABELLED)
    (root / "pyproject.toml").write_text(tomli_w.dumps({"project": {"name": "x"}, "tool": {"lychd": table}}))
    source = find_config(root)
    assert (source.path, source.table) == (root / "pyproject.toml", "tool.lychd")
    assert source.describe().endswith("pyproject.toml [tool.lychd]")
    assert assemble(root, capsys)[0] == 0


def test_lychd_toml_wins_over_pyproject_and_the_nearer_folder_wins(tmp_path: Path) -> None:
    (tmp_path / "lychd.toml").write_text(commented_config())
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[tool.lychd]\nschema_version = 1\n")
    assert find_config(inner).path == inner / "pyproject.toml"
    (inner / "lychd.toml").write_text(commented_config())
    assert find_config(inner).path == inner / "lychd.toml"


def test_config_flag_wins_over_discovery(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = workspace(tmp_path)
    (root / "lychd.toml").write_text(commented_config() + LABELLED)
    neutral = tmp_path / "neutral.toml"
    neutral.write_text(commented_config())
    assert assemble(root, capsys, "--config", str(neutral))[0] == 1
    assert config_source(str(neutral), root).path == neutral


def test_an_invalid_tool_table_names_the_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.lychd]\nschema_version = 1\nturn_windw = 3\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml \[tool.lychd\]"):
        find_config(tmp_path).load()


def test_config_init_then_every_command_here_uses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["config", "init"]) == 0
    capsys.readouterr()
    assert main(["config", "validate", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["file"] == str(tmp_path / "lychd.toml")


def test_the_written_config_is_commented_neutral_and_its_label_example_is_valid() -> None:
    text = commented_config()
    assert parse_config(tomllib.loads(text)) == default_config()
    assert sum(line.startswith("#") for line in text.splitlines()) > 30
    assert "lychd-core" not in text and "[[labels]]\n" not in text.replace("# [[labels]]\n", "")
    example = "\n".join(line.removeprefix("# ").removeprefix("#") for line in LABELS_EXAMPLE.splitlines()[5:])
    config = parse_config(tomllib.loads(text + example))
    assert [rule.path for rule in config.labels] == ["src/**", "docs/**"]


def test_a_hosted_refusal_names_the_rule_to_add_and_that_rule_admits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = workspace(tmp_path)
    code = main(["assemble", "--workspace", str(root), "--material", "src", "--query", "q?", "--target", "hosted"])
    message = capsys.readouterr().err
    assert code == 1
    assert '[[labels]]\n  path = "src/**"\n  privacy_class = "internal"' in message
    assert "--query-label" in message
    rule = message[message.index("\n  [[labels]]") :].split("\nthe query")[0]
    (root / "lychd.toml").write_text(commented_config() + "\n" + "\n".join(x.strip() for x in rule.splitlines()))
    code, output = assemble(root, capsys)
    assert code == 0, output


def test_the_assemble_summary_names_the_config_in_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = workspace(tmp_path)
    argv = ["assemble", "--workspace", str(root), "--material", "src", "--query", "q", "--format", "json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["config"].startswith("the embedded default")
    (root / "lychd.toml").write_text(commented_config())
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["config"] == str(root / "lychd.toml")
