"""Reading hostile input: bounded regular-file reads and strict JSON and TOML parsing."""

from lychd_core.inputs.files import STDIN, read_input_bytes, read_input_text
from lychd_core.inputs.jsontext import MAX_DEPTH, depth_of, parse_json
from lychd_core.inputs.tomltext import parse_toml

__all__ = ["MAX_DEPTH", "STDIN", "depth_of", "parse_json", "parse_toml", "read_input_bytes", "read_input_text"]
