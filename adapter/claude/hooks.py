"""The Claude Code hooks the adapter registers through the SDK: `PostCompact`, the summary a
compaction kept (shown as the reference adapter shows it, `adapter.view.compaction_updates`),
and `Elicitation`, an MCP server's own question (asked as an ACP form,
`adapter.controls.mcp_elicitation`).

Theory of operation: the SDK (`claude-agent-sdk` 0.2.189) has no callback of its own for
either. The bundled CLI (2.1.332) fires both hooks (`PostCompact {trigger, compact_summary,
agent_id?}`; `Elicitation` with the server's name, message, mode and schema, before it would
ask the SDK, which refuses an `elicitation` control request), and the SDK registers hook
callbacks for any event name it is given, though its `HookEvent` type lists neither: the one
reach past its public API here, pinned by `tests/shell/test_compat.py`. The CLI waits for a
hook's answer: before it reports the compaction's end, so the summary is kept before that
report is read; and before it answers the MCP server, so a person has an hour to answer.

The hooks are registered for every process; what they do is the session's (given once the
session exists). With no session, the summary is dropped and an elicitation gets no opinion
(Claude Code answers the server itself).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeAlias, cast

from claude_agent_sdk.types import HookContext, HookEvent, HookJSONOutput, HookMatcher

from adapter.claude.sdk_compat import elicitation_hooks

__all__ = ["ELICITATION_TIMEOUT_SECONDS", "ClaudeHooks", "ElicitationAnswer", "HookAnswers"]

log = logging.getLogger(__name__)

# Answers an MCP server's elicitation: Claude Code's `Elicitation` hook input in, its output out.
ElicitationAnswer: TypeAlias = Callable[[Any], Awaitable[dict[str, Any]]]

# A person answers an MCP server's form: Claude Code may wait this long (seconds) for the hook.
ELICITATION_TIMEOUT_SECONDS = 3600.0


class HookAnswers(Protocol):
    def compacted(self, summary: str) -> None:
        """A compaction of the main conversation kept `summary` (raw, as Claude Code wrote
        it). Called before Claude Code reports the compaction's end."""


class ClaudeHooks:
    def __init__(self, *, epoch: str = "") -> None:
        self._epoch = epoch
        self._answers: HookAnswers | None = None
        self._answer_elicitation: ElicitationAnswer | None = None

    def answer_with(self, answers: HookAnswers) -> None:
        self._answers = answers

    def answer_elicitations_with(self, answer: ElicitationAnswer) -> None:
        self._answer_elicitation = answer

    def options(self) -> dict[HookEvent, list[HookMatcher]]:
        """`ClaudeAgentOptions.hooks`."""
        hooks = {
            "PostCompact": [HookMatcher(hooks=[self._post_compact])],
            **elicitation_hooks(self._elicit, ELICITATION_TIMEOUT_SECONDS),
        }
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

    async def _elicit(self, hook_input: Any, tool_use_id: str | None, context: Any) -> Any:
        if self._answer_elicitation is None:
            log.error("Claude runtime %s: an elicitation before a session owned it", self._epoch)
            return {}  # no opinion: Claude Code answers the server itself
        return await self._answer_elicitation(hook_input)
