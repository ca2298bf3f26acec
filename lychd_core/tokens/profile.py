"""``profiles/exact-tokens.toml``: ``profiles/default.toml`` with an exact ``[tokens] counter``.

Regenerate after changing the default profile:
``python -m lychd_core.tokens.profile > profiles/exact-tokens.toml``
"""

from __future__ import annotations

import sys
from pathlib import Path

from lychd_core.config import LychdConfig, dump_config, load_config, parse_config

EXACT_COUNTER = "o200k_base@1"


def exact_profile(default_profile: Path) -> LychdConfig:
    """The default profile with ``[tokens] counter = "o200k_base@1"``."""
    data = load_config(default_profile).model_dump(mode="python")
    data["tokens"] = {**data["tokens"], "counter": EXACT_COUNTER}
    return parse_config(data, str(default_profile))


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[2]
    sys.stdout.write(dump_config(exact_profile(root / "profiles" / "default.toml")))
