"""A toy third-party lychd plugin distribution (one plugin per family)."""
