"""Hostile input against every command, run in-process through ``main()``.

Each case must end in exit 0, 1 or 2 with a one-line typed message: no traceback, no
"internal error" (an untyped failure caught by the last-resort boundary), and quickly.
The cases that could hang or take the process down run in subprocesses instead
(tests/test_hostile_subprocess.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.conversations import answer, tool_call, tool_return, user
from tests.support.hostile import (
    config_commands,
    example_graph,
    example_records,
    json_commands,
    run_in_process,
    workspace,
    write,
)

DEEP = 5_000
HUGE_INT = "9" * 5_000


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = workspace(tmp_path / "ws")
    write(root / "records.json", json.dumps(example_records()))
    return root


HOSTILE_JSON: dict[str, str | bytes] = {
    "deep-array": "[" * DEEP + "]" * DEEP,
    "deep-object": '{"a":' * DEEP + "1" + "}" * DEEP,
    "huge-int": f'[{{"kind": "request", "parts": [], "n": {HUGE_INT}}}]',
    "nan": "[NaN]",
    "duplicate-keys": '{"a": 1, "a": 2}',
    "not-utf8": b'["\xff\xfe"]',
    "empty": "",
    "scalar": "7",
    "malformed": "{[",
    "nul": '["\\u0000"]',
    "lone-surrogate": '["\\udcff"]',
}


@pytest.mark.parametrize("case", sorted(HOSTILE_JSON))
def test_hostile_json_in_every_json_input(case: str, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = write(ws / "input.json", HOSTILE_JSON[case])
    for argv in json_commands(ws, file):
        outcome = run_in_process(argv, capsys)
        if case in ("deep-array", "deep-object", "huge-int", "nan", "duplicate-keys", "not-utf8", "malformed"):
            if "--query-file" in argv:
                continue  # a query file is text: any bytes may be a query
            # Refused for what the file holds, not for something checked before it is read.
            assert outcome.code == 1 and "input.json" in outcome.err, (argv, outcome.err)


def _history_with(part: dict[str, object]) -> list[object]:
    return [user("q0"), {"kind": "response", "parts": [part]}, answer("a0")]


CALL_WITH_DICT_ID = {"part_kind": "tool-call", "tool_name": "t", "args": {}, "tool_call_id": {}}
RETURN_WITH_DICT_ID = {"part_kind": "tool-return", "tool_name": "t", "content": "x", "tool_call_id": {}}
ODD_MESSAGES: dict[str, object] = {
    "tool-call-id-dict": [
        user("q"),
        {"kind": "response", "parts": [CALL_WITH_DICT_ID]},
        {"kind": "request", "parts": [RETURN_WITH_DICT_ID]},
        answer("a"),
    ],
    "tool-call-id-list": _history_with({"part_kind": "tool-call", "tool_name": "t", "tool_call_id": [1]}),
    "tool-call-id-int": [
        *[user("q"), tool_call("t", "c1"), tool_return("t", "c1", "x"), answer("a")],
        *_history_with({"part_kind": "tool-call", "tool_name": "t", "tool_call_id": 5}),
    ],
    "run-id-dict": [{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "q"}], "run_id": {}}],
    "parts-not-list": [{"kind": "request", "parts": {"a": 1}}],
    "part-not-object": [{"kind": "request", "parts": [7]}],
    "kind-number": [{"kind": 1, "parts": []}],
    "message-not-object": [[], None, 3],
    "content-object": [{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": {"x": [1, 2]}}]}],
}


@pytest.mark.parametrize("case", sorted(ODD_MESSAGES))
def test_odd_messages_in_history_and_continuation(case: str, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = write(ws / "messages.json", json.dumps(ODD_MESSAGES[case]))
    for flag in ("--history", "--continuation"):
        outcome = run_in_process(["assemble", "--workspace", str(ws), "--query", "q", flag, file], capsys)
        # Every one of these is outside the wire form: refused, naming the input and its place.
        assert outcome.code == 1 and "HistoryError" in outcome.err, (case, flag, outcome.err)
        assert f"{flag[2:]}[" in outcome.err, (case, flag, outcome.err)


@pytest.mark.parametrize("version", ["true", "1.0", '"1"', "null", "2", HUGE_INT])
def test_graph_version_must_be_the_integer_1(version: str, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = json.dumps(example_graph()).replace('"format"', f'"version": {version}, "format"', 1)
    data = text.replace('"version": 1,', "", 1) if '"version": 1,' in text else text
    file = write(ws / "graph.json", data)
    outcome = run_in_process(["select", file, "--window", "10000"], capsys)
    assert outcome.code == 1 and "version" in outcome.err


@pytest.mark.parametrize(
    ("where", "value"),
    [("id", {"a": 1}), ("token_estimate", 1.5), ("token_estimate", True), ("dependencies", "x"), ("priority", 10**30)],
)
def test_graph_nodes_with_wrong_types(where: str, value: object, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    graph = example_graph()
    graph["nodes"][0][where] = value
    file = write(ws / "graph.json", json.dumps(graph))
    assert run_in_process(["select", file, "--window", "10000"], capsys).code == 1


def test_a_memory_record_with_100000_keys_is_refused_quickly(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = example_records()[0]
    record.update({f"k{index}": index for index in range(100_000)})
    file = write(ws / "wide.json", json.dumps(record))
    outcome = run_in_process(["memory", "add", file, "--workspace", str(ws)], capsys, limit=30)
    assert outcome.code == 1 and "unknown keys" in outcome.err


HOSTILE_TOML: dict[str, str | bytes] = {
    "deep-array": "schema_version = 1\nx = " + "[" * DEEP + "]" * DEEP + "\n",
    "deep-inline-table": "schema_version = 1\nx = " + "{a = " * 600 + "1" + "}" * 600 + "\n",
    "huge-int": f"schema_version = {HUGE_INT}\n",
    "malformed": "schema_version = = 1\n",
    "not-utf8": b"schema_version = 1\n# \xff\n",
    "bad-role-options": '[role_policy]\nname = "roles.standard"\nrevision = 1\noptions = {nonsense = [1, 2]}\n',
    "role-options-not-table": '[role_policy]\nname = "roles.standard"\nrevision = 1\noptions = 7\n',
    "deep-role-options": '[role_policy]\nname = "roles.standard"\nrevision = 1\noptions = '
    + "{a = " * 150
    + "1"
    + "}" * 150
    + "\n",
    "unregistered-privacy-profile": '[privacy_profile]\nname = "no.such.profile"\nrevision = 7\n',
    "wrong-role-revision": '[role_policy]\nname = "roles.standard"\nrevision = 99\n',
    "revision-bool": '[role_policy]\nname = "roles.standard"\nrevision = true\n',
}


@pytest.mark.parametrize("case", sorted(HOSTILE_TOML))
def test_hostile_configuration_in_every_command(case: str, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = HOSTILE_TOML[case]
    if isinstance(text, str) and "schema_version" not in text:
        text = "schema_version = 1\n" + text
    config = write(ws / "lychd.toml", text)
    graph = write(ws / "graph.json", json.dumps(example_graph()))
    for argv in config_commands(ws, config, graph):
        outcome = run_in_process(argv, capsys)
        assert outcome.code == 1, (case, argv, outcome.err)


def test_a_configured_privacy_profile_is_never_ignored(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Registered or not, a privacy profile that assemble cannot apply is refused, not skipped."""
    config = write(
        ws / "lychd.toml",
        'schema_version = 1\n[role_policy]\nname = "roles.standard"\nrevision = 1\n'
        '[privacy_profile]\nname = "no.such.profile"\nrevision = 7\n',
    )
    outcome = run_in_process(["assemble", "--workspace", str(ws), "--config", config, "--query", "q"], capsys)
    assert outcome.code == 1 and "no.such.profile" in outcome.err
    for argv in (["vault", "status"], ["vault", "purge"]):
        outcome = run_in_process([*argv, "--workspace", str(ws), "--config", config], capsys)
        assert outcome.code == 1 and "no.such.profile" in outcome.err, argv


