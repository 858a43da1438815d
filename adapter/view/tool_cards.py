"""Claude Code's tools as ACP tool-call cards: one table row per tool.

Each row says how a call of that tool looks in the editor: a human title, the ACP `kind`, the
`locations` the editor can follow, and the content the card opens with (the diff of an edit,
the prompt of a subagent, the plan to approve). `adapter.view.tool_results` says how it ends. Tool
input comes from Claude unchecked, so every field read here is checked for its type: a wrong
shape gives a plainer card (the tool's name as the title, no locations), never an error.

Cards are built as wire dicts, the schema's `tool_call` shape, because live turns and history
replay both go through them (`adapter.view.turn_view`) and replay is the bulk path.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fsm import ASK_TOOL, visible

__all__ = ["PLAN_TOOL", "ToolCard", "card_for", "input_json", "rel_path", "tool_kind"]

Input = Mapping[str, Any]
Wire = dict[str, Any]

# The tool whose calls become the session's plan instead of a card (adapter.view.plan).
PLAN_TOOL = "TodoWrite"
_TITLE_LIMIT = 200


def _s(data: Input, key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


def _n(data: Input, key: str) -> int | None:
    value = data.get(key)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 2**31:
        return value
    return None


def rel_path(path: str, cwd: str) -> str:
    """`path` relative to the session's folder when it lies inside it, else as given."""
    if cwd and os.path.isabs(path):
        try:
            relative = os.path.relpath(path, cwd)
        except ValueError:
            return path
        if not relative.startswith(".."):
            return relative
    return path


def _abs(path: str, cwd: str) -> str:
    return path if os.path.isabs(path) or not cwd else os.path.join(cwd, path)


def _text(text: str) -> Wire:
    return {"type": "content", "content": {"type": "text", "text": text}}


def _diff(path: str, old: str | None, new: str) -> Wire:
    diff: Wire = {"type": "diff", "path": path, "newText": new}
    if old is not None:
        diff["oldText"] = old
    return diff


@dataclass(frozen=True, slots=True)
class ToolCard:
    """How one tool's call looks: `kind`, and functions of (input, cwd) for the rest."""

    kind: str
    title: Callable[[Input, str], str] | None = None
    path_key: str | None = None  # the input field naming the file or folder it works on
    content: Callable[[Input, str], list[Wire]] | None = None
    # `content` only shows part of the input again (a prompt, a plan, questions, a cell's
    # source): left out for a client that renders `rawInput` itself (AIR's `rawInputRendering`).
    input_copy: bool = False


def _read_title(data: Input, cwd: str) -> str:
    title = f"Read {rel_path(_s(data, 'file_path'), cwd)}"
    offset, limit = _n(data, "offset"), _n(data, "limit")
    if offset is not None and limit is not None:
        return f"{title} (lines {offset}-{offset + limit - 1})"
    if offset is not None:
        return f"{title} (from line {offset})"
    return title


def _edit_diff(data: Input, cwd: str) -> list[Wire]:
    path = _abs(_s(data, "file_path"), cwd)
    return [_diff(path, _s(data, "old_string"), _s(data, "new_string"))]


def _multi_edit_diffs(data: Input, cwd: str) -> list[Wire]:
    path = _abs(_s(data, "file_path"), cwd)
    edits = data.get("edits")
    if not isinstance(edits, list):
        return []
    return [
        _diff(path, _s(edit, "old_string"), _s(edit, "new_string"))
        for edit in edits
        if isinstance(edit, Mapping)
    ]


def _write_diff(data: Input, cwd: str) -> list[Wire]:
    # A new file until the result says what was there before (adapter.view.tool_results).
    return [_diff(_abs(_s(data, "file_path"), cwd), None, _s(data, "content"))]


def _grep_title(data: Input, cwd: str) -> str:
    where = rel_path(_s(data, "path"), cwd) or "."
    title = f'Search "{_s(data, "pattern")}" in {where}'
    glob = _s(data, "glob") or _s(data, "type")
    return f"{title} ({glob})" if glob else title


def _glob_title(data: Input, cwd: str) -> str:
    where = rel_path(_s(data, "path"), cwd) or "."
    return f"Find {_s(data, 'pattern')} in {where}"


def _mentioned(key: str) -> Callable[[Input, str], list[Wire]]:
    def content(data: Input, cwd: str) -> list[Wire]:
        text = _s(data, key)
        return [_text(text)] if text else []

    return content


