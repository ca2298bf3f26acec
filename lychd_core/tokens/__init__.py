"""Token counting: pinned counters (a plugin family), their cache, and learned per-model ratios.

:func:`lychd_core.tokens.resolve.resolve_counter` binds the configured counter; it lives
in its own module because it reads the configuration, which embeds these settings.
"""

from lychd_core.config.tokens import CounterChoice, HistoryConfig, TokensConfig, parse_pin
from lychd_core.families import TokenCountKind
from lychd_core.tokens.calibration import CalibrationError, CalibrationStore, Ratio, learned
from lychd_core.tokens.counting import REFERENCE_PIN, BoundCounter, CountStats, TokenCountError, reference_counter

__all__ = [
    "REFERENCE_PIN",
    "BoundCounter",
    "CalibrationError",
    "CalibrationStore",
    "CountStats",
    "CounterChoice",
    "HistoryConfig",
    "Ratio",
    "TokenCountError",
    "TokenCountKind",
    "TokensConfig",
    "learned",
    "parse_pin",
    "reference_counter",
]
