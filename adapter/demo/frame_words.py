"""How the demo words one JSON-RPC frame: requests, answers, records; turn updates in
`turn_words.py`."""

from __future__ import annotations

import json
from typing import Any

from adapter.demo.turn_words import describe_turn_update

__all__ = ["describe_frame"]


def _short(text: str, limit: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _record_lines(meta: Any) -> list[str]:
    air = meta.get("jetbrains", {}).get("air", {}) if isinstance(meta, dict) else {}
    record = air.get("sessionFailure") if isinstance(air, dict) else None
    if not isinstance(record, dict):
        return []
    mark = "\u26a0" if record.get("severity") == "warning" else "\u2716"
    actions = ", ".join(record.get("actions") or []) or "none"
    lines = [
        f"    {mark} sessionFailure {record.get('severity')} / {record.get('category')}"
        f"  id={record.get('id')}  revision={record.get('revision')}",
        f"      title:   {record.get('title')}",
    ]
    if record.get("details"):
        lines.append(f"      details: {_short(str(record['details']))}")
    lines.append(f"      actions: {actions}")
    return lines


def _air_lines(meta: Any) -> list[str]:
    """JetBrains AIR's `_meta` payloads other than a sessionFailure record, one line each."""
    air = meta.get("jetbrains", {}).get("air", {}) if isinstance(meta, dict) else {}
    if not isinstance(air, dict):
        return []
    shown = {k: v for k, v in air.items() if k not in ("version", "sessionFailure")}
    return [
        f"      AIR {k}: {_short(json.dumps(v, ensure_ascii=False), 90)}" for k, v in shown.items()
    ]


def describe_frame(direction: str, frame: dict[str, Any], methods: dict[Any, str]) -> list[str]:
    """Readable lines for one JSON-RPC frame; `methods` maps request ids to method names."""
    arrow = "client \u2192 agent" if direction == "outgoing" else "agent \u2192 client"
    method = frame.get("method")
    params = frame.get("params") or {}
    if method is not None and "id" in frame:
        methods[frame["id"]] = method
    if method == "session/update":
        # The first session the client hears of is its own; another is a subagent's child
        # session (JetBrains AIR's native subagent sessions).
        session = str(params.get("sessionId"))
        root = methods.setdefault("session", session)
        where = f" [subagent {session}]" if session != root else ""
        update = params.get("update", {})
        lines = _update_lines(f"{arrow}  session/update{where}", update)
        return [*lines, *_air_lines(update.get("_meta") if isinstance(update, dict) else None)]
    if method is not None:
        asker = params.get("sessionId") if isinstance(params, dict) else None
        own = methods.get("session")
        where = f" [subagent {asker}]" if asker and own and asker != own else ""
        air = _air_lines(params.get("_meta")) if isinstance(params, dict) else []
        return [f"{arrow}  {method}{where}{_request_detail(method, params)}", *air]
    return _response_lines(arrow, methods.get(frame.get("id"), "response"), frame)


def _update_lines(head: str, update: dict[str, Any]) -> list[str]:
    kind = update.get("sessionUpdate")
    head = f"{head} {kind}"
    if kind in ("agent_message_chunk", "agent_thought_chunk", "user_message_chunk"):
        text = update.get("content", {}).get("text", "")
        return [f'{head}: "{_short(text)}"']
    if kind == "subagent_spawned":
        prompt = f' prompt "{_short(str(update["prompt"]), 60)}"' if "prompt" in update else ""
        return [f'{head}: session {update.get("subagentSessionId")} "{update.get("name")}"{prompt}']
    if kind == "subagent_state_update":
        return [f"{head}: session {update.get('subagentSessionId')} {update.get('state')}"]
    shown = describe_turn_update(head, update)
    if shown is not None:
        return shown
    records = _record_lines(update.get("_meta"))
    if records:
        return [f"{head}: a sessionFailure record", *records]
    return [f"{head}: {_fields(update)}"]


def _fields(update: dict[str, Any]) -> str:
    """Words for an update the demo has no special wording for: its fields, briefly."""
    fields = {k: v for k, v in update.items() if k not in ("sessionUpdate", "_meta")}
    if not fields:
        return "(no fields)" if "_meta" not in update else "(only _meta)"
    return _short(", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in fields.items()))


def _request_detail(method: str, params: dict[str, Any]) -> str:
    if method == "session/prompt":
        texts = [b.get("text", "") for b in params.get("prompt", []) if isinstance(b, dict)]
        return f': "{_short(" ".join(texts))}"'
    if method == "initialize":
        opted_in = params.get("clientCapabilities", {}).get("_meta")
        if not opted_in:
            return ": legacy client (no opt-in)"
        declared = opted_in.get("jetbrains", {}).get("air", {}).get("capabilities", [])
        if declared != ["sessionFailure"]:
            return f": JetBrains AIR, declares {', '.join(declared)}"
        return ": opts in to sessionFailure"
    if method == "session/request_permission":
        return f": {params.get('toolCall', {}).get('title', '')}"
    if method == "elicitation/create":
        fields = params.get("requestedSchema", {}).get("properties", {})
        asked = [k for k in fields if not str(k).endswith("_custom")]
        return f': "{_short(str(params.get("message", "")))}" ({len(asked)} question(s))'
    return ""


def _response_lines(arrow: str, answered: str, frame: dict[str, Any]) -> list[str]:
    if "error" in frame:
        error = frame["error"]
        data = f"  data={json.dumps(error.get('data'))}" if error.get("data") is not None else ""
        return [f"{arrow}  {answered} error {error.get('code')}: {error.get('message')}{data}"]
    result = frame.get("result") or {}
    if answered == "session/prompt":
        return [
            f"{arrow}  {answered} \u2192 stopReason {result.get('stopReason')}",
            *_record_lines(result.get("_meta")),
        ]
    if answered == "elicitation/create":
        picked = json.dumps(result.get("content")) if "content" in result else ""
        return [f"{arrow}  {answered} \u2192 {result.get('action')} {picked}".rstrip()]
    if answered == "session/new":
        return [f"{arrow}  {answered} \u2192 sessionId {result.get('sessionId')}"]
    if answered == "initialize":
        air = (result.get("_meta") or {}).get("jetbrains", {}).get("air", {})
        names = air.get("capabilities") or []
        advertised = f"advertises AIR: {', '.join(names)}" if names else "no advertisement"
        return [
            f"{arrow}  {answered} \u2192 protocol {result.get('protocolVersion')}, {advertised}"
        ]
    return [f"{arrow}  {answered} \u2192 ok"]
