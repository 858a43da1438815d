"""Builders for the control-protocol frames of the scripted Claude: responses, errors, its own
requests (`can_use_tool`) and their cancellation, and the `initialize` answer. Split from
`frames.py`, which re-exports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adapter.scripted_claude.frame_ids import CLI_VERSION, Frame
from adapter.scripted_claude.handshake import agents_in, initialize_extras
from adapter.scripted_claude.model_features import models_for
from adapter.scripted_claude.skills import skill_commands

__all__ = [
    "control_cancel_request",
    "control_error",
    "control_request",
    "control_response",
    "initialize_response",
]


def control_response(request_id: str, response: Mapping[str, Any]) -> Frame:
    return {
        "type": "control_response",
        "response": {"subtype": "success", "request_id": request_id, "response": dict(response)},
    }


def control_error(request_id: str, error: str) -> Frame:
    return {
        "type": "control_response",
        "response": {"subtype": "error", "request_id": request_id, "error": error},
    }


def control_request(request_id: str, request: Mapping[str, Any]) -> Frame:
    return {"type": "control_request", "request_id": request_id, "request": dict(request)}


def control_cancel_request(request_id: str) -> Frame:
    return {"type": "control_cancel_request", "request_id": request_id}


def initialize_response(
    *,
    scenario: str,
    pid: int,
    model: str,
    env: Mapping[str, str] | None = None,
    fast: bool = False,
    cwd: str = ".",
) -> Frame:
    """The inner `response` of the initialize answer (`ClaudeSDKClient.get_server_info()`);
    `cwd`'s skills are among its commands (`skills`)."""
    del model  # the picker lists aliases; the model in use is named by `system/init`
    extras = initialize_extras()
    extras["commands"] += skill_commands(cwd) if cwd else []
    return {
        **extras,
        "models": models_for(env or {}),
        "agents": agents_in(cwd),
        "fast_mode_state": "on" if fast else "off",
        "output_style": "default",
        "available_output_styles": ["default"],
        "pid": pid,
        "scripted_claude": {"scenario": scenario, "version": CLI_VERSION},
    }
