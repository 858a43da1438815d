"""ACP prompt content blocks to the user message Claude's stream-json input expects."""

from __future__ import annotations

from typing import Any

from acp.schema import (
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

__all__ = ["claude_content", "claude_user_message"]


def claude_content(blocks: list[Any]) -> list[dict[str, Any]]:
    """Text, resource links, embedded resources and images; other kinds are named, not lost."""
    content: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            content.append({"type": "text", "text": block.text})
        elif isinstance(block, ResourceContentBlock):
            content.append({"type": "text", "text": f"[@{block.name}]({block.uri})"})
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                text = f'<context ref="{resource.uri}">\n{resource.text}\n</context>'
                content.append({"type": "text", "text": text})
            elif isinstance(resource, BlobResourceContents):
                content.append({"type": "text", "text": f"[@{resource.uri}]({resource.uri})"})
        elif isinstance(block, ImageContentBlock):
            content.append(
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": block.mime_type, "data": block.data},
                }
            )
        else:
            kind = getattr(block, "type", type(block).__name__)
            content.append({"type": "text", "text": f"[unsupported {kind} content omitted]"})
    return content


def claude_user_message(blocks: list[Any], *, turn_id: str) -> dict[str, Any]:
    """A stream-json user message stamped with the turn id (DECISIONS row 12)."""
    return {
        "type": "user",
        "message": {"role": "user", "content": claude_content(blocks)},
        "parent_tool_use_id": None,
        "uuid": turn_id,
    }
