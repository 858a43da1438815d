"""ACP prompt content blocks to the user message Claude's stream-json input expects.

What `PROMPT_CAPABILITIES` promises is exactly what reaches Claude:
- text as text;
- a `resource_link` (an @-mention) as the markdown link `[@name](uri)`, which Claude can open;
- an embedded text `resource` as that link in place, plus `<context ref="uri">text</context>`
  after the prompt (how Claude Code itself attaches files);
- an embedded blob `resource` that is an image as an image block, a PDF as a document block,
  and one of a text type (`text/*`, JSON, XML, YAML, `+json`, `+xml`, ...: `fsm.blob_plan`)
  as its decoded text, attached as a text resource is;
- an image as a base64 image block (or a URL source for an http(s) `uri` without data).
Anything else (audio, a blob of another type, text whose charset is unknown or whose bytes are
not valid in it) is refused with -32602 and a message naming it: a prompt is never sent with
part of it silently missing or garbled.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from acp import RequestError
from acp.schema import (
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    PromptCapabilities,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from fsm import BlobKind, blob_plan, decode_text_blob

__all__ = ["PROMPT_CAPABILITIES", "check_not_empty", "claude_content", "claude_user_message"]

PROMPT_CAPABILITIES = PromptCapabilities(image=True, embedded_context=True, audio=False)

_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


def _refuse(what: str) -> RequestError:
    return RequestError.invalid_params(
        {"reason": f"{what} cannot be sent to Claude; remove it and send the prompt again"}
    )


def _image(mime: str | None, data: str, uri: str | None) -> dict[str, Any]:
    if not data and uri and uri.startswith(("https://", "http://")):
        return {"type": "image", "source": {"type": "url", "url": uri}}
    if mime not in _IMAGE_TYPES or not data:
        raise _refuse(f"An image of type {mime or 'unknown'}")
    return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}


def _link(name: str, uri: str) -> dict[str, Any]:
    return {"type": "text", "text": f"[@{name}]({uri})"}


def _name(uri: str) -> str:
    return uri.rstrip("/").rsplit("/", 1)[-1] or uri


def _blob(resource: BlobResourceContents) -> dict[str, Any] | str:
    """Claude's block for a blob, or its decoded text (a text type)."""
    plan = blob_plan(resource.mime_type)
    if plan.kind is BlobKind.IMAGE:
        return _image(plan.media_type, resource.blob, None)
    if plan.kind is BlobKind.DOCUMENT:
        source = {"type": "base64", "media_type": plan.media_type, "data": resource.blob}
        return {"type": "document", "source": source}
    what = f"An embedded file of type {plan.media_type or 'unknown'} ({_name(resource.uri)})"
    if plan.kind is BlobKind.REFUSED:
        raise _refuse(what)
    try:
        data = base64.b64decode(resource.blob, validate=True)
    except (binascii.Error, ValueError):
        raise _refuse(f"{what}, whose data is not base64,") from None
    try:
        return decode_text_blob(data, plan.charset)
    except LookupError:
        raise _refuse(f"{what}, in a charset Python does not know ({plan.charset}),") from None
    except ValueError:
        charset = plan.charset or "UTF-8"
        raise _refuse(f"{what}, whose bytes are not valid {charset},") from None


def _context(uri: str, text: str) -> dict[str, Any]:
    return {"type": "text", "text": f'<context ref="{uri}">\n{text}\n</context>'}


def check_not_empty(blocks: list[Any]) -> None:
    """-32602 for a prompt with nothing in it (no blocks, or only blank text): Claude would run
    a whole turn on nothing (docs/decisions.md#empty-and-placeholder-input)."""
    if all(isinstance(b, TextContentBlock) and not b.text.strip() for b in blocks):
        raise RequestError.invalid_params(
            {"prompt": "is empty: send text or other content (nothing was sent to Claude)"}
        )


def claude_content(blocks: list[Any]) -> list[dict[str, Any]]:
    """Claude's content for an ACP prompt; raises `RequestError` (-32602) for a block it
    cannot carry faithfully."""
    content: list[dict[str, Any]] = []
    context: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            content.append({"type": "text", "text": block.text})
        elif isinstance(block, ResourceContentBlock):
            content.append(_link(block.name or _name(block.uri), block.uri))
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                content.append(_link(_name(resource.uri), resource.uri))
                context.append(_context(resource.uri, resource.text))
            elif isinstance(resource, BlobResourceContents):
                sent = _blob(resource)
                if isinstance(sent, str):
                    # Text sent as a blob: attached as a text resource is.
                    content.append(_link(_name(resource.uri), resource.uri))
                    context.append(_context(resource.uri, sent))
                else:
                    content.append(sent)
        elif isinstance(block, ImageContentBlock):
            content.append(_image(block.mime_type, block.data, block.uri))
        else:
            kind = getattr(block, "type", type(block).__name__)
            raise _refuse(f"Prompt content of type {kind!r}")
    return content + context


def claude_user_message(content: list[dict[str, Any]], *, turn_id: str) -> dict[str, Any]:
    """A stream-json user message stamped with the turn id (docs/decisions.md#turn-ids)."""
    return {
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": None,
        "uuid": turn_id,
    }
