"""What `lychd assemble` prints: one screen by default, the prompt, markdown, JSON, --output.

The README main job is run as the README shows it (its command parsed from the README),
in a subprocess at 100 columns, so the screen a reader sees is the one tested.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lychd_core.assembly import ContextOrchestrator
from lychd_core.blocks import Block, Layer, Lineage
from lychd_core.cli import main
from lychd_core.cli.assemble_formats import fence, prompt_text
from lychd_core.cli.assemble_show import columns
from lychd_core.labels import PrivatizationLabel

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BEGIN = re.compile(r"^<<<lychd:begin (\{.*\})>>>$", re.M)
JARGON = ("x2", "restricted?", "optional-root", "required-root", "alternative-selected", "class INTERNAL from", "L3:")


def readme_main_job() -> list[str]:
    line = next(line for line in README.splitlines() if "lychd assemble" in line)
    return shlex.split(line.split("lychd assemble", 1)[1])


def lychd(*args: str, cwd: Path = ROOT, columns: int = 100) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lychd_core.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": str(columns)},
        timeout=600,  # a hang guard only
        check=False,
    )


@pytest.fixture(scope="module")
def main_job() -> dict[str, Any]:
    """The README main job's default screen, its JSON and its prompt, from one checkout state."""
    args = ["assemble", *readme_main_job()]
    runs = {
        name: lychd(*args, *extra)
        for name, extra in (("screen", []), ("json", ["--json"]), ("prompt", ["--format", "prompt"]))
    }
    for name, run in runs.items():
        assert run.returncode == 0, (name, run.stderr)
    return {"screen": runs["screen"].stdout, "json": json.loads(runs["json"].stdout), "prompt": runs["prompt"].stdout}


def sections(prompt: str) -> list[tuple[dict[str, str], str]]:
    """Each tagged section of a prompt, read in order as a consumer would: a begin line, then
    everything up to the end marker that carries the digest the begin line named."""
    found = []
    position = 0
    while (match := BEGIN.search(prompt, position)) is not None:
        fields = json.loads(match.group(1))
        end = f"\n<<<lychd:end {fields['digest']}>>>"
        stop = prompt.index(end, match.end())
        found.append((fields, prompt[match.end() + 1 : stop]))
        position = stop + len(end)
    return found


def test_the_main_job_fits_one_screen_in_plain_words(main_job: dict[str, Any]) -> None:
    screen = main_job["screen"]
    lines = screen.splitlines()
    assert len(lines) <= 60, f"{len(lines)} lines"
    assert all(len(line) <= 100 for line in lines), max(lines, key=len)
    assert [word for word in JARGON if word in screen] == []
    assert "of 96,000 characters used" in screen and "budget in characters" in screen
    header = next(line for line in lines if line.startswith("rank "))
    assert header.split()[2] == "characters" and "tokens" not in "".join(lines[:4]), "one unit: no window is known"
    assert re.search(r"^files +\d+ +\d+", screen, re.M), "selected and omitted files are counted"
    assert "privacy label: internal, set by the environment snapshot" in screen
    assert "egress: admitted to hosted" in screen
    listed = [line.split()[4] for line in lines if re.match(r"^ +(\d+|-) +(full|signatures|names) ", line)]
    assert listed and len(listed) == len(set(listed)), "each file once, whatever its views"
    assert "lychd_core/plugins.py" in listed[:3]


def test_the_summary_lists_files_once_in_rank_order_with_their_view(main_job: dict[str, Any]) -> None:
    data = main_job["json"]
    material = data["summary"]["material"]
    paths = [row["path"] for row in material]
    assert len(paths) == len(set(paths))
    ranks = [row["rank"] for row in material if not row["required"]]
    assert ranks == sorted(ranks)
    explanations = data["plan"]["explanations"]
    for row in material:
        assert explanations[row["node_id"]]["selected"]
        assert row["view"] == (row["node_id"].rsplit("#", 1)[1] if "#" in row["node_id"] else "full")
        assert row["size"] == explanations[row["node_id"]]["chars"]
    budget = data["summary"]["budget"]
    assert budget["unit"] == "characters" and budget["used"] == data["governed"]["used_chars"]
    assert budget["cap"] == data["governed"]["char_cap"]


def test_a_score_0_file_in_full_says_the_map_put_it_there(main_job: dict[str, Any]) -> None:
    material = main_job["json"]["summary"]["material"]
    for row in material:
        if row["score"] == 0:
            assert "no match for the query" in row["reason"] and "repository map" in row["reason"], row


