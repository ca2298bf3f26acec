"""The state directory and the files in it: its markers, key files and SQLite connection helpers.

Below every store: the memory store, the projection cache and the vault all build on these.
"""
