"""What an embedded blob becomes by its MIME type, and how a text blob is decoded
(`fsm.claude.blob_types`), as the reference adapter sends them, except that text that cannot be
decoded is refused rather than guessed."""

from __future__ import annotations

import pytest

from fsm.claude.blob_types import BlobKind, blob_plan, decode_text_blob


@pytest.mark.parametrize(
    ("mime", "kind", "base", "charset"),
    [
        ("image/png", BlobKind.IMAGE, "image/png", None),
        ("image/jpg", BlobKind.IMAGE, "image/jpeg", None),
        ("IMAGE/WEBP; q=1", BlobKind.IMAGE, "image/webp", None),
        ("application/pdf", BlobKind.DOCUMENT, "application/pdf", None),
        ("text/plain", BlobKind.TEXT, "text/plain", None),
        ("text/markdown; charset=UTF-8", BlobKind.TEXT, "text/markdown", "UTF-8"),
        ('text/csv; charset="iso-8859-1"', BlobKind.TEXT, "text/csv", "iso-8859-1"),
        ("application/json; charset=utf-8", BlobKind.TEXT, "application/json", "utf-8"),
        ("application/x-yaml", BlobKind.TEXT, "application/x-yaml", None),
        ("application/toml", BlobKind.TEXT, "application/toml", None),
        ("application/sql", BlobKind.TEXT, "application/sql", None),
        ("application/graphql", BlobKind.TEXT, "application/graphql", None),
        ("application/typescript", BlobKind.TEXT, "application/typescript", None),
        ("application/x-sh", BlobKind.TEXT, "application/x-sh", None),
        ("application/vnd.api+json", BlobKind.TEXT, "application/vnd.api+json", None),
        ("image/svg+xml", BlobKind.TEXT, "image/svg+xml", None),
        ("application/zip", BlobKind.REFUSED, "application/zip", None),
        ("audio/wav", BlobKind.REFUSED, "audio/wav", None),
        ("image/tiff", BlobKind.REFUSED, "image/tiff", None),
        ("", BlobKind.REFUSED, "", None),
        (None, BlobKind.REFUSED, "", None),
    ],
)
def test_what_each_type_becomes(
    mime: str | None, kind: BlobKind, base: str, charset: str | None
) -> None:
    plan = blob_plan(mime)
    assert (plan.kind, plan.media_type, plan.charset) == (kind, base, charset)


def test_text_is_decoded_by_its_charset_without_a_byte_order_mark() -> None:
    assert decode_text_blob("naïve".encode(), None) == "naïve"
    assert decode_text_blob(b"\xef\xbb\xbf{}", "utf-8") == "{}"
    assert decode_text_blob("café".encode("latin-1"), "iso-8859-1") == "café"
    assert decode_text_blob("über".encode("utf-16"), "utf-16") == "über"
    assert decode_text_blob("日本".encode("shift_jis"), "Shift_JIS") == "日本"


def test_bytes_not_valid_in_their_charset_are_refused() -> None:
    with pytest.raises(ValueError):
        decode_text_blob(b"\xff\xfe\xfa", None)
    with pytest.raises(ValueError):
        decode_text_blob(b"\x81", "shift_jis")


@pytest.mark.parametrize("charset", ["klingon", "base64", "rot13", "hex"])
def test_a_charset_that_is_no_text_encoding_is_refused(charset: str) -> None:
    with pytest.raises(LookupError):
        decode_text_blob(b"abc", charset)
