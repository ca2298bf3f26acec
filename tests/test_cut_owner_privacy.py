"""No owner value in any output, label or repr of a cut (issue 27, finding 5).

A report whose file name holds the owner value put it into `--json` and the `--out` chain
through the candidate label's `material_parents`; `repr(PreparedCut)` held the source text.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lychd_core.cli import main
from lychd_core.errors import CutReason, CutRefused
from tests.support.cuts import FIXTURES, NOW, OWNER, REPORT_LABEL, prepare, projection_of, record_text
from tests.support.sensitive import SENSITIVE, captured

PROFILE = str(Path(__file__).resolve().parents[1] / "profiles" / "default.toml")  # labels the fixture folder
NAMED = f"tests/fixtures/privacy/{OWNER}-audit.json"


def test_a_report_named_after_its_owner_keeps_the_name_out_of_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / NAMED).parent.mkdir(parents=True)
    shutil.copy(FIXTURES / "pip-audit.json", tmp_path / NAMED)
    chain = tmp_path / "chain.json"
    common = ["--workspace", str(tmp_path), "--config", PROFILE, "--vocabulary", str(FIXTURES / "vocabulary.toml"),
              "--owner", OWNER, "--now", str(NOW)]  # fmt: skip
    code = main(
        ["cut", "prepare", NAMED, "--plan", str(FIXTURES / "plan.toml"), *common, "--json", "--out", str(chain)]
    )
    out, err = capsys.readouterr()
    captured(out, err, chain.read_text())  # the root conftest fails the test if any holds a sensitive value
    assert code == 0, err
    label = json.loads(out)["candidate"]["items"][0]["label"]
    assert label["material_parents"] and all(
        parent.startswith("report@sha256:") for parent in label["material_parents"]
    )
    assert not any(value in out + chain.read_text() for value in SENSITIVE)
    assert main(["cut", "verify", NAMED, "--chain", str(chain), *common]) == 0
    captured(*capsys.readouterr())


def test_a_label_naming_the_owner_is_refused_by_the_verifier() -> None:
    label = REPORT_LABEL.model_copy(
        update={"material_parents": frozenset({f"reports/{OWNER}.json@sha256:" + "0" * 64})}
    )
    with pytest.raises(CutRefused) as refused:
        prepare(projection_of(record_text("jinja2 3.1.2 vulnerable - - -"), label=label))
    assert refused.value.reason is CutReason.SENSITIVE_OUTSIDE_OWNER_SLOT
    assert OWNER not in str(refused.value)


def test_reprs_hold_no_source_text_or_owner() -> None:
    prepared = prepare(projection_of(record_text("jinja2 3.1.2 vulnerable - - -", "requests 2.31.0 clean - - -")))
    shown = repr(prepared) + repr(prepared.source) + repr(prepared.source.items) + repr(prepared.candidate)
    captured(shown)
    assert OWNER not in shown and "jinja2" not in shown and "reports/" not in shown
    assert "characters" in repr(prepared.source.items[0])
