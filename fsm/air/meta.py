"""The `_meta.jetbrains.air` payloads the agent sends, in the reference adapter's shapes.

Every AIR payload is one key inside `_meta.jetbrains.air`, beside `version: 1`; `with_air_meta`
merges one in and keeps every other namespace and key. A `session_info_update` that carries
only an AIR payload has no `title` and no `updatedAt` (ACP reads `null` there as "clear").
Pure functions of their arguments; which client gets which is `fsm.air.client.AirClient`'s to say.
"""

from __future__ import annotations

import re
from typing import Any

from fsm.visible_text import visible

__all__ = [
    "AIR_VERSION",
    "PLAN_FILE_CLEAR_SUFFIX",
    "SUBAGENT_TOOLS",
    "air_info_update",
    "command_title",
    "context_compaction_meta",
    "custom_answer_meta",
    "mcp_call_meta",
    "mcp_tool_name",
    "mode_kind_meta",
    "permission_heading",
    "plan_file_clear",
    "plan_file_input",
    "skill_command_meta",
    "skill_tool_meta",
    "tool_use_meta",
    "with_air_meta",
]

AIR_VERSION = 1
# What a heading or a reason may be at most; longer is not shown (the reference's bounds).
_HEADING_LIMIT = 4000
# Control characters other than TAB, LF and CR.
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_WS_RUN = re.compile(r"\s+")
_SHELL_TOOLS = frozenset({"Bash", "PowerShell"})
_PLAN_EXIT_HEADING = "Ready to code?"
_FALLBACK_HEADING = "Use tool?"
# The call that tells AIR the plan file is released (a blank path is its clear signal); a call
# of its own, so that the plan card keeps its file.
PLAN_FILE_CLEAR_SUFFIX = ":plan-file-clear"


# The tools that launch a subagent (Claude Code's `Agent`, and `Task`, its older name).
SUBAGENT_TOOLS = frozenset({"Agent", "Task"})


def with_air_meta(meta: dict[str, Any] | None, key: str, payload: Any) -> dict[str, Any]:
    """`meta` with `jetbrains.air.<key> = payload` and `jetbrains.air.version = 1`."""
    out = dict(meta or {})
    jetbrains = dict(out["jetbrains"]) if isinstance(out.get("jetbrains"), dict) else {}
    air = dict(jetbrains["air"]) if isinstance(jetbrains.get("air"), dict) else {}
    air["version"] = AIR_VERSION
    air[key] = payload
    jetbrains["air"] = air
    out["jetbrains"] = jetbrains
    return out


def air_info_update(key: str, payload: Any) -> dict[str, Any]:
    """A `session_info_update` carrying only `_meta.jetbrains.air.<key>`."""
    return {"sessionUpdate": "session_info_update", "_meta": with_air_meta(None, key, payload)}


def _human(text: object, *, single_line: bool) -> str | None:
    if not isinstance(text, str):
        return None
    kept = _CONTROLS.sub("", text)
    shown = _WS_RUN.sub(" ", kept).strip() if single_line else kept.strip()
    return shown if shown and len(shown) <= _HEADING_LIMIT else None


def permission_heading(
    *, tool_name: str, title: str, decision_reason: object, default_to_no: bool
) -> dict[str, Any]:
    """The permission request's `_meta` for an AIR client: the approval's heading (the tool
    call's own title; a shell command verbatim, since collapsing its white space would change
    it), Claude Code's reason for asking, and whether the decline should be focused."""
    heading: str
    if tool_name == "ExitPlanMode":
        heading = _PLAN_EXIT_HEADING
    elif tool_name in _SHELL_TOOLS and title:
        heading = title
    else:
        heading = _human(title, single_line=True) or _FALLBACK_HEADING
    payload: dict[str, Any] = {"version": AIR_VERSION, "title": heading}
    reason = _human(decision_reason, single_line=False)
    if reason is not None:
        payload["description"] = f"Reason: {reason}"
    if default_to_no:
        payload["defaultToNo"] = True
    return with_air_meta(None, "permission", payload)


def plan_file_input(tool_input: object, plan_file: str) -> dict[str, Any]:
    """ExitPlanMode's input as a `planFile` client gets it: the plan's file in place of its
    text (the client reads the plan from the file)."""
    shown = dict(tool_input) if isinstance(tool_input, dict) else {}
    shown.pop("plan", None)
    return {**shown, "planFilePath": plan_file}


def plan_file_clear(tool_id: str) -> dict[str, Any]:
    """After an approved plan: the `tool_call` whose blank `planFilePath` drops AIR's plan file
    button."""
    return {
        "sessionUpdate": "tool_call",
        "toolCallId": f"{tool_id}{PLAN_FILE_CLEAR_SUFFIX}",
        "title": "Exited Plan Mode",
        "kind": "switch_mode",
        "status": "completed",
        "rawInput": {"planFilePath": ""},
        "content": [],
    }


def skill_command_meta(*, listed: bool, path: str | None) -> dict[str, Any] | None:
    """A skill command's `_meta` for an AIR client: its kind and the path of its `SKILL.md`,
    or the kind alone for a skill Claude Code lists without a file (bundled with it); None for
    any other command."""
    if path:
        return with_air_meta(with_air_meta(None, "kind", "skill"), "skillPath", path)
    return with_air_meta(None, "kind", "skill") if listed else None


