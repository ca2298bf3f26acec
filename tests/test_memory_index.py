def test_a_million_active_memories_have_a_digest_and_it_is_the_canonical_one() -> None:
    """The view digest is built from checked records: past canonical JSON's container bound
    (a million arrays and objects, for values from outside) it still digests, and its bytes are
    canonical JSON's (so stored indexes keep their digests)."""
    import hashlib
    import json
    from types import SimpleNamespace

    from lychd_core.digests import MAX_CONTAINERS
    from lychd_core.memory.tombstones import view_digest

    records = [SimpleNamespace(memory_id=f"m{i:07d}", revision=1, digest="sha256:" + "0" * 64) for i in range(3)]
    small = json.dumps([[r.memory_id, 1, r.digest] for r in records], separators=(",", ":"), sort_keys=True)
    assert view_digest(records) == "sha256:" + hashlib.sha256(small.encode()).hexdigest()  # type: ignore[arg-type]
    many = [SimpleNamespace(memory_id=f"m{i:07d}", revision=1, digest="d") for i in range(MAX_CONTAINERS + 1)]
    assert view_digest(many).startswith("sha256:")  # type: ignore[arg-type]
