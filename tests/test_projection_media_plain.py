"""The plain-text check deletes every allowed byte in C; it must find exactly what NOT_PLAIN_TEXT finds."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lychd_core.projection import media


@given(st.binary(max_size=400) | st.text(max_size=200).map(lambda text: text.encode("utf-8", "surrogatepass")))
def test_the_plain_text_check_finds_exactly_what_the_pattern_finds(head: bytes) -> None:
    assert bool(head.translate(None, media._PLAIN_BYTES)) == bool(media.NOT_PLAIN_TEXT.search(head))
    assert (media._plain_utf8(head) is None) >= bool(media.NOT_PLAIN_TEXT.search(head))


def test_each_control_byte_alone_is_not_plain_text_and_each_other_ascii_byte_is() -> None:
    for byte in range(128):
        single = bytes([byte]) * 3
        expected_plain = media.NOT_PLAIN_TEXT.search(single) is None
        assert (media._plain_utf8(single) is not None) == expected_plain, byte
    assert len(media._PLAIN_BYTES) == 256 - 27  # 0x00-0x08, 0x0e-0x1a, 0x1c-0x1f, 0x7f
