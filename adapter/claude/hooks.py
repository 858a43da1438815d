"""The Claude Code hooks the adapter registers through the SDK: `PostCompact`, the summary a
compaction kept (shown as the reference adapter shows it, `adapter.view.compaction_updates`,
docs/reference-adapter.md#compaction-updates);
`TaskCreated`/`TaskCompleted` (`{task_id, task_subject, …}`), changes of Claude Code's task list
that the session's plan shows (`adapter.view.task_plan`); `PostModelSwitch` (`{to_model,
source, agent_id?}`), a model switch Claude Code made itself (`/model opus` typed in the chat),
which the model picker follows when the core says so (`fsm.model_switch_to_follow`); for a
JetBrains AIR client with native subagent sessions, what a subagent runs with (`SubagentStart`,
`SubagentStop`, `PreToolUse`, `PostToolUse`, `PostToolUseFailure`, `PostModelSwitch` fired
inside it carry its `agent_id`, `agent_type`, `permission_mode`, `effort` and a switch's
`to_model`), which its child session is told (`fsm.NativeSubagents.subagent_hook`), as the
reference's `subagentConfigurationHook` tells it
(docs/reference-adapter.md#subagent-configuration); and the answerer of MCP servers' own
questions (MCP elicitation, asked as an ACP form, `adapter.controls.mcp_elicitation`), which
is no hook.

Theory of operation: the SDK (`claude-agent-sdk` 0.2.189) has no callback of its own for
either. The bundled CLI (2.1.332) fires `PostCompact {trigger, compact_summary, agent_id?}`,
and the SDK registers hook callbacks for any event name it is given, though its `HookEvent`
type does not list it: the one reach past its public API here, pinned by
`tests/shell/test_compat.py`. The CLI waits for the hook's answer before it reports the
compaction's end, so the summary is kept before that report is read.

An MCP server's question runs the CLI's `Elicitation` hooks first, but the CLI 2.1.332 keeps
only a callback hook's `systemMessage`, never its `hookSpecificOutput` (seen with a real server:
`tests/real_claude/test_mcp_elicitation.py`), so a hook cannot answer it. The CLI then asks the
host with its own `elicitation` control request, which the SDK refuses; the adapter routes that
request to `elicit` (`adapter.claude.sdk_compat.answer_elicitations`), and so registers no
`Elicitation` hook, which would only show the question twice.

The hooks are registered for every process, the subagent ones only for a session whose client
takes native subagent sessions (`options(subagents=True)`: the tool hooks then run at each tool
call, as the reference's do); what they do is the session's (given once the session exists).
With no session, the summary is dropped and an elicitation is declined (what the SDK does for a
host without an elicitation callback). A subagent hook never holds Claude Code up: whatever
its input, and whatever telling the client does, it answers `{continue: true}`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeAlias, cast

from claude_agent_sdk.types import (
    HookCallback,
    HookContext,
    HookEvent,
    HookJSONOutput,
    HookMatcher,
)

__all__ = ["ClaudeHooks", "ElicitationAnswer", "HookAnswers"]

log = logging.getLogger(__name__)

# The hooks that fire inside a subagent and say what it runs with (besides PostModelSwitch,
# which the session's own model following also hears).
_SUBAGENT_EVENTS = (
    "SubagentStart",
    "SubagentStop",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
)

# Answers an MCP server's elicitation: Claude Code's `elicitation` request in (its
# `mcp_server_name`, `message`, `mode`, `requested_schema`, `url`, `elicitation_id`), the
# server's answer out (`{action, content?}`).
ElicitationAnswer: TypeAlias = Callable[[Any], Awaitable[dict[str, Any]]]


class HookAnswers(Protocol):
    def compacted(self, summary: str) -> None:
        """A compaction of the main conversation kept `summary` (raw, as Claude Code wrote
        it). Called before Claude Code reports the compaction's end."""

    async def task_changed(self, data: Mapping[str, Any]) -> None:
        """A TaskCreated or TaskCompleted hook's input (as Claude Code wrote it)."""

    async def subagent_hook(self, data: object) -> None:
        """A hook that may have fired inside a subagent, its input as Claude Code wrote it:
        what that subagent runs with, for its child session."""


class ClaudeHooks:
    def __init__(self, *, epoch: str = "") -> None:
        self._epoch = epoch
        self._answers: HookAnswers | None = None
        self._answer_elicitation: ElicitationAnswer | None = None
        self._follow_model: Callable[[str], object] | None = None

    def answer_with(self, answers: HookAnswers) -> None:
        self._answers = answers

    def answer_elicitations_with(self, answer: ElicitationAnswer) -> None:
        self._answer_elicitation = answer

    def follow_models_with(self, follow: Callable[[str], object]) -> None:
        """`follow(model)`: the picker should show `model` now. Called while Claude Code waits
        for the hook's answer, so it must only schedule the work: what it does may ask Claude
        Code something, which would wait behind this hook."""
        self._follow_model = follow

    def options(self, *, subagents: bool = False) -> dict[HookEvent, list[HookMatcher]]:
        """`ClaudeAgentOptions.hooks`; `subagents`: the session's client takes native subagent
        sessions, whose configuration the subagent hooks report."""
        model_switched: list[HookCallback] = [self._model_switched]
        hooks = {
            "PostCompact": [HookMatcher(hooks=[self._post_compact])],
            "TaskCreated": [HookMatcher(hooks=[self._task_changed])],
            "TaskCompleted": [HookMatcher(hooks=[self._task_changed])],
            "PostModelSwitch": [HookMatcher(hooks=model_switched)],
        }
        if subagents:
            # The reference's events for `subagentConfigurationHook`, one matcher each (every
            # tool for the tool hooks).
            model_switched.insert(0, self._subagent_hook)
            for event in _SUBAGENT_EVENTS:
                hooks[event] = [HookMatcher(hooks=[self._subagent_hook])]
        # Event names the CLI knows and the SDK's `HookEvent` does not list (module doc).
        return cast(dict[HookEvent, list[HookMatcher]], hooks)

    async def _post_compact(
        self, data: Any, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        if not isinstance(data, Mapping) or data.get("agent_id"):
            return {}  # a subagent's compaction is not the session's
        summary = data.get("compact_summary")
        if self._answers is not None and isinstance(summary, str) and summary:
            self._answers.compacted(summary)
        return {}

    async def _task_changed(
        self, data: Any, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        if self._answers is not None and isinstance(data, Mapping):
            await self._answers.task_changed(data)
        return {}

    async def _model_switched(
        self, data: Any, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        from fsm import model_switch_to_follow  # with the first switch, not before the spawn

        model = model_switch_to_follow(data)
        if model is not None and self._follow_model is not None:
            self._follow_model(model)
        return {}

    async def _subagent_hook(
        self, data: Any, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        if self._answers is not None:
            try:
                await self._answers.subagent_hook(data)
            except Exception:
                # Telling the client failed: Claude Code's work goes on regardless
                # (docs/decisions.md#subagent-configuration).
                log.exception("Claude runtime %s: a subagent's hook was not told", self._epoch)
        return {"continue_": True}

    async def elicit(self, request: Any) -> dict[str, Any]:
        """The answer to Claude Code's `elicitation` request (an MCP server asks the user)."""
        if self._answer_elicitation is None:
            log.error("Claude runtime %s: an elicitation before a session owned it", self._epoch)
            return {"action": "decline"}
        return await self._answer_elicitation(request)
