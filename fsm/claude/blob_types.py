"""What an embedded blob in a prompt becomes, by its MIME type, as the reference adapter sends
it: an image block (PNG, JPEG, GIF, WebP; `image/jpg` read as JPEG), a document block (PDF),
or its text, decoded with the MIME type's `charset` (UTF-8 when it names none; a byte order
mark dropped), for `text/*`, the text `application/*` types (JSON, XML, YAML, TOML, SQL,
GraphQL, JavaScript, TypeScript, shell) and any `+json` or `+xml` type. The MIME type's
parameters and case do not matter. Anything else is refused, and so is text whose charset is
unknown or whose bytes are not valid in it (the reference guesses UTF-8 and replaces bad
bytes; docs/decisions.md#blob-text says why we do not).
"""

from __future__ import annotations

import codecs
import re
from enum import Enum
from typing import NamedTuple

__all__ = ["BlobKind", "BlobPlan", "blob_plan", "decode_text_blob"]

_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_TEXT_APPLICATION_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/typescript",
        "application/x-yaml",
        "application/yaml",
        "application/toml",
        "application/x-sh",
        "application/sql",
        "application/graphql",
    }
)
_CHARSET = re.compile(r';\s*charset\s*=\s*"?([^";\s]+)', re.IGNORECASE)


class BlobKind(Enum):
    IMAGE = "image"
    DOCUMENT = "document"
    TEXT = "text"
    REFUSED = "refused"


class BlobPlan(NamedTuple):
    kind: BlobKind
    media_type: str  # the base MIME type (lower case, no parameters); "" when none
    charset: str | None = None  # a text blob's `charset`, as given; None: UTF-8


def blob_plan(mime_type: str | None) -> BlobPlan:
    """What a blob of `mime_type` becomes."""
    base = (mime_type or "").split(";", 1)[0].strip().lower()
    if base == "image/jpg":
        base = "image/jpeg"
    if base in _IMAGE_TYPES:
        return BlobPlan(BlobKind.IMAGE, base)
    if base == "application/pdf":
        return BlobPlan(BlobKind.DOCUMENT, base)
    if (
        base.startswith("text/")
        or base in _TEXT_APPLICATION_TYPES
        or base.endswith(("+json", "+xml"))
    ):
        match = _CHARSET.search(mime_type or "")
        return BlobPlan(BlobKind.TEXT, base, match.group(1) if match else None)
    return BlobPlan(BlobKind.REFUSED, base)


def decode_text_blob(data: bytes, charset: str | None) -> str:
    """A text blob's bytes as text, in `charset` (UTF-8 when None), without a leading byte
    order mark. Raises `LookupError` for a charset Python does not know and `ValueError` for
    bytes that are not valid in it."""
    name = charset or "utf-8"
    codec = codecs.lookup(name)  # LookupError for an unknown label
    if codec.name in ("utf-8", "utf-16", "utf-32"):
        # The byte order mark is read (and dropped) by the `-sig` codec, or the BOM-aware one.
        codec = codecs.lookup("utf-8-sig") if codec.name == "utf-8" else codec
    text = data.decode(codec.name, errors="strict")
    return text[1:] if text.startswith("\ufeff") else text