def skill_tool_meta(meta: dict[str, Any] | None, name: str, path: str | None) -> dict[str, Any]:
    """A `Skill` tool call's `_meta` for an AIR client: the skill's name and, when it has one,
    its `SKILL.md`."""
    payload: dict[str, Any] = {"name": name}
    if path:
        payload["path"] = path
    return with_air_meta(meta, "skill", payload)


def command_title(tool_name: str, tool_input: object) -> str | None:
    """A shell call's description, which AIR shows as the command's title
    (`_meta.jetbrains.air.commandTitle`): Bash's or PowerShell's `description` (else its
    `command_description`), shown as every title is (`visible`: a control character cannot
    reach the client's title, a tab or newline is a space; docs/decisions.md#air-only-keys);
    None for any other tool, or a blank or missing one."""
    if tool_name not in _SHELL_TOOLS or not isinstance(tool_input, dict):
        return None
    described = tool_input.get("description")
    if not isinstance(described, str):
        described = tool_input.get("command_description")
    if not isinstance(described, str) or not described.strip():
        return None
    return visible(described)


_MCP_PREFIX = "mcp__"


def mcp_tool_name(tool_name: str) -> dict[str, str] | None:
    """`mcp__<server>__<tool>` split as Claude Code splits it: the server is the segment up to
    the next `__`, the tool the whole rest (`mcp__a__b__c` is tool `b__c` of server `a`). None
    for any other name, and for one with no server or no tool (`mcp__x`, `mcp____x`,
    `mcp__x__`)."""
    if not tool_name.startswith(_MCP_PREFIX):
        return None
    rest = tool_name[len(_MCP_PREFIX) :]
    separator = rest.find("__")
    if separator <= 0:
        return None
    tool = rest[separator + 2 :]
    return {"server": rest[:separator], "tool": tool} if tool else None


def tool_use_meta(
    meta: dict[str, Any] | None, tool_name: str, tool_input: object
) -> dict[str, Any]:
    """A tool call's `_meta` for an AIR client, with what AIR is told of the call itself, in
    the reference's order (`toolUseMeta`, docs/reference-adapter.md#air-client): a shell
    command's title (`commandTitle`), that it launches a subagent (`subagent: true`,
    `SUBAGENT_TOOLS`) and an MCP tool's server and tool (`mcp`); `meta` as it was (a copy) when
    none applies."""
    out = dict(meta or {})
    title = command_title(tool_name, tool_input)
    if title is not None:
        out = with_air_meta(out, "commandTitle", title)
    if tool_name in SUBAGENT_TOOLS:
        out = with_air_meta(out, "subagent", True)
    mcp = mcp_tool_name(tool_name)
    if mcp is not None:
        out = with_air_meta(out, "mcp", mcp)
    return out


def mcp_call_meta(meta: dict[str, Any], tool_name: str) -> dict[str, Any]:
    """A call's first report's `_meta` for an AIR client: `meta` with the top-level flag
    `is_mcp_tool_call: true` last when the tool is an MCP server's (its name starts `mcp__`,
    the reference's test, which does not split it: docs/reference-adapter.md#air-client);
    `meta` itself otherwise."""
    if not tool_name.startswith(_MCP_PREFIX):
        return meta
    return {**meta, "is_mcp_tool_call": True}


# The kind of each permission mode AIR groups its mode picker by (`buildAvailableModes`:
# docs/reference-adapter.md#mode-kinds); a mode the reference does not offer (`dontAsk`) has none.
_MODE_KINDS = {
    "default": "standard",
    "acceptEdits": "standard",
    "plan": "plan",
    "auto": "auto_review",
    "bypassPermissions": "full_access",
}


def mode_kind_meta(mode_id: str) -> dict[str, Any] | None:
    """A session mode's (and the mode option value's) `_meta` for an AIR client: its kind
    (`standard`, `plan`, `auto_review`, `full_access`); None for a mode without one."""
    kind = _MODE_KINDS.get(mode_id)
    return None if kind is None else with_air_meta(None, "kind", kind)


# Where released AIR builds read the custom answer marker: a root `_meta` key of its own.
_LEGACY_CUSTOM_ANSWER = "_askUserQuestionCustomAnswer"


def custom_answer_meta(question_id: str) -> dict[str, Any]:
    """The `_meta` of a question's free-text "Other" field for an AIR client: it marks the
    field as the custom answer of select field `question_id`, under
    `_meta.jetbrains.air.customAnswer` and, the same value, under the root key released AIR
    builds read (docs/reference-adapter.md#custom-answer)."""
    payload = {"questionId": question_id, "isCustomAnswer": True}
    return with_air_meta({_LEGACY_CUSTOM_ANSWER: dict(payload)}, "customAnswer", payload)


# What a compaction's facts may hold, as the reference names them
# (docs/reference-adapter.md#context-compaction-meta).
_COMPACTION_FACTS = ("trigger", "preTokens", "postTokens", "durationMs", "error")
CONTEXT_COMPACTION_VERSION = 1


def context_compaction_meta(meta: dict[str, Any] | None, facts: dict[str, Any]) -> dict[str, Any]:
    """A compaction report's `_meta` for an AIR client: `meta` with
    `jetbrains.air.contextCompaction = {version: 1, trigger?, preTokens?, postTokens?,
    durationMs?, error?}` (AIR knows the compaction card by it). `facts` are the compaction's
    as far as they are known (`adapter.view.compaction.facts`); a key outside that set is
    left out."""
    payload: dict[str, Any] = {"version": CONTEXT_COMPACTION_VERSION}
    payload.update((key, facts[key]) for key in _COMPACTION_FACTS if key in facts)
    return with_air_meta(meta, "contextCompaction", payload)
