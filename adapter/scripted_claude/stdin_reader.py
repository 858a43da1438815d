"""The scripted Claude's stdin thread: answers control requests itself (`initialize`,
`set_model`, ...) and files user turns, `can_use_tool` answers and interrupts into the `Inbox`,
marking EOF when stdin closes. Split from `runtime.py`, which starts it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import BinaryIO

from adapter.scripted_claude import frames, local_controls
from adapter.scripted_claude.handshake import PERMISSION_MODES, record, resolve_model
from adapter.scripted_claude.hook_steps import callback_ids
from adapter.scripted_claude.model_features import (
    DEFAULT_EFFORT,
    ULTRACODE_ENV,
    context_window,
    settings_answer,
)
from adapter.scripted_claude.session import SessionState
from adapter.scripted_claude.skills import skill_frontmatter
from adapter.scripted_claude.steps import Scenario
from adapter.scripted_claude.wire import Inbox, UserTurn

__all__ = ["StdinReader"]


class StdinReader:
    """The stdin thread: answers control requests, files everything else into the inbox."""

    def __init__(
        self,
        state: SessionState,
        inbox: Inbox,
        scenario: Scenario,
        env: Mapping[str, str] | None = None,
        *,
        stdin: BinaryIO | None = None,
    ) -> None:
        self.state = state
        self._stdin = stdin  # None: the process's own
        self.inbox = inbox
        self.scenario = scenario
        self.env: Mapping[str, str] = env or {}

    def run(self) -> None:
        stdin = self._stdin if self._stdin is not None else sys.stdin.buffer
        try:
            for raw in iter(stdin.readline, b""):
                line = raw.decode("utf-8", errors="replace").strip()
                if line:
                    self._dispatch(line)
        finally:
            self.inbox.close()

    def _dispatch(self, line: str) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            sys.stderr.write(f"scripted_claude: ignoring a non-JSON input line: {line[:80]}\n")
            return
        if not isinstance(message, dict):
            return
        kind = message.get("type")
        if kind == "user":
            uuid = message.get("uuid")
            body = message.get("message")
            content = body.get("content", "") if isinstance(body, dict) else ""
            # A steer (`priority` now/later) is recorded with its priority for the tests.
            record(self.env, "user", uuid=uuid, content=content, priority=message.get("priority"))
            turn = UserTurn(
                uuid=uuid if isinstance(uuid, str) else None, content=content, raw=message
            )
            self.inbox.push_turn(turn, self._say_queued)
        elif kind == "control_response":
            response = message.get("response") or {}
            record(self.env, "response", response=response)
            self.inbox.push_response(str(response.get("request_id")), response)
        elif kind == "control_request":
            self._control(str(message.get("request_id")), message.get("request") or {})

    def _say_queued(self, uuid: str) -> None:
        self.state.emit(frames.lifecycle_frame(self.state.session_id, uuid, "queued"))

    def _control(self, request_id: str, request: dict[str, object]) -> None:
        s = self.state
        subtype = request.get("subtype")
        answer: frames.Frame = {}
        record(self.env, "control", request=request)
        if subtype == "initialize":
            s.hooks = callback_ids(request.get("hooks"))
            answer = frames.initialize_response(
                scenario=self.scenario.name,
                pid=os.getpid(),
                model=s.model,
                env=self.env,
                fast=s.fast,
                cwd=s.cwd,
            )
        elif subtype == "interrupt":
            if self.inbox.push_interrupt(request_id):
                return  # the player answers once the turn's result is out
        elif subtype == "set_permission_mode":
            mode = request.get("mode")
            if mode not in PERMISSION_MODES:
                # The real CLI refuses a mode it does not know, and keeps its own.
                s.emit(frames.control_error(request_id, f"Invalid permission mode: {mode}"))
                return
            s.permission_mode = str(mode)
        elif subtype == "set_model":
            alias = request.get("model")
            s.model = resolve_model(alias)
            s.model_alias = alias if isinstance(alias, str) else None
        elif subtype == "apply_flag_settings":
            settings = request.get("settings")
            if isinstance(settings, dict) and "effortLevel" in settings:
                effort = settings["effortLevel"]
                effort = effort if isinstance(effort, str) else None
                changes = (effort or DEFAULT_EFFORT) != (s.effort or DEFAULT_EFFORT)
                if changes and "ultracode" not in settings:
                    s.ultracode = False  # a level change without the key turns it off
                s.effort = effort
            if isinstance(settings, dict) and isinstance(settings.get("ultracode"), bool):
                if self.env.get(ULTRACODE_ENV) == "refused":
                    s.emit(frames.control_error(request_id, "ultracode is not available"))
                    return
                s.ultracode = settings["ultracode"]
            if isinstance(settings, dict) and isinstance(settings.get("fastMode"), bool):
                s.fast = settings["fastMode"]
            if isinstance(settings, dict) and "agent" in settings:
                agent = settings["agent"]
                s.agent = agent if isinstance(agent, str) else None
        elif subtype in (
            "mcp_status",
            "get_usage",
            "mcp_reconnect",
            "mcp_toggle",
            "mcp_authenticate",
        ):
            answer, error = local_controls.answer(s.mcp_servers, request)
            if error is not None:
                s.emit(frames.control_error(request_id, error))
                return
        elif subtype == "cancel_async_message":
            # A queued user message is dropped unless Claude Code has taken it up already.
            uuid = request.get("message_uuid")
            withdrawn = isinstance(uuid, str) and self.inbox.withdraw(uuid)
            if withdrawn:
                # As the real CLI: its end comes before the request's answer.
                s.emit(frames.lifecycle_frame(s.session_id, str(uuid), "cancelled"))
            answer = {"cancelled": withdrawn}
        elif subtype == "rename_session":
            title = request.get("title")
            if not isinstance(title, str) or not title.strip():
                s.emit(frames.control_error(request_id, "title must be a non-empty string"))
                return
            s.transcript.append_title(title[:200].strip())
        elif subtype == "stop_task":
            # As Claude Code: the task is stopped, and its end follows in the stream as a
            # `task_updated` whose status is `killed`.
            task_id = request.get("task_id")
            if not isinstance(task_id, str) or not task_id:
                s.emit(frames.control_error(request_id, "No task to stop"))
                return
            s.emit(frames.control_response(request_id, {}))
            s.emit(
                {
                    "type": "system",
                    "subtype": "task_updated",
                    "task_id": task_id,
                    "patch": {"status": "killed"},
                    "session_id": s.session_id,
                    "uuid": frames.new_uuid(),
                }
            )
            return
        elif subtype == "remote_control":
            # Claude Code registers the session with claude.ai and answers with its address.
            answer = frames.remote_control_answer(s.session_id) if request.get("enabled") else {}
            if request.get("enabled") and self.scenario.remote_message:
                s.emit(frames.control_response(request_id, answer))
                # Someone continues the session on their phone: Claude Code echoes what they
                # typed, stamped human, as it echoes the host's own prompts.
                s.emit(frames.remote_echo(s.session_id, self.scenario.remote_message))
                return
        elif subtype == "generate_session_title":
            # `$CLAUDE_ACP_SCRIPTED_TITLE`: the name the fake gives the session (else none).
            title = self.env.get("CLAUDE_ACP_SCRIPTED_TITLE") or None
            answer = {"title": title}
            if title is not None and request.get("persist") is True:
                s.transcript.append_ai_title(title)  # as the real CLI keeps it
        elif subtype == "rewind_files" and request.get("dry_run") is True:
            # What rewinding the prompt would change; nothing is rewound.
            uuid = request.get("user_message_id")
            if not s.checkpointing or not isinstance(uuid, str):
                answer = {"canRewind": False, "error": "File checkpointing is not enabled"}
            else:
                answer = {"canRewind": True, "filesChanged": s.checkpoints.get(uuid, [])}
        elif subtype == "get_settings":
            settled, error = settings_answer(self.env, s.model, s.effort, s.ultracode)
            if settled is None:
                s.emit(frames.control_error(request_id, error or "get_settings failed"))
                return
            answer = settled
        elif subtype == "get_context_usage":
            window = context_window(self.env, s.model_alias, s.model)
            answer = {
                "categories": [],
                "totalTokens": 0,
                "maxTokens": window,
                "rawMaxTokens": window,
                "percentage": 0,
                "model": s.model,
            }
            answer["skills"] = {"skillFrontmatter": skill_frontmatter(s.cwd)}
        s.emit(frames.control_response(request_id, answer))