def _notebook_content(data: Input, cwd: str) -> list[Wire]:
    source = _s(data, "new_source")
    return [_text(f"```\n{source}\n```")] if source else []


def _question_texts(data: Input) -> list[str]:
    questions = data.get("questions")
    found = questions if isinstance(questions, list) else []
    return [q["question"] for q in found if isinstance(q, Mapping) and _s(q, "question")]


_ASKING = "Asking for your input"


def _ask_title(data: Input, cwd: str) -> str:
    # As the reference adapter titles it: the question itself when there is only one (a
    # client that asks for the fixed title gets `_ASKING` always:
    # docs/reference-adapter.md#ask-user-question).
    texts = _question_texts(data)
    return texts[0] if len(texts) == 1 else _ASKING


def _ask_content(data: Input, cwd: str) -> list[Wire]:
    return [_text(text) for text in _question_texts(data)]


def _agent_title(data: Input, cwd: str) -> str:
    # The effort the user asked the subagent for (a fork runs at its parent's, so none shown).
    effort = _s(data, "effort")
    shown = f" ({effort} effort)" if effort and _s(data, "subagent_type") != "fork" else ""
    return _s(data, "description") + shown


def _findings(data: Input) -> list[Input]:
    found = data.get("findings")
    return [f for f in found if isinstance(f, Mapping)] if isinstance(found, list) else []


def _findings_title(data: Input, cwd: str) -> str:
    # As the reference titles a `ReportFindings` call (docs/reference-adapter.md#report-findings).
    count = len(_findings(data))
    if count == 0:
        return "Report findings: none found"
    return f"Report {count} finding{'' if count == 1 else 's'}"


def _findings_content(data: Input, cwd: str) -> list[Wire]:
    """Each finding as the user reads it: `**file:line** — summary`."""
    shown = []
    for finding in _findings(data):
        line = _n(finding, "line")
        where = _s(finding, "file") + (f":{line}" if line else "")
        shown.append(_text(f"**{where}** — {_s(finding, 'summary')}"))
    return shown


def _input_json(data: Input, cwd: str) -> list[Wire]:
    return input_json(data)


def input_json(tool_input: object) -> list[Wire]:
    """A card's content that shows the call's input as a JSON block."""
    data = dict(tool_input) if isinstance(tool_input, Mapping) else {}
    return [_text(f"```json\n{json.dumps(data, indent=2, default=str)}\n```")]


_CARDS: Mapping[str, ToolCard] = {
    "Read": ToolCard("read", _read_title, "file_path"),
    "NotebookRead": ToolCard(
        "read", lambda d, c: f"Read {rel_path(_s(d, 'notebook_path'), c)}", "notebook_path"
    ),
    "Write": ToolCard(
        "edit", lambda d, c: f"Write {rel_path(_s(d, 'file_path'), c)}", "file_path", _write_diff
    ),
    "Edit": ToolCard(
        "edit", lambda d, c: f"Edit {rel_path(_s(d, 'file_path'), c)}", "file_path", _edit_diff
    ),
    "MultiEdit": ToolCard(
        "edit",
        lambda d, c: f"Edit {rel_path(_s(d, 'file_path'), c)}",
        "file_path",
        _multi_edit_diffs,
    ),
    "NotebookEdit": ToolCard(
        "edit",
        lambda d, c: f"Edit notebook {rel_path(_s(d, 'notebook_path'), c)}",
        "notebook_path",
        _notebook_content,
        input_copy=True,
    ),
    "Bash": ToolCard(
        "execute", lambda d, c: _s(d, "command"), None, _mentioned("description"), True
    ),
    "BashOutput": ToolCard("execute", lambda d, c: f"Output of shell {_s(d, 'bash_id')}"),
    "KillShell": ToolCard("execute", lambda d, c: f"Stop shell {_s(d, 'shell_id')}"),
    "KillBash": ToolCard("execute", lambda d, c: f"Stop shell {_s(d, 'shell_id')}"),
    "Grep": ToolCard("search", _grep_title, "path"),
    "Glob": ToolCard("search", _glob_title, "path"),
    "LS": ToolCard("search", lambda d, c: f"List {rel_path(_s(d, 'path'), c)}", "path"),
    "WebFetch": ToolCard(
        "fetch", lambda d, c: f"Fetch {_s(d, 'url')}", None, _mentioned("prompt"), True
    ),
    "WebSearch": ToolCard("fetch", lambda d, c: f'Search the web for "{_s(d, "query")}"'),
    "PowerShell": ToolCard(
        "execute", lambda d, c: _s(d, "command"), None, _mentioned("description"), True
    ),
    "Task": ToolCard("think", _agent_title, None, _mentioned("prompt"), True),
    "Agent": ToolCard("think", _agent_title, None, _mentioned("prompt"), True),
    "Skill": ToolCard("other", lambda d, c: f"Load skill: {_s(d, 'skill')}"),
    # Asked by Claude Code's sandbox: the host is what the user decides about.
    "SandboxNetworkAccess": ToolCard("fetch", lambda d, c: _s(d, "host"), None, _input_json, True),
    "ExitPlanMode": ToolCard(
        "switch_mode", lambda d, c: "Ready to code?", None, _mentioned("plan"), True
    ),
    "EnterPlanMode": ToolCard("switch_mode", lambda d, c: "Plan first"),
    ASK_TOOL: ToolCard("other", _ask_title, None, _ask_content, True),
    # The findings are input the user reads: shown, unless the client renders `rawInput`.
    "ReportFindings": ToolCard("think", _findings_title, None, _findings_content, True),
}


