"""A transcript's head as `session/list` reads it, made listable when its first line is cut.

The SDK's listing reads the first 64 KiB of each transcript and takes the session's title from
the first *whole* user line it can parse there; a session whose first prompt is longer than
that (a pasted log, a file) has no whole line in its head, so the SDK left it out of the list
altogether. `with_cut_first_prompt` gives such a head a short, whole copy of that prompt's
start as its first line, which the SDK then parses as usual (it shows 200 characters at most).
Every other head is returned as it was read.
"""

from __future__ import annotations

import json
import re

__all__ = ["with_cut_first_prompt"]

# What the SDK skips as a first prompt (sdk sessions `_extract_first_prompt_from_head`): a
# line carrying one of these is not a prompt to show, cut or not.
_NOT_A_PROMPT = re.compile(r'"(?:isSidechain|isMeta|isCompactSummary)": ?true|"tool_result"')
_USER = re.compile(r'"type": ?"user"')
# Where a prompt's text starts: a text block's, or a plain string content's.
_TEXT_START = re.compile(r'"text": ?"|"content": ?"')
_KEPT = 400  # characters of the prompt's start copied: more than the SDK shows


def with_cut_first_prompt(head: str, *, cut: bool = True) -> str:
    """`head` with its cut first prompt's start put first; `cut`: the file goes on past it."""
    if not cut or "\n" in head or not _USER.search(head) or _NOT_A_PROMPT.search(head):
        return head
    start = _TEXT_START.search(head)
    if start is None:
        return head
    text = _string_start(head[start.end() : start.end() + _KEPT])
    if not text.strip():
        return head
    line = {
        "type": "user",
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }
    return json.dumps(line) + "\n" + head


def _string_start(body: str) -> str:
    """The text of a JSON string's body read up to its closing quote or as far as it goes,
    an escape cut at the end left off."""
    end, index = len(body), 0
    while index < len(body):
        if body[index] == "\\":
            if index + 1 >= len(body) or (body[index + 1] == "u" and index + 6 > len(body)):
                end = index  # cut inside an escape
                break
            index += 6 if body[index + 1] == "u" else 2
            continue
        if body[index] == '"':
            end = index
            break
        index += 1
    try:
        decoded = json.loads(f'"{body[:end]}"')
    except ValueError:  # not JSON's escapes after all (a hostile file): shown as written
        return body[:end]
    if not isinstance(decoded, str):
        return body[:end]
    # A pair of escapes cut between its halves: the lone half left off, never sent on.
    return decoded[:-1] if decoded and "\ud800" <= decoded[-1] <= "\udbff" else decoded
