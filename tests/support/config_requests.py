"""Raw ACP requests for the mode and config-option tests, and what the scripted Claude logged of
them: the capabilities, options and auto-mode words those tests expect, a client that leaves plan
mode with one chosen option, and readers of the scripted Claude's log (`CLAUDE_ACP_SCRIPTED_LOG`:
its argv and the control requests it received).

Shared by the end-to-end modules of auto mode, fast mode and blank turns; a test module imports
helpers from here, never from another test module (`tests/shell/test_support_imports.py`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import acp
from acp.schema import AllowedOutcome, RequestPermissionResponse

from tests.support.harness import TIMEOUT, Adapter, RecordingClient
from tests.support.scripted_log import is_auth_probe

BOOLEAN: dict[str, Any] = {"session": {"configOptions": {"boolean": {}}, "notices": {}}}

FAST_BOOLEAN = {
    "id": "fast",
    "name": "Fast mode",
    "description": "Faster responses on supported models",
    "category": "model_config",
    "type": "boolean",
    "currentValue": False,
}


FAST_SELECT = {
    "id": "fast",
    "name": "Fast mode",
    "description": "Faster responses on supported models",
    "category": "model_config",
    "type": "select",
    "currentValue": "off",
    "options": [{"value": "on", "name": "On"}, {"value": "off", "name": "Off"}],
}

AUTO_NOTICE = {
    "sessionUpdate": "notice",
    "severity": "warning",
    "title": "Auto mode unavailable",
    "description": "The selected model does not support Auto mode; using Accept edits instead.",
}


AUTO_TEXT = (
    "**Auto mode unavailable:** the selected model does not support Auto mode; "
    "using Accept edits instead."
)


def scripted_env(tmp_path: Path, featured: bool = True) -> dict[str, str]:
    env = {"CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl"), "IS_SANDBOX": "1"}
    if featured:
        env["CLAUDE_ACP_SCRIPTED_MODELS"] = "featured"
    return env


def claude_argvs(tmp_path: Path) -> list[list[str]]:
    path = tmp_path / "claude-log.jsonl"
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [e["argv"] for e in entries if e["kind"] == "argv" and not is_auth_probe(e["argv"])]


def flag_value(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


def control_requests(tmp_path: Path, *subtypes: str) -> list[dict[str, Any]]:
    path = tmp_path / "claude-log.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    entries = [json.loads(line) for line in lines]
    return [
        e["request"]
        for e in entries
        if e["kind"] == "control" and e["request"].get("subtype") in subtypes
    ]


async def initialize_with(adapter: Adapter, capabilities: dict[str, Any]) -> None:
    params = {"protocolVersion": acp.PROTOCOL_VERSION, "clientCapabilities": capabilities}
    await asyncio.wait_for(adapter.conn._conn.send_request("initialize", params), TIMEOUT)


async def raw_request(adapter: Adapter, method: str, **params: Any) -> dict[str, Any]:
    answer = await asyncio.wait_for(adapter.conn._conn.send_request(method, params), TIMEOUT)
    assert isinstance(answer, dict)
    return answer


async def new_session_raw(adapter: Adapter) -> tuple[str, dict[str, Any]]:
    answer = await raw_request(adapter, "session/new", cwd=str(adapter.workdir), mcpServers=[])
    return str(answer["sessionId"]), answer


def config_option(options: list[dict[str, Any]], config_id: str) -> dict[str, Any] | None:
    return next((o for o in options if o["id"] == config_id), None)


def config_params(session: str, config_id: str, value: object) -> dict[str, Any]:
    kind = {"type": "boolean"} if isinstance(value, bool) else {}
    return {"sessionId": session, "configId": config_id, "value": value, **kind}


class PlanClient(RecordingClient):
    def __init__(self, option_id: str) -> None:
        super().__init__()
        self.option_id = option_id
        self.offered: list[list[tuple[str, str, str]]] = []

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.offered.append([(o.option_id, o.name, o.kind) for o in options])
        chosen = AllowedOutcome(outcome="selected", option_id=self.option_id)
        return RequestPermissionResponse(outcome=chosen)
