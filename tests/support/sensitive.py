"""Values the privacy tests treat as secret, and output the tests hand over for scanning.

The root conftest fails any test whose captured stdout, stderr or log — or anything a
test passed to :func:`captured` — contains one of ``SENSITIVE``.
"""

from __future__ import annotations

SENSITIVE: tuple[str, ...] = ("acme-billing", "acme-secret-owner", "zz-private-owner")
CAPTURED: list[str] = []


def captured(*texts: str) -> None:
    """Hand output a test consumed (``capsys``) to the scan."""
    CAPTURED.extend(texts)


def leaks(texts: list[str]) -> list[str]:
    """The sensitive values that occur in any of ``texts``."""
    return sorted({value for value in SENSITIVE for text in texts if value in text})
