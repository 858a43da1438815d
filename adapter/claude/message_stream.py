"""Claude's output as the runtime reads it: each parsed message with its raw frame.

One frame the SDK cannot parse is skipped rather than ending the stream; a message over the
SDK's buffer is told apart from other transport failures (a clear `limit` record, not a lost
connection).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from typing import Any

from claude_agent_sdk import ClaudeSDKClient, CLIJSONDecodeError

from adapter.claude.sdk_compat import parse_message, raw_frames
from adapter.claude.unparsed import UNPARSED_TYPES, UnparsedFrame

__all__ = ["messages_with_frames", "over_the_buffer"]

log = logging.getLogger(__name__)


def over_the_buffer(exc: Exception) -> bool:
    """Whether the SDK stopped reading because one message was over `max_buffer_size`."""
    return isinstance(exc, CLIJSONDecodeError) and "exceeded maximum buffer size" in exc.line


async def messages_with_frames(
    client: ClaudeSDKClient,
) -> AsyncGenerator[tuple[Any, dict[str, Any]], None]:
    """`ClaudeSDKClient.receive_messages` with each raw frame, except that one frame the SDK
    cannot parse is skipped instead of ending the whole stream (it raises inside the
    generator)."""
    async for data in raw_frames(client):
        try:
            message = parse_message(data)
        except Exception:
            # The parser raises MessageParseError for missing keys, but TypeError and the
            # like for a wrongly typed field; either way it is this one frame that is bad.
            log.warning("skipped a frame from Claude that the SDK could not parse")
            continue
        if message is not None:
            yield message, data
        elif data.get("type") in UNPARSED_TYPES:
            yield UnparsedFrame(data), data
