"""A tool result's text as a card shows it: whole up to a limit, its head beyond.

A card is for a person in an editor, and Claude already has the whole result. A result of many
MiB (a build log, a dump) sent whole would cost the adapter several copies of it at once (the
card's content, its `rawOutput`, the encoded frame, the pipe's buffer) and the editor as much
again; cut to its first `SHOWN_CHARACTERS` characters (at a line's end where there is one), it
costs a bounded amount whatever its size, and a last line says what was left out
(`[Output truncated: showing n of m lines]`, in the form of the reference adapter's mark on a
truncated file read, `[File truncated: ...]`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["SHOWN_CHARACTERS", "SHOWN_IMAGE_CHARACTERS", "image_note", "shown_text"]

# About what an editor's card shows comfortably (the whole-file diff limit is the same size).
SHOWN_CHARACTERS = 1024 * 1024
# An image's base64 beyond this is not sent to the card: it is several times the largest image
# Claude's API accepts (so a real Read never reaches it), and one image of tens of MiB would
# cost the copies a huge text result would. The card says what was left out instead.
SHOWN_IMAGE_CHARACTERS = 16 * 1024 * 1024


_MIME_TYPE = re.compile(r"[A-Za-z0-9.+-]{1,40}/[A-Za-z0-9.+-]{1,60}")


def image_note(mime_type: str, characters: int) -> str:
    """What a card shows in place of an image too large to send."""
    size = characters * 3 // 4  # base64 holds three bytes in four characters
    # Claude's own words for the type, only when they look like one (`image/png`).
    kind = mime_type if _MIME_TYPE.fullmatch(mime_type) else "an image"
    return f"[Image not shown: {kind}, about {size:,} bytes]"


def shown_text(pieces: Iterable[str], limit: int = SHOWN_CHARACTERS) -> str:
    """The pieces joined by newlines (a result's text blocks), or, when that is longer than
    `limit` characters, its head with a note of what was left out. Only the head is ever
    copied: the whole text is never built."""
    parts: list[str] = []
    size = 0  # characters of the joined text so far, the newlines joining pieces included
    newlines = 0
    open_tail = False  # the joined text ends inside a line
    for count, piece in enumerate(pieces):
        if count:
            size += 1
            newlines += 1
        if size <= limit:
            parts.append(piece[: limit - size + 1])
        size += len(piece)
        newlines += piece.count("\n")
        open_tail = bool(piece) and not piece.endswith("\n")
    if size <= limit:
        return "\n".join(parts)
    head = "\n".join(parts)[:limit]
    # Whole lines where the head has a line break; else the characters as they come.
    cut = head.rfind("\n")
    if cut > 0:
        head = head[:cut]
        total = newlines + (1 if open_tail else 0)
        shown = head.count("\n") + 1
        return f"{head}\n[Output truncated: showing {shown:,} of {total:,} lines]"
    return f"{head}\n[Output truncated: showing {limit:,} of {size:,} characters]"
