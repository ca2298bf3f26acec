"""lychd-core: bounded, hashed, explainable context for LLM agent model calls."""

from lychd_core.blocks import Block, Layer, Lineage, Omission, prefix_digest
from lychd_core.digests import canonical_json, json_digest, sha256_digest, text_digest
from lychd_core.errors import LychdError
from lychd_core.labels import PrivacyClass, PrivatizationLabel, join_labels

__version__ = "0.1.0"

__all__ = [
    "Block",
    "Layer",
    "Lineage",
    "LychdError",
    "Omission",
    "PrivacyClass",
    "PrivatizationLabel",
    "__version__",
    "canonical_json",
    "join_labels",
    "json_digest",
    "prefix_digest",
    "sha256_digest",
    "text_digest",
]