# The input field each card is about. Without it (input of the wrong shape) the card is plain,
# its title the tool's name and no content: shown, not guessed at.
_NEEDS = {
    "Read": "file_path",
    "NotebookRead": "notebook_path",
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
    "Bash": "command",
    "PowerShell": "command",
    "Skill": "skill",
    "SandboxNetworkAccess": "host",
    "BashOutput": "bash_id",
    "KillShell": "shell_id",
    "KillBash": "shell_id",
    "Grep": "pattern",
    "Glob": "pattern",
    "LS": "path",
    "WebFetch": "url",
    "WebSearch": "query",
    "Task": "description",
    "Agent": "description",
}


def _mcp_title(name: str) -> str:
    # mcp__<server>__<tool>; server names may hold underscores, tool names too.
    _, _, rest = name.partition("mcp__")
    server, _, tool = rest.partition("__")
    return f"{tool} ({server} MCP)" if server and tool else name


def tool_kind(name: str) -> str:
    """The ACP kind of a call of tool `name` ("other" for tools the table does not know)."""
    card = _CARDS.get(name)
    return card.kind if card is not None else "other"


def card_for(
    tool_id: str,
    name: str,
    tool_input: object,
    cwd: str,
    *,
    input_copies: bool = True,
    fixed_question_title: bool = False,
) -> Wire:
    """The `tool_call` update that opens the card of one call, status `pending` (a
    `tool_call_update` made from it drops `name`). `input_copies` False: no content that only
    shows the input again (the client renders `rawInput` itself); an edit's diff stays.
    `fixed_question_title`: an AskUserQuestion card is "Asking for your input" even for one
    question (`fsm.AirClient.fixed_question_title`)."""
    data: Input = tool_input if isinstance(tool_input, Mapping) else {}
    card = _CARDS.get(name)
    needed = _NEEDS.get(name)
    usable = needed is None or bool(_s(data, needed))
    title = name
    if name == ASK_TOOL and fixed_question_title:
        title = _ASKING
    elif card is not None and card.title is not None and usable:
        title = " ".join(card.title(data, cwd).split()) or name
    elif name.startswith("mcp__"):
        title = _mcp_title(name)
    # Made of Claude's input (a Bash command, a pattern): no control character reaches the
    # editor's title (an `ESC ]0;` would retitle a terminal client); rawInput keeps the bytes.
    title = visible(title)
    if len(title) > _TITLE_LIMIT:
        title = title[: _TITLE_LIMIT - 1] + "\u2026"
    update: Wire = {
        "sessionUpdate": "tool_call",
        "toolCallId": tool_id,
        # ACP 1.22's `name`: the tool as Claude calls it, on the card's opening only.
        "name": name,
        "title": title,
        "kind": card.kind if card is not None else "other",
        "status": "pending",
    }
    if tool_input is not None:
        update["rawInput"] = tool_input
    if card is not None and card.path_key is not None and _s(data, card.path_key):
        location: Wire = {"path": _abs(_s(data, card.path_key), cwd)}
        line = _n(data, "offset") if name == "Read" else None
        if line is not None:
            location["line"] = line
        update["locations"] = [location]
    shown = card is not None and (input_copies or not card.input_copy)
    if card is not None and card.content is not None and usable and shown:
        content = card.content(data, cwd)
        if content:
            update["content"] = content
    return update