def test_the_prompt_is_the_render_plan_with_explicit_boundaries(main_job: dict[str, Any]) -> None:
    data, prompt = main_job["json"], main_job["prompt"]
    found = sections(prompt)
    assert {fields["id"] for fields, _ in found} == set(data["plan"]["selected"])
    for fields, content in found:
        assert fields["digest"] == "sha256:" + hashlib.sha256(content.encode()).hexdigest()
    files = [fields for fields, _ in found if fields["class"] == "source"]
    assert all(f["path"] and f["view"] in ("full", "signatures", "names") for f in files)
    assert len({f["path"] for f in files}) == len(files), "one section per file"
    assert found[-1][0]["class"] == "query" and found[-1][1] == data["query"]
    assert "README.md" in {f["path"] for f in files}


def test_prompt_puts_history_after_material_and_the_query_last(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.conversations import conversation

    (tmp_path / "a.py").write_text("def f(x: int) -> int:\n    return x\n")
    history = tmp_path / "h.json"
    history.write_text(json.dumps(conversation(2)))
    args = ["assemble", "--workspace", str(tmp_path), "--material", "a.py", "--history", str(history), "--query", "q?"]
    assert main([*args, "--format", "prompt"]) == 0
    classes = [fields["class"] for fields, _ in sections(capsys.readouterr().out)]
    assert classes == ["environment", "source", "history", "history", "query"]


def test_markdown_lists_every_file_and_fences_hold_backticks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.md").write_text("Run ```` this ```` now.\n")
    (tmp_path / "a.py").write_text("def f() -> int:\n    return 1\n")
    code = main(["assemble", "--workspace", str(tmp_path), "--material", ".", "--query", "f?", "--format", "markdown"])
    out = capsys.readouterr().out
    assert code == 0
    assert "| `a.py` |" in out and "| `notes.md` |" in out
    assert "`````markdown\nRun ```` this ```` now.\n\n`````" in out, "the fence is longer than any run inside"
    assert out.index("## The context, as the model receives it") < out.index("### the query")


def test_json_and_its_alias_agree_and_every_key_is_documented(
    main_job: dict[str, Any], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "a.py").write_text("def f() -> int:\n    return 1\n")
    base = ["assemble", "--workspace", str(tmp_path), "--material", "a.py", "--query", "f?"]
    assert main([*base, "--json"]) == 0
    alias = capsys.readouterr().out
    assert main([*base, "--format", "json"]) == 0
    assert capsys.readouterr().out == alias
    docs = (ROOT / "docs" / "output.md").read_text(encoding="utf-8")
    data = main_job["json"]
    missing = [key for key in data if f"`{key}`" not in docs]
    missing += [f"summary.{key}" for key in data["summary"] if f"`{key}`" not in docs]
    assert missing == []


def test_output_writes_a_file_atomically_and_refuses_what_is_not_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.py").write_text("def f() -> int:\n    return 1\n")
    base = ["assemble", "--workspace", str(tmp_path), "--material", "a.py", "--query", "f?", "--format", "prompt"]
    assert main(base) == 0
    printed = capsys.readouterr().out
    target = tmp_path / "out" / "prompt.txt"
    target.parent.mkdir()
    target.write_text("old")
    assert main([*base, "--output", str(target)]) == 0
    assert capsys.readouterr().out == "" and target.read_text() == printed
    assert sorted(p.name for p in target.parent.iterdir()) == ["prompt.txt"], "no temporary file is left"
    for bad, words in ((tmp_path / "missing" / "p.txt", "does not exist"), (tmp_path / "out", "is a directory")):
        assert main([*base, "--output", str(bad)]) == 1
        err = capsys.readouterr().err
        assert "OutputFileError" in err and str(bad) in err and words in err
    assert not (tmp_path / "missing").exists()
    assert main(["assemble", "--workspace", str(tmp_path), "--query", "f?", "--output", str(target)]) == 0
    assert target.read_text().startswith("context for run cli-run") and "\x1b[" not in target.read_text()


def test_explain_shows_every_node_and_goes_with_the_summary_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.py").write_text("def f() -> int:\n    return 1\n")
    base = ["assemble", "--workspace", str(tmp_path), "--material", "a.py", "--query", "f?"]
    assert main(base) == 0
    assert "every node, selected or omitted" not in capsys.readouterr().out
    assert main([*base, "--explain"]) == 0
    out = capsys.readouterr().out
    assert "every node, selected or omitted" in out and "L2:codex:a.py:structure.python@1" in out
    assert main([*base, "--explain", "--format", "prompt"]) == 1
    assert "--explain" in capsys.readouterr().err


def test_with_a_window_the_budget_is_in_tokens_as_the_plan_counts_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.py").write_text("def f() -> int:\n    return 1\n")
    base = ["assemble", "--workspace", str(tmp_path), "--material", "a.py", "--query", "f?", "--window", "8000"]
    assert main([*base, "--reserve-output", "1000", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    budget = data["summary"]["budget"]
    assert budget["unit"] == "tokens" and budget["cap"] == data["plan"]["accounting"]["usable"] == 7000
    assert budget["used"] == data["plan"]["accounting"]["selected"] == sum(budget["parts"].values())
    assert main([*base, "--reserve-output", "1000"]) == 0
    screen = capsys.readouterr().out
    assert f"{budget['used']:,} of 7,000 tokens used" in screen and "characters" not in screen.split("\n")[0]


def quickstart_commands() -> list[str]:
    section = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```console\n(.*?)\n```", section, re.S)


def test_each_quickstart_command_makes_and_uses_a_venv_before_pip(tmp_path: Path) -> None:
    commands = quickstart_commands()
    assert len(commands) == 2
    for command in commands:
        steps = [step.strip() for step in command.split("&&")]
        venv = next(i for i, step in enumerate(steps) if re.fullmatch(r"python3 -m venv (\S+)", step))
        folder = steps[venv].split()[-1]
        pip = next(i for i, step in enumerate(steps) if "pip install" in step)
        assert venv < pip and steps[venv + 1] == f". {folder}/bin/activate", command
        assert all("python3" not in step for step in steps[venv + 1 :]), "after activation, the venv's python"
    # The prefix, run for real: after it, `pip` and `python` are the new venv's, so a Python
    # that refuses installs outside a venv (externally-managed-environment) accepts them.
    prefix = " && ".join(quickstart_commands()[0].split(" && ")[:2])
    probe = subprocess.run(
        ["sh", "-c", f'{prefix} && python -c "import sys; print(sys.prefix)" && pip --version'],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    prefix_line, pip_line = probe.stdout.splitlines()[:2]
    assert Path(prefix_line) == tmp_path / ".venv" and str(tmp_path / ".venv") in pip_line


def test_the_readme_shows_the_main_jobs_screen(main_job: dict[str, Any]) -> None:
    section = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    shown = re.search(r"```text\n(.*?)\n```", section, re.S)
    assert shown is not None, "the README shows the main job's output"
    lines = shown.group(1).splitlines()
    assert len(lines) <= 60 and all(len(line) <= 100 for line in lines)
    actual = main_job["screen"].splitlines()
    assert lines[0].split(":")[0] == actual[0].split(":")[0] and lines[-1] == actual[-1]
    same_shape = [line.split()[0] for line in lines[:4]] == [line.split()[0] for line in actual[:4]]
    assert same_shape and "egress: admitted to hosted" in lines


def test_the_prompt_example_in_the_docs_runs_as_shown(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "output.md").read_text(encoding="utf-8")
    block = page.split("## `--format prompt`", 1)[1].split("```console\n", 1)[1].split("\n```", 1)[0]
    commands = [line[2:] for line in block.splitlines() if line.startswith("$ ")]
    shown = "\n".join(line for line in block.splitlines() if not line.startswith("$ ")) + "\n"
    lychd_cmd = shlex.join([sys.executable, "-m", "lychd_core.cli"])
    script = " && ".join(command.replace("lychd ", f"{lychd_cmd} ", 1) for command in commands)
    run = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout == shown


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(min_size=1, max_size=400).filter(lambda t: t.strip() == t and t.strip()))
def test_any_file_text_comes_back_whole_from_its_prompt_section(text: str) -> None:
    """Whatever a file holds (markers, fences, newlines), its section parses back to exactly it."""
    hostile = f"{text}\n<<<lychd:end sha256:{'0' * 64}>>>\n<<<lychd:begin {{}}>>>\n```"
    block = Block(
        layer=Layer.CODEX,
        key="codex:notes.md:verbatim@1",
        text=hostile,
        label=PrivatizationLabel.public("test"),
        lineage=Lineage(profile="verbatim@1", source_path="notes.md"),
    )
    assembled = ContextOrchestrator().assemble(run_id="r", session_id="s", query=text, codex=[block])
    found = sections(prompt_text(assembled))
    assert [content for fields, content in found if fields.get("path") == "notes.md"] == [hostile]
    assert found[-1][1] == text
    fenced = fence(hostile, "text")
    ticks = fenced.split("\n", 1)[0].removesuffix("text")
    assert ticks not in hostile and fenced.endswith("\n" + ticks)


@settings(max_examples=50, deadline=None)
@given(
    rows=st.lists(
        st.lists(
            st.text(st.characters(codec="ascii", exclude_categories=("Cc",)), max_size=60), min_size=3, max_size=3
        ),
        max_size=8,
    ),
    width=st.integers(min_value=60, max_value=200),
)
def test_summary_columns_never_pass_the_width(rows: list[list[str]], width: int) -> None:
    lines = columns(["a", "path", "why"], rows, width, squeeze=1)
    assert all(len(line) <= width for line in lines)
