"""The Claude Code hooks the adapter registers through the SDK: `PostCompact`, the summary a
compaction kept (shown as the reference adapter shows it, `adapter.view.compaction_updates`).

Theory of operation: the SDK (`claude-agent-sdk` 0.2.189) has no PostCompact callback of its
own, but the bundled CLI (2.1.332) fires the hook (`PostCompact {trigger, compact_summary,
agent_id?}`) and the SDK registers hook callbacks for any event name it is given, though its
`HookEvent` type does not list this one: the one reach past its public API here, pinned by
`tests/shell/test_compat.py`. The CLI waits for the hook's answer before it reports the
compaction's end, so the summary is kept before that report is read.

The hook is registered for every process; what it does is the session's (`HookAnswers`, given
with `answer_with` once the session exists). With no session, the summary is dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, cast

from claude_agent_sdk.types import HookContext, HookEvent, HookJSONOutput, HookMatcher

__all__ = ["ClaudeHooks", "HookAnswers"]


class HookAnswers(Protocol):
    def compacted(self, summary: str) -> None:
        """A compaction of the main conversation kept `summary` (raw, as Claude Code wrote
        it). Called before Claude Code reports the compaction's end."""


class ClaudeHooks:
    def __init__(self) -> None:
        self._answers: HookAnswers | None = None

    def answer_with(self, answers: HookAnswers) -> None:
        self._answers = answers

    def options(self) -> dict[HookEvent, list[HookMatcher]]:
        """`ClaudeAgentOptions.hooks`."""
        hooks = {"PostCompact": [HookMatcher(hooks=[self._post_compact])]}
        # An event name the CLI knows and the SDK's `HookEvent` does not list (module doc).
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
