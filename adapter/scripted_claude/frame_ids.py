"""Ids, usage and the session stamp every scripted-Claude frame shares (no I/O but `os.urandom`).

Split from `frames.py` so the frame builders in `frames.py`, `notice_frames.py` and
`control_frames.py` share one source of ids without importing each other.
"""

from __future__ import annotations

import os
from typing import Any, TypeAlias

__all__ = [
    "CLI_VERSION",
    "Frame",
    "message_id",
    "new_uuid",
    "stamp",
    "tool_use_id",
    "usage",
    "uuid4_hex",
]

Frame: TypeAlias = dict[str, Any]

# Reported in `system/init`; the SDK warns about CLIs that report none or an old one.
CLI_VERSION = "2.1.332"


def uuid4_hex() -> str:
    # `uuid.uuid4().hex` without importing `uuid` (it imports `platform`: a few ms of every
    # start): 122 random bits, the version and variant bits set as RFC 9562 says.
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40
    raw[8] = raw[8] & 0x3F | 0x80
    return raw.hex()


def new_uuid() -> str:
    h = uuid4_hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def message_id() -> str:
    return f"msg_01{uuid4_hex()[:22]}"


def tool_use_id() -> str:
    return f"toolu_01{uuid4_hex()[:22]}"


def usage(input_tokens: int, output_tokens: int) -> Frame:
    """The Messages API `usage` object (zeros for synthetic messages)."""
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
        "service_tier": "standard",
    }


def stamp(frame: Frame, session_id: str, user_message_uuid: str | None) -> Frame:
    """Mark `frame` as the session's, with a fresh uuid (and the prompt's uuid, if it had one)."""
    frame["session_id"] = session_id
    frame["uuid"] = new_uuid()
    if user_message_uuid is not None:
        frame["user_message_uuid"] = user_message_uuid
    return frame
