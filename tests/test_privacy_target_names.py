"""An empty egress target name is refused, never read as "the default" (it used to print ``egress to : admitted``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lychd_core.cli import main
from lychd_core.config import default_config
from lychd_core.errors import UnknownTargetError
from lychd_core.integrations import GovernedContext
from lychd_core.privacy import EgressConfig, EgressGate, EgressTarget

CONFIG = EgressConfig(default_target="local", targets={"hosted": EgressTarget(remote=True)})


def test_none_is_the_default_and_an_empty_name_is_refused() -> None:
    assert CONFIG.target(None)[0] == "local"
    with pytest.raises(UnknownTargetError, match=r"egress target '' is not configured \(known: hosted, local\)"):
        CONFIG.target("")
    with pytest.raises(UnknownTargetError):
        EgressGate(CONFIG).decide({}, "")
    with pytest.raises(UnknownTargetError):
        GovernedContext.from_config(default_config(), target="")


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=12))
def test_only_configured_names_resolve(name: str) -> None:
    if name in ("local", "hosted"):
        assert CONFIG.target(name)[0] == name
    else:
        with pytest.raises(UnknownTargetError):
            CONFIG.target(name)


def test_assemble_with_an_empty_target_is_a_typed_refusal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["assemble", "--workspace", str(tmp_path), "--query", "q", "--target", ""]) == 1
    out, err = capsys.readouterr()
    assert "UnknownTargetError" in err and "egress target ''" in err
    assert "admitted" not in out
