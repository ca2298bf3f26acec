"""Every code block in ``docs/`` that is meant to run runs (issue 23); the rule for which
block runs is in ``tests/support/doc_blocks.py`` and ``docs/concepts.md``."""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from lychd_core.config import check_config, default_config, parse_config
from lychd_core.registry import get_registry
from tests.support.doc_blocks import DOCS, DocBlock, blocks_of, pages

ROOT = DOCS.parent
PAGES = [page for page in pages() if any(block.language == "python" and block.runs for block in blocks_of(page))]
ALL_BLOCKS = [block for page in pages() for block in blocks_of(page)]


def test_every_block_says_what_it_is() -> None:
    unmarked = [block.where() for block in ALL_BLOCKS if not block.info]
    assert unmarked == [], "give each fence an info string (python, toml, json, text, console, ...)"


def merged(base: dict[str, Any], fragment: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in fragment.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


TOML = [block for block in ALL_BLOCKS if block.language == "toml" and block.runs]


@pytest.mark.parametrize("block", TOML, ids=DocBlock.where)
def test_toml_blocks_are_valid(block: DocBlock) -> None:
    data = tomllib.loads(block.text)
    if len(block.info) > 1 and block.info[1] != "config":
        return  # another TOML file (a pyproject, a plan, a vocabulary): it parses
    config = parse_config(data if "config" in block.info else merged(default_config().model_dump(mode="json"), data))
    check_config(config, get_registry())


@pytest.mark.parametrize("block", [b for b in ALL_BLOCKS if b.language == "json" and b.runs], ids=DocBlock.where)
def test_json_blocks_parse(block: DocBlock) -> None:
    value = json.loads(block.text)
    if "rehydration-schema" in block.info:  # the documented format of `--schema`
        from lychd_core.privacy.vault import RehydrationSchema

        RehydrationSchema.model_validate(value)


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch copy of the repository's docs, profiles, README and core sources, as the cwd
    (examples that assemble this repository's own files read them there)."""
    skip = shutil.ignore_patterns("__pycache__", ".lychd")
    for folder in ("docs", "profiles", "lychd_core"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=skip)
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_python_blocks_run(page: Path, scratch: Path) -> None:
    namespace: dict[str, Any] = {"__name__": "__doc__"}
    for block in blocks_of(page):
        if block.language == "python" and block.runs:
            code = compile(block.text, block.where(), "exec", dont_inherit=True)  # not this file's __future__
            exec(code, namespace)  # the documentation's own examples, as a reader would run them
    assert os.getcwd() == str(scratch)


def test_memory_md_names_every_required_keyword_of_memory_record() -> None:
    """memory.md once called ``observed`` optional, but ``MemoryRecord()`` requires it."""
    import inspect
    import re

    from lychd_core.memory import MemoryRecord

    parameters = inspect.signature(MemoryRecord.__init__).parameters.items()
    required = [name for name, p in parameters if name != "self" and p.default is inspect.Parameter.empty]
    text = " ".join((DOCS / "memory.md").read_text().split())
    found = re.search(r"its required keywords are (.*?)\. ", text)
    assert found is not None
    assert re.findall(r"`(\w+)`", found.group(1)) == required


def test_writing_a_plugin_names_the_test_extra_and_it_installs_the_contracts_needs() -> None:
    text = (DOCS / "writing_a_plugin.md").read_text()
    assert "pip install 'lychd-core[test]'" in text
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert {"pytest", "hypothesis"} <= {requirement.split(">")[0].split("=")[0] for requirement in extra}


def test_the_vault_schema_format_is_documented() -> None:
    """The `--schema` format was documented nowhere: vault.md now shows one, validated above."""
    assert any("rehydration-schema" in block.info for block in blocks_of(DOCS / "vault.md"))


def deployment_config() -> str:
    (block,) = [b for b in blocks_of(DOCS / "deployment.md") if b.info == ("toml", "config")]
    return block.text


def test_deployment_runs_against_the_test_postgresql_server(
    scratch: Path,
    lychd_postgresql: Any,
    lychd_pg_schema: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """docs/deployment.md's fleet configuration, alone, and its two commands, verbatim."""
    from lychd_core.cli import main

    text = deployment_config()
    assert 'schema_name = "lychd"' in text
    (scratch / "fleet.toml").write_text(text.replace('schema_name = "lychd"', f'schema_name = "{lychd_pg_schema}"'))
    monkeypatch.setenv("LYCHD_DSN", lychd_postgresql.dsn())
    commands = [line.split() for line in (DOCS / "deployment.md").read_text().splitlines()]
    documented = [
        argv[1:] for argv in commands if argv[:2] == ["lychd", "memory"] and argv[-2:] == ["--config", "fleet.toml"]
    ]
    assert [argv[:2] for argv in documented] == [["memory", "add"], ["memory", "stats"]]
    for argv in documented:
        assert main(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main(["memory", "stats", "--config", "fleet.toml", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert lychd_pg_schema in json.dumps(stats), stats
    assert not (scratch / ".lychd" / "memory.sqlite3").exists(), "the memories went to PostgreSQL"


def test_a_missing_key_outside_the_state_directory_is_refused_not_created(tmp_path: Path) -> None:
    """deployment.md once set key_path = "/etc/lychd/cache.key", which lychd silently created."""
    from lychd_core.errors import ConfigError
    from lychd_core.stores.factory import open_projection_cache

    key = tmp_path / "etc" / "lychd" / "cache.key"
    data = default_config().model_dump(mode="json")
    data["stores"]["projection_cache"]["key_path"] = str(key)
    with pytest.raises(ConfigError, match=r"does not exist; lychd creates a key only in the state directory"):
        open_projection_cache(parse_config(data), tmp_path / "ws")
    assert not (tmp_path / "etc").exists()


def test_the_projected_example_module_is_the_one_shown() -> None:
    page = blocks_of(DOCS / "projections.md")
    shown = [b for b in page if b.language == "python" and b.text.startswith('"""Greeting helpers.')]
    assert [b.text for b in shown] == [(DOCS / "examples" / "pkg" / "greet.py").read_text()]
