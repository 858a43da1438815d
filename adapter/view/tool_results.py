"""How a tool-call card ends: Claude Code's `tool_result` as the card's last updates.

The result text becomes the card's content (a Bash run as a ```console block, or as Zed's
terminal `_meta` when the client declared that extension), images stay images, and a
successful edit's diff is rebuilt from the whole file Claude Code reports it changed
(`toolUseResult.originalFile`), so the editor shows the edit in place. A file that is binary,
huge or not what the edit expects keeps the card's own old/new snippets: shown plainly, not
guessed at.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from adapter.view.long_output import SHOWN_IMAGE_CHARACTERS, image_note, shown_text
from fsm import SUBAGENT_TOOLS, failed_text_fenced

__all__ = ["fenced", "non_execution", "result_updates"]

Wire = dict[str, Any]

# Whole-file diffs only for files an editor shows comfortably.
_DIFF_FILE_LIMIT = 1024 * 1024
_EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write"})
_CONSOLE_TOOLS = frozenset({"Bash", "PowerShell", "BashOutput"})
# A fence line as Markdown reads one: up to three spaces, then three or more backticks.
_FENCE_RUN = re.compile(r"^ {0,3}(`{3,})", re.M)
# The model-directed trailer Claude Code appends to a subagent's report: a `<usage>…</usage>`
# block and an `agentId: <id> (use SendMessage …)` line, each tail-anchored (older CLIs write
# one or the other; a format change makes them stop matching rather than cut the report).
_USAGE_OPEN, _USAGE_CLOSE = "<usage>", "</usage>"
_AGENT_ID_LINE = re.compile(r"agentId: [\w-]+ \([^)]*\)")


def _without_usage(text: str) -> str:
    body = text.rstrip()
    if not body.endswith(_USAGE_CLOSE):
        return text
    start = body.rfind(_USAGE_OPEN, 0, len(body) - len(_USAGE_CLOSE))
    if start == -1:
        return text
    return body[: start - 1 if start > 0 and body[start - 1] == "\n" else start]


def _without_agent_id(text: str) -> str:
    body = text.rstrip()
    line_start = body.rfind("\n") + 1
    if not _AGENT_ID_LINE.fullmatch(body[line_start:]):
        return text
    return body[: max(line_start - 1, 0)]


def agent_report(content: object, structured: object) -> object:
    """A subagent's report as the user reads it: Claude Code's structured report when it has
    one (`tool_use_result.content` of a completed agent), else the raw text without the
    trailer meant for the model."""
    if isinstance(structured, Mapping) and structured.get("status") == "completed":
        report = structured.get("content")
        if isinstance(report, list) and report:
            return report
    if isinstance(content, str):
        return _without_agent_id(_without_usage(content))
    if isinstance(content, list):
        return [
            {**block, "text": _without_agent_id(_without_usage(block["text"]))}
            if isinstance(block, Mapping) and isinstance(block.get("text"), str)
            else block
            for block in content
        ]
    return content


def _str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else None


def _result_blocks(content: object) -> tuple[str, list[Wire]]:
    """The result's text as the card shows it (a huge one cut, `adapter.view.long_output`),
    and its images as ACP image content."""
    if isinstance(content, str):
        return shown_text((content,)), []
    if not isinstance(content, list):
        return "", []
    texts: list[str] = []
    images: list[Wire] = []
    for block in content:
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "image" and isinstance(block.get("source"), Mapping):
            source = block["source"]
            data, mime = _str(source, "data"), _str(source, "media_type")
            if data and mime and len(data) > SHOWN_IMAGE_CHARACTERS:
                images.append(_text(image_note(mime, len(data))))
            elif data and mime:
                image = {"type": "image", "data": data, "mimeType": mime}
                images.append({"type": "content", "content": image})
    return shown_text(texts), images


def _text(text: str) -> Wire:
    return {"type": "content", "content": {"type": "text", "text": text}}


def _usable(original: object) -> str | None:
    if not isinstance(original, str) or len(original) > _DIFF_FILE_LIMIT or "\x00" in original:
        return None
    return original


def _edited(name: str, tool_input: Mapping[str, Any], original: str) -> str | None:
    """The file after the edit, or None when the edit does not apply to `original`."""
    edits: list[Any]
    if name == "Edit":
        edits = [tool_input]
    else:
        listed = tool_input.get("edits")
        edits = listed if isinstance(listed, list) else []
    text = original
    for edit in edits:
        old = _str(edit, "old_string") if isinstance(edit, Mapping) else None
        new = _str(edit, "new_string") if isinstance(edit, Mapping) else None
        if old is None or new is None or old not in text:
            return None
        count = -1 if edit.get("replace_all") is True else 1
        text = text.replace(old, new, count)
    return text


def _first_line(result: Mapping[str, Any]) -> int | None:
    patch = result.get("structuredPatch")
    if isinstance(patch, list) and patch and isinstance(patch[0], Mapping):
        line = patch[0].get("newStart")
        if isinstance(line, int) and not isinstance(line, bool) and line >= 0:
            return line
    return None


def _file_diff(
    name: str, tool_input: Mapping[str, Any], result: Mapping[str, Any], cwd: str
) -> Wire | None:
    """A whole-file diff of a successful edit, from what Claude Code says it changed."""
    path = _str(result, "filePath") or _str(tool_input, "file_path")
    if not path:
        return None
    path = path if os.path.isabs(path) or not cwd else os.path.join(cwd, path)
    original = result.get("originalFile")
    if name == "Write":
        new = _str(tool_input, "content")
        old = _usable(original)
        if new is None or (original is not None and old is None):
            return None
        diff: Wire = {"type": "diff", "path": path, "newText": new}
        if old is not None:
            diff["oldText"] = old
        return diff
    old = _usable(original)
    new = _edited(name, tool_input, old) if old is not None else None
    if old is None or new is None:
        return None
    return {"type": "diff", "path": path, "oldText": old, "newText": new}


def background_task(tool_use_result: object) -> str | None:
    """The task id of a command Claude Code moved to the background (its terminal stays open
    until the task ends), from the result's `backgroundTaskId`."""
    if isinstance(tool_use_result, Mapping):
        task = tool_use_result.get("backgroundTaskId")
        if isinstance(task, str) and task:
            return task
    return None