@pytest.mark.parametrize("name", ["bad\udcffname.py", "new\nline.py", "tab\there.md", "esc\x1b[31m.md", "bell\x07.py"])
def test_bad_file_names_are_skipped_and_reported(name: str, ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    try:
        write(ws / "src" / name, "x = 1\n")
    except (UnicodeEncodeError, OSError):
        write(ws / "src" / os.fsdecode(os.fsencode(name)), "x = 1\n")
    project = run_in_process(["project", "--workspace", str(ws), "--json", "src"], capsys)
    items = json.loads(project.out)["items"]
    assert {item["status"] for item in items if item["path"] == "src/app.py"} == {"projected"}
    assert sum(1 for item in items if item["status"] == "unavailable") == 1
    assemble = run_in_process(
        ["assemble", "--workspace", str(ws), "--material", "src", "--query", "q", "--json"], capsys
    )
    assert assemble.code == 0 and len(json.loads(assemble.out)["skipped_material"]) == 1
    named = run_in_process(["project", "--workspace", str(ws), "--json", f"src/{name}"], capsys)
    if "\udcff" in name:
        assert named.code == 2  # an argument that is not UTF-8 is a usage error
    else:  # a named file is an optional reference: reported unavailable, with the reason
        (item,) = json.loads(named.out)["items"]
        assert item["status"] == "unavailable" and "control character" in item["reason"]


@pytest.mark.parametrize("argument", ["bad\udcff", "q\udc80uery"])
def test_arguments_that_are_not_utf8_are_usage_errors(
    argument: str, ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (["assemble", "--workspace", str(ws), "--query", argument], ["project", argument], [argument]):
        outcome = run_in_process(argv, capsys)
        assert outcome.code == 2 and "not valid UTF-8" in outcome.err


def test_control_characters_in_the_query_are_text(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outcome = run_in_process(["assemble", "--workspace", str(ws), "--query", "a\nb\x1b[2J\x07", "--json"], capsys)
    assert outcome.code == 0 and json.loads(outcome.out)["query"] == "a\nb\x1b[2J\x07"


def test_catastrophic_gitignore_patterns_are_bounded(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(ws / "src" / ".gitignore", "*a" * 12 + "b\n**/a/**/a/**/a/**/b\n")
    write(ws / "src" / ("a" * 200), "x\n")
    outcome = run_in_process(["project", "--workspace", str(ws), "--json", "."], capsys, limit=30)
    items = json.loads(outcome.out)["items"]
    assert any(item["path"] == "src" and "'*'" in item["reason"] for item in items)
    assert not any(item["path"].startswith("src/") for item in items)  # fail closed: not walked


def test_a_1100_level_tree_is_walked_without_recursion(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    levels = [ws / "deep"]
    for _ in range(1_100):  # os.makedirs (and shutil.rmtree) recurse once per level
        levels.append(levels[-1] / "d")
    try:
        for level in levels:
            level.mkdir()
        write(levels[-1] / "leaf.md", "leaf\n")
        outcome = run_in_process(["project", "--workspace", str(ws), "--json", "--no-cache", "deep"], capsys)
        (item,) = json.loads(outcome.out)["items"]
        assert item["path"].endswith("/d/leaf.md")
    finally:  # pytest's own clean-up of tmp_path would recurse past the limit
        (levels[-1] / "leaf.md").unlink(missing_ok=True)
        for level in reversed(levels):
            if level.exists():
                level.rmdir()


MATERIAL_ESCAPES = ["../outside", "/etc", "/etc/passwd", "linked", "loop", "dangling", "missing", "..", "src/../.."]


@pytest.mark.parametrize("argument", MATERIAL_ESCAPES)
def test_material_and_project_paths_resolve_the_same_way(
    argument: str, tmp_path: Path, ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    write(outside / "secret.md", "SECRET\n")
    (ws / "linked").symlink_to(outside)
    (ws / "loop").symlink_to(ws / "loop")
    (ws / "dangling").symlink_to(ws / "nowhere")
    project = run_in_process(["project", "--workspace", str(ws), "--json", argument], capsys)
    assemble = run_in_process(
        ["assemble", "--workspace", str(ws), "--material", argument, "--query", "q", "--json"], capsys
    )
    assert project.code == assemble.code == 1
    assert "SECRET" not in project.out + assemble.out


def test_relative_material_paths_are_taken_against_the_workspace(
    ws: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # not the workspace
    project = run_in_process(["project", "--workspace", str(ws), "--json", "src/app.py"], capsys)
    assemble = run_in_process(
        ["assemble", "--workspace", str(ws), "--material", "src/app.py", "--query", "q", "--json"], capsys
    )
    assert project.code == assemble.code == 0
    assert json.loads(project.out)["items"][0]["path"] == "src/app.py"


def test_a_state_directory_that_cannot_be_created_is_a_typed_refusal(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(ws / ".lychd", "a file where the state directory should be\n")
    project = run_in_process(["project", "--workspace", str(ws), "src/app.py"], capsys)
    assemble = run_in_process(["assemble", "--workspace", str(ws), "--material", "src/app.py", "--query", "q"], capsys)
    add = run_in_process(["memory", "add", str(ws / "records.json"), "--workspace", str(ws)], capsys)
    stats = run_in_process(["memory", "stats", "--workspace", str(ws)], capsys)
    assert {project.code, assemble.code, add.code, stats.code} <= {0, 1}
    assert (ws / ".lychd").read_text().startswith("a file")


def test_config_init_refuses_what_it_cannot_or_must_not_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(tmp_path / "fifo.toml")
    write(tmp_path / "plain", "x")
    cases = {
        "missing folder": [str(tmp_path / "no" / "such" / "lychd.toml")],
        "under a file": [str(tmp_path / "plain" / "lychd.toml")],
        "fifo": [str(tmp_path / "fifo.toml")],
        "fifo forced": [str(tmp_path / "fifo.toml"), "--force"],
        "device forced": ["/dev/null", "--force"],
        "directory forced": [str(tmp_path), "--force"],
    }
    for what, extra in cases.items():
        outcome = run_in_process(["config", "init", "--output", *extra], capsys)
        assert outcome.code == 1, (what, outcome.err)
    assert (tmp_path / "fifo.toml").is_fifo() and Path("/dev/null").is_char_device()
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*tmp*"))


def test_query_file_reads_a_long_query_and_refuses_it_by_budget(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    long_query = write(ws / "query.txt", "why " * 30_000)
    outcome = run_in_process(["assemble", "--workspace", str(ws), "--query-file", long_query], capsys)
    assert outcome.code == 1 and "ContextBudgetExceededError" in outcome.err
    assert "characters are available" in outcome.err and "tokens) are available" not in outcome.err
    short = write(ws / "short.txt", "what does greet do?")
    outcome = run_in_process(["assemble", "--workspace", str(ws), "--query-file", short, "--json"], capsys)
    assert json.loads(outcome.out)["query"] == "what does greet do?"
    both = run_in_process(["assemble", "--workspace", str(ws), "--query", "q", "--query-file", short], capsys)
    assert both.code == 2
