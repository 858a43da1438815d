"""What the scripted Claude logged (`CLAUDE_ACP_SCRIPTED_LOG`, one JSON object a line: its argv,
the control requests it received and the responses it got), read by the tests of both tiers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def claude_log(tmp_path: Path) -> list[dict[str, Any]]:
    """Every entry the scripted Claude logged under `tmp_path` (none when it logged nothing)."""
    path = tmp_path / "claude-log.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def envs(tmp_path: Path) -> list[dict[str, Any]]:
    """The environment variables each scripted Claude logged (`LOG_ENV_NAMES` names them), in the
    order the Claudes started."""
    return [e["values"] for e in claude_log(tmp_path) if e["kind"] == "env"]


def control_requests(tmp_path: Path, subtype: str) -> list[dict[str, Any]]:
    """The control requests of `subtype` the scripted Claude received, in order."""
    return [
        e["request"]
        for e in claude_log(tmp_path)
        if e["kind"] == "control" and e["request"].get("subtype") == subtype
    ]


def elicitation_answers(tmp_path: Path) -> list[dict[str, Any]]:
    """Every control response the scripted Claude received to its `elicitation` requests (the
    only answers with an `action`)."""
    return [
        e["response"]
        for e in claude_log(tmp_path)
        if e["kind"] == "response"
        and isinstance(e["response"].get("response"), dict)
        and "action" in e["response"]["response"]
    ]


def is_auth_probe(argv: list[str]) -> bool:
    """`claude auth status --json`: the agent reads the sign-in at `initialize` and at each
    prompt's start (adapter.agent.auth_push), besides `authenticate`'s own read."""
    return list(argv) == ["auth", "status", "--json"]


def by_process(tmp_path: Path) -> list[list[dict[str, Any]]]:
    """The scripted Claude's log split per process (each begins with its argv)."""
    processes: list[list[dict[str, Any]]] = []
    for entry in claude_log(tmp_path):
        if entry["kind"] == "argv" and is_auth_probe(entry["argv"]):
            continue  # the agent's `claude auth status` reads (adapter.agent.auth_push)
        if entry["kind"] == "argv":
            processes.append([])
        if processes:
            processes[-1].append(entry)
    return processes


def users(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The user messages among `entries`."""
    return [e for e in entries if e["kind"] == "user"]