def terminal_exit(tool_id: str, status: str) -> Wire:
    """The update that ends a background command's terminal when its task ends."""
    code = 0 if status == "completed" else 1
    return {
        "sessionUpdate": "tool_call_update",
        "toolCallId": tool_id,
        "_meta": {"terminal_exit": {"terminal_id": tool_id, "exit_code": code, "signal": None}},
    }


def _terminal(update: Wire, text: str, is_error: bool, delta: bool) -> list[Wire]:
    """Zed's terminal extension: the output, then the exit on the final update. A client that
    declared `_meta.terminal_output_delta` gets the output under that key (appended to what
    the terminal shows; the whole output is one delta here)."""
    tool_id = update["toolCallId"]
    key = "terminal_output_delta" if delta else "terminal_output"
    output: Wire = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": tool_id,
        "_meta": {key: {"terminal_id": tool_id, "data": text}},
    }
    exit_info = {"terminal_id": tool_id, "exit_code": 1 if is_error else 0, "signal": None}
    update["_meta"] = {"terminal_exit": exit_info}
    return [output, update]


def fenced(text: str, info: str = "") -> str:
    """`text` in a Markdown code fence (with `info`, e.g. `console`), as the reference shows a
    failed call's text and a command's output: three backticks, longer than any fence a line of
    the text opens with (indented up to three spaces, as Markdown reads one), so that it cannot
    close early (docs/decisions.md#failed-call-text-fenced)."""
    fence = "```"
    for run in _FENCE_RUN.findall(text):
        if len(run) >= len(fence):
            fence = "`" * (len(run) + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def non_execution(raw: object) -> dict[str, dict[str, str]]:
    """Why Claude Code stamped a tool's result instead of running it, by tool call id: a user
    message's `tool_result_meta` (`[{id, non_execution_kind, user_feedback?}]`, which the SDK's
    parser drops) as `_meta.claudeCode` carries it (`{nonExecutionKind, userFeedback?}`). A kind
    this adapter does not know is kept, as the reference keeps it
    (docs/reference-adapter.md#non-execution-kind); an entry of another shape is left out."""
    entries = raw.get("tool_result_meta") if isinstance(raw, Mapping) else None
    found: dict[str, dict[str, str]] = {}
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, Mapping):
            continue
        tool_id, kind = entry.get("id"), entry.get("non_execution_kind")
        if not isinstance(tool_id, str) or not isinstance(kind, str):
            continue
        meta = {"nonExecutionKind": kind}
        feedback = entry.get("user_feedback")
        if isinstance(feedback, str):
            meta["userFeedback"] = feedback
        found[tool_id] = meta
        if len(found) >= _NON_EXECUTION_LIMIT:
            break
    return found


# A message's results are its tools' calls: far fewer than this.
_NON_EXECUTION_LIMIT = 1024


def result_updates(
    *,
    tool_id: str,
    name: str,
    tool_input: object,
    content: object,
    is_error: bool,
    tool_use_result: object,
    cwd: str,
    terminal: bool,
    terminal_delta: bool = False,
    air: bool = False,
) -> list[Wire]:
    """The updates that end one card: content, locations and the final status. A failed
    call's text is fenced where the core's `failed_text_fenced` says so (a JetBrains AIR client,
    `air`, reads some tools' plain; docs/decisions.md#failed-call-text-fenced)."""
    data: Mapping[str, Any] = tool_input if isinstance(tool_input, Mapping) else {}
    extra: Mapping[str, Any] = tool_use_result if isinstance(tool_use_result, Mapping) else {}
    if name in SUBAGENT_TOOLS:
        content = agent_report(content, tool_use_result)
    text, images = _result_blocks(content)
    status = "failed" if is_error else "completed"
    update: Wire = {"sessionUpdate": "tool_call_update", "toolCallId": tool_id, "status": status}
    if text:
        update["rawOutput"] = text
    if name in _CONSOLE_TOOLS and terminal:
        updates = _terminal(update, text, is_error, terminal_delta)
        if background_task(tool_use_result) is not None and not is_error:
            del updates[-1]["_meta"]  # the command runs on: its exit comes when its task ends
        return updates
    if name in _EDIT_TOOLS and not is_error:
        diff = _file_diff(name, data, extra, cwd)
        if diff is not None:
            update["content"] = [diff]
            line = _first_line(extra)
            if line is not None:
                update["locations"] = [{"path": diff["path"], "line": line}]
        # Without a usable file the card keeps the diff it opened with.
        return [update]
    shown: list[Wire] = []
    if text and name in _CONSOLE_TOOLS:
        shown.append(_text(fenced(text, "console")))
    elif text and is_error and failed_text_fenced(name, air=air):
        shown.append(_text(fenced(text)))
    elif text:
        shown.append(_text(text))
    shown.extend(images)
    if shown:
        update["content"] = shown
    return [update]
