"""The one path from Claude's messages to ACP session updates, for live turns and replay.

Live turns feed it the SDK's messages (their content blocks as the wire dicts Claude wrote,
`blocks_of`); `session/load` feeds it the transcript's entries, which hold the same dicts. Both
get the same chunks, cards, diffs and plan, as wire dicts (the schema's shapes; replay is the
bulk path and building a pydantic model per update was a measured share of its time).

- Text and thinking: streamed deltas first (`stream_event`), then what of the finished message
  did not stream (`adapter.view.stream_assembly`), with the API message id as `messageId`.
- Tool use: a card per call (`adapter.view.tool_cards`), opened as soon as Claude starts writing
  the call when it streams, refined as each field of its input completes
  (`adapter.view.streamed_calls`), filled in once its input is whole, ended by its result
  (`adapter.view.tool_results`); TodoWrite becomes the plan (`adapter.view.plan`), never a card,
  and so do the Task* tools, at their results (`adapter.view.task_plan`, kept across turns).
- A subagent's messages (`parent` set: the Task call they belong to) never join the main
  answer: its text shows on the Task card, its tool calls carry `parentToolUseId`.
- Calls still open when a turn ends are marked failed (`close_open_calls`).

Content blocks come from Claude unchecked; one of an unknown type or an unusable shape is
skipped (`skipped` counts them for the caller's one log line), never the whole message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields, is_dataclass
from typing import Any

from adapter.view.final_patch import ReadText, final_patch
from adapter.view.plan import approved_plan_update, plan_update
from adapter.view.plan_file import PLAN_EXIT, FileCheck, plan_file_card, plan_file_result
from adapter.view.stream_assembly import StreamAssembly, chunk
from adapter.view.streamed_calls import StreamedCalls
from adapter.view.task_plan import TASK_TOOLS, TaskPlan
from adapter.view.tool_cards import PLAN_TOOL, card_for
from adapter.view.tool_results import background_task, result_updates, terminal_exit
from fsm import (
    SERVER_CALLS,
    SERVER_RESULTS,
    AirClient,
    AsyncTasks,
    approved_plan,
    skill_tool_meta,
    with_air_meta,
)

__all__ = ["TurnView", "blocks_of", "prompt_updates", "server_result"]

Wire = dict[str, Any]

# Tools Claude Code runs the moment it asks for them (no permission in any mode): their cards
# go to in_progress at once. Others do when the user allows them (`permitted`), or, when
# Claude Code's own rules allowed them, when their result shows they ran: every live card
# goes pending -> in_progress -> completed/failed.
_RUN_AT_ONCE = frozenset(
    {"Read", "NotebookRead", "Grep", "Glob", "LS", "Task", "Agent", "WebSearch", "BashOutput"}
)
# A background task's statuses that end it (and the terminal of its command).
_TASK_ENDINGS = frozenset({"completed", "failed", "killed", "stopped"})
# A session runs a handful of background subagents; past this many they are not tracked.
_MAX_SUBAGENTS = 64
# Tools whose command runs in a terminal a `terminal_output` client shows.
_TERMINAL_TOOLS = frozenset({"Bash", "PowerShell"})
# The SDK's block dataclasses, by the wire `type` each stands for.
_BLOCK_TYPES = {
    "TextBlock": "text",
    "ThinkingBlock": "thinking",
    "ToolUseBlock": "tool_use",
    "ToolResultBlock": "tool_result",
    "ServerToolUseBlock": "server_tool_use",
    "ServerToolResultBlock": "advisor_tool_result",  # the one server result the SDK parses
}


def blocks_of(content: object) -> list[Mapping[str, Any]]:
    """An SDK message's content as the wire dicts Claude wrote (a string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return []
    blocks: list[Mapping[str, Any]] = []
    for block in content:
        if isinstance(block, Mapping):
            blocks.append(block)
        elif is_dataclass(block) and not isinstance(block, type):
            # Shallow: a tool's input or result is read, never changed, so it is not copied.
            kind = _BLOCK_TYPES.get(type(block).__name__, type(block).__name__)
            fields_ = {f.name: getattr(block, f.name) for f in fields(block)}
            blocks.append({**fields_, "type": kind})
    return blocks


def _str(block: Mapping[str, Any], key: str) -> str | None:
    value = block.get(key)
    return value if isinstance(value, str) else None


# How many subagents' streams are followed at once (the oldest is forgotten past it).
_CHILD_STREAMS = 64
# The tools whose result gets a git patch for a `diffPatch` client.
_PATCHED = frozenset({"Edit", "Write"})


def _with_non_execution(ended: list[Wire], tool_id: str, name: str, why: Mapping[str, str]) -> None:
    """The call's last update carries why it did not run (`_meta.claudeCode.nonExecutionKind`,
    `userFeedback`), beside its tool's name, as the reference's does
    (docs/reference-adapter.md#non-execution-kind)."""
    last = next((u for u in reversed(ended) if u.get("toolCallId") == tool_id), None)
    if last is None:
        return
    found = last.get("_meta")
    meta: Wire = found if isinstance(found, dict) else {}
    held = meta.get("claudeCode")
    claude: Wire = held if isinstance(held, dict) else {}
    named = {"toolName": name} if name else {}
    last["_meta"] = {**meta, "claudeCode": {**claude, **named, **why}}


def _denied_why(tool_id: str, name: str, parent: str | None, why: Mapping[str, str]) -> Wire:
    """The `nonExecutionKind` of a call whose card `permission_denied` failed: an update of
    its own, beside the tool's name (and the parent call the denial named), that leaves the
    card's reason shown (docs/reference-adapter.md#non-execution-kind)."""
    meta: Wire = {"toolName": name, **why}
    if parent:
        meta["parentToolUseId"] = parent
    return {
        "sessionUpdate": "tool_call_update",
        "toolCallId": tool_id,
        "_meta": {"claudeCode": meta},
    }


def _with_final_patch(updates: list[Wire], tool_id: str, patch: Wire | None) -> None:
    if patch is None:
        return
    for update in reversed(updates):
        if update.get("toolCallId") == tool_id:
            update.update(patch)
            return


class TurnView:
    """Per-session translation state: the stream's counts and the calls still open."""

    def __init__(
        self,
        *,
        cwd: str,
        live: bool,
        terminal: bool = False,
        terminal_delta: bool = False,
        air: AirClient | None = None,
        existing_file: FileCheck = lambda path: None,
        skill_file: FileCheck = lambda name: None,
        read_text: ReadText = lambda path: None,
        plan_updates: bool = False,
    ) -> None:
        """`air`: what a JetBrains AIR client negotiated; `existing_file`: whether a path
        Claude names is a file (the view reads no disk); `plan_updates`: the client declared
        `plan` (an approved plan is sent as a `plan_update`)."""
        self.cwd = cwd
        self.air = air or AirClient()
        self.plan_updates = plan_updates
        self.existing_file = existing_file
        self.skill_file = skill_file  # a skill's name -> its SKILL.md, if there is one
        self.read_text = read_text
        self.skipped = 0
        self._live = live
        self._terminal = terminal
        self._terminal_delta = terminal_delta
        self._stream = StreamAssembly()
        # Each subagent's own stream, by its Agent call, for a `nativeSubagentSessions` client
        # (its words stream to its child session); the oldest goes past a bound.
        self._child_streams: dict[str, StreamAssembly] = {}
        self._calls: dict[str, tuple[str, object]] = {}  # open calls: id -> (tool, input)
        self._plan_calls: set[str] = set()
        self._task_calls: dict[str, tuple[str, object]] = {}  # open Task* calls: no cards
        self.tasks = TaskPlan()  # the session's task list (Task* tools and hooks)
        # Calls whose card a `permission_denied` failed: their tool's name and parent call.
        self._denied: dict[str, tuple[str, str | None]] = {}
        # Background commands whose terminal is still open: task id -> tool call id.
        self._background: dict[str, str] = {}
        # Subagents running in the background: task id -> the Agent call they run under. Their
        # calls stay open past a turn's end (they run on), and close when the subagent ends.
        self._subagents: dict[str, str] = {}
        # Subagents running in the foreground, which a steer (or the user) may move to the
        # background (`task_updated` with `is_backgrounded`): task id -> their Agent call.
        self._foreground: dict[str, str] = {}
        self._parents: dict[str, str] = {}  # open calls of a subagent: id -> its Agent call
        # Open calls whose opening `tool_call` was sent (`card_sent`), not only made: a
        # permission request may be written between two of a message's cards.
        self._sent: set[str] = set()
        self._running: set[str] = set()  # open calls already reported in_progress
        self._progress: dict[str, Wire] = {}  # the latest progress each running call showed
        # Cards opened while their input still streams.
        self._streamed = StreamedCalls(cwd, fixed_question_title=self.air.fixed_question_title)
        # JetBrains AIR's Async Tasks panel (`asyncTasks` declared; set by the live session).
        self.async_tasks: AsyncTasks | None = None

    def stream_event(self, event: object, parent: str | None) -> list[Wire]:
        """Updates for one partial-message event: chunks, or the card of a tool call Claude
        has begun to write, refined as its input's fields complete (a Write's content can take
        seconds). Raises `MalformedStream` for an event that cannot be used."""
        if parent is not None and self.air.native_subagents:
            return self._child_stream(event, parent)
        updates = self._stream.event(event, parent)
        if parent is not None or not isinstance(event, Mapping):
            return updates
        kind = event["type"]
        if kind == "content_block_delta":
            delta = event.get("delta")
            if isinstance(delta, Mapping) and delta.get("type") == "input_json_delta":
                refined = self._streamed.input_delta(event.get("index"), delta.get("partial_json"))
                for update in refined:
                    self._marked(update, update.get("rawInput"))
                    if not self.air.partial_input:
                        del update["rawInput"]
                    updates.append(update)
        elif kind == "content_block_start":
            block = event.get("content_block")
            if isinstance(block, Mapping) and block.get("type") == "tool_use":
                started = self._streamed.started(event.get("index"), block, self._calls)
                for card in started:
                    self._marked(card, {})
                    if not self.air.partial_input:
                        del card["rawInput"]
                    self._with_terminal(card, card["toolCallId"], card["name"], opening=True)
                    updates.append(self._opening(card))
        elif kind == "message_start":
            self._streamed.message_started()
        return updates

    def _child_stream(self, event: object, parent: str) -> list[Wire]:
        """A subagent's streamed words, for its child session (`fsm.NativeSubagents` routes
        them by the Agent call they name)."""
        assembly = self._child_streams.get(parent)
        if assembly is None:
            assembly = self._child_streams[parent] = StreamAssembly()
            while len(self._child_streams) > _CHILD_STREAMS:
                del self._child_streams[next(iter(self._child_streams))]
        updates = assembly.event(event, None)
        for update in updates:
            update["_meta"] = {"claudeCode": {"parentToolUseId": parent}}
        return updates

    def assistant(
        self, blocks: Iterable[Mapping[str, Any]], *, message_id: str | None, parent: str | None
    ) -> list[Wire]:
        """Updates for one finished assistant message."""
        updates: list[Wire] = []
        if parent is None:
            updates.extend(self._stream.close_broken(unless=message_id))
        for block in blocks:
            kind = block.get("type")
            if kind in ("text", "thinking"):
                updates.extend(self._words(block, kind == "thinking", message_id, parent))
            elif kind == "tool_use":
                updates.extend(self._tool_use(block, parent))
            elif kind in SERVER_CALLS:
                # Run by the API itself, at once: a card like any call's, running.
                updates.extend(self._tool_use(block, parent))
                if self._live and isinstance(block.get("id"), str):
                    updates.extend(self.permitted(block["id"]))
            elif isinstance(kind, str) and kind in SERVER_RESULTS:
                updates.extend(self.user([server_result(block)]))
            elif kind != "redacted_thinking":
                self.skipped += 1
        return updates

    def _words(
        self, block: Mapping[str, Any], thinking: bool, message_id: str | None, parent: str | None
    ) -> list[Wire]:
        text = _str(block, "thinking" if thinking else "text")
        if text is None:
            self.skipped += 1
            return []
        if parent is not None and self.air.native_subagents:
            # The subagent's own words, for its child session (`fsm.NativeSubagents` routes
            # them by their Agent call).
            assembly = self._child_streams.get(parent)
            if assembly is not None:
                text = assembly.remainder(message_id, thinking, text)  # what did not stream
            if not text:
                return []
            words = chunk(
                "agent_thought_chunk" if thinking else "agent_message_chunk", text, message_id
            )
            words["_meta"] = {"claudeCode": {"parentToolUseId": parent}}
            return [words]
        if parent is not None:
            if thinking or not text or parent not in self._calls:
                return []
            # The subagent's latest words, shown on its Task card until the report replaces them.
            return [_on_card(parent, text)]
        rest = self._stream.remainder(message_id, thinking, text)
        if not rest:
            return []
        kind = "agent_thought_chunk" if thinking else "agent_message_chunk"
        return [chunk(kind, rest, message_id)]

    def _tool_use(self, block: Mapping[str, Any], parent: str | None) -> list[Wire]:
        tool_id, name = _str(block, "id"), _str(block, "name") or "tool"
        if not tool_id:
            self.skipped += 1
            return []
        tool_input = block.get("input")
        if name in TASK_TOOLS and parent is None:
            self._task_calls[tool_id] = (name, tool_input)
            return []
        if name == PLAN_TOOL:
            plan = plan_update(tool_input)
            if plan is not None and tool_id not in self._streamed.announced:
                self._plan_calls.add(tool_id)
                return [plan]
        self._calls[tool_id] = (name, tool_input)
        if parent is not None:
            self._parents[tool_id] = parent
        copies = not self.air.raw_input_rendering
        card = card_for(
            tool_id,
            name,
            tool_input,
            self.cwd,
            input_copies=copies,
            fixed_question_title=self.air.fixed_question_title,
        )
        meta: Wire = {"toolName": name}
        if parent is not None:
            meta["parentToolUseId"] = parent
        card["_meta"] = {"claudeCode": meta}
        self._marked(card, tool_input)
        skill = tool_input.get("skill") if isinstance(tool_input, dict) else None
        if name == "Skill" and self.air.skill_paths and isinstance(skill, str):
            card["_meta"] = skill_tool_meta(card["_meta"], skill, self.skill_file(skill))
        if name == PLAN_EXIT and self.air.plan_file:
            plan_file_card(card, tool_input, self.existing_file)
        if name == "Write" and self._live and self.air.diff_patch:
            # The input does not say whether the file exists: the question and the result
            # show the change, the card nothing.
            card["content"] = []
        streamed = self._streamed.finished(tool_id)
        self._with_terminal(card, tool_id, name, opening=not streamed)
        if streamed:
            # The card is open already: this fills in its title, input, locations and diff.
            card["sessionUpdate"] = "tool_call_update"
            del card["status"], card["name"]
        else:
            self._opening(card)
        updates = [card]
        if self._live and name in _RUN_AT_ONCE:
            updates.extend(self.permitted(tool_id))
        return updates

    def _with_terminal(self, card: Wire, tool_id: str, name: str, *, opening: bool) -> None:
        """A shell command's card, for a client that shows terminals: the terminal as its
        content, and on its opening `tool_call` alone, streamed or not, the terminal's
        `_meta.terminal_info` with the folder it runs in, as the clients that read it take it
        (docs/decisions.md#terminal-info-cwd; the reference sends it there only too)."""
        if not self._terminal or name not in _TERMINAL_TOOLS:
            return
        card["content"] = [{"type": "terminal", "terminalId": tool_id}]
        if opening:
            card["_meta"]["terminal_info"] = {"terminal_id": tool_id, "cwd": self.cwd}

    def _marked(self, card: Wire, tool_input: object) -> Wire:
        """Every AIR client is told a shell command's title, which calls launch a subagent
        (`_meta.jetbrains.air.subagent`) and an MCP tool's server and tool
        (`AirClient.tool_meta`), as the reference does (docs/reference-adapter.md#air-client);
        `tool_input`: the call's input as far as it is known."""
        meta = card.get("_meta")
        claude = meta.get("claudeCode") if isinstance(meta, dict) else None
        tool = claude.get("toolName") if isinstance(claude, dict) else None
        if not isinstance(meta, dict) or not isinstance(tool, str):
            return card
        card["_meta"] = self.air.tool_meta(meta, tool, tool_input)
        return card

    def _opening(self, card: Wire) -> Wire:
        """A call's first report (`tool_call`) with what only it carries: the MCP flag of an
        AIR client (`AirClient.opening_meta`), last in its `_meta`, as the reference has it
        (docs/reference-adapter.md#air-client)."""
        meta, name = card.get("_meta"), card.get("name")
        if isinstance(meta, dict) and isinstance(name, str):
            card["_meta"] = self.air.opening_meta(meta, name)
        return card

    def denied(self, frame: Mapping[str, Any]) -> list[Wire]:
        """Claude Code's `system/permission_denied`: a rule, its classifier or the mode refused
        an open call before it ran. The card fails with the reason; the error result that
        follows says less, and is not shown over it."""
        tool_id = _str(frame, "tool_use_id")
        if not tool_id or tool_id not in self._calls:
            return []
        name, _ = self._calls.pop(tool_id)
        self._parents.pop(tool_id, None)
        self._sent.discard(tool_id)
        self._running.discard(tool_id)
        self._progress.pop(tool_id, None)
        reason = _str(frame, "decision_reason") or _str(frame, "message") or "not allowed"
        response: Wire = {"decisionReasonType": frame.get("decision_reason_type")}
        meta: Wire = {"toolName": name, "toolResponse": response}
        parent = _str(frame, "parent_tool_use_id")
        self._denied[tool_id] = (name, parent)
        if parent:
            meta["parentToolUseId"] = parent
        update = _status(tool_id, "failed")
        update["content"] = [{"type": "content", "content": _text(f"Permission denied: {reason}")}]
        update["_meta"] = {"claudeCode": meta}
        return [update]

    def recalled(self, frame: Mapping[str, Any]) -> list[Wire]:
        """Claude Code's `system/memory_recall`: a finished read card (the memory files, or the
        text of a synthesis), as the reference adapter draws it
        (docs/reference-adapter.md#memory-recall)."""
        ident, memories = _str(frame, "uuid"), frame.get("memories")
        if not ident or not isinstance(memories, list):
            return []
        memories = [m for m in memories if isinstance(m, Mapping)]
        synthesis = frame.get("mode") == "synthesize"
        count = len(memories)
        card: Wire = {
            "sessionUpdate": "tool_call",
            "toolCallId": ident,
            "title": "Recalled synthesized memory"
            if synthesis
            else f"Recalled {count} {'memory' if count == 1 else 'memories'}",
            "kind": "read",
            "status": "completed",
            "_meta": {
                "claudeCode": {
                    "toolName": "memory_recall",
                    "toolResponse": {"mode": frame.get("mode")},
                }
            },
        }
        if synthesis:
            texts = [m["content"] for m in memories if isinstance(m.get("content"), str)]
            if texts:
                card["content"] = [{"type": "content", "content": _text(t)} for t in texts]
        else:
            paths = [m["path"] for m in memories if isinstance(m.get("path"), str)]
            if paths:
                card["locations"] = [{"path": path} for path in paths]
        return [card]

    def task_started(self, frame: Mapping[str, Any]) -> list[Wire]:
        """`system/task_started`: a subagent that runs in the background (`is_backgrounded`)
        runs on past the turn's end, and so do its calls (nothing to show yet); one in the
        foreground is kept in mind, in case it is moved there (`task_moved`)."""
        task, parent = _str(frame, "task_id"), _str(frame, "tool_use_id")
        if not (task and parent and frame.get("subagent_type")):
            return []
        if frame.get("is_backgrounded") is True:
            if len(self._subagents) < _MAX_SUBAGENTS:
                self._subagents[task] = parent
        elif len(self._foreground) < _MAX_SUBAGENTS:
            self._foreground[task] = parent
        return []

    def task_moved(self, frame: Mapping[str, Any]) -> list[Wire]:
        """`system/task_updated` with `is_backgrounded`: a foreground subagent a steer (or the
        user) moved to the background runs on past the turn's end as one started there does,
        as the reference marks its live task backgrounded."""
        task = _str(frame, "task_id")
        patch = frame.get("patch")
        moved = isinstance(patch, Mapping) and patch.get("is_backgrounded") is True
        parent = self._foreground.pop(task, None) if task and moved else None
        if task and parent is not None and len(self._subagents) < _MAX_SUBAGENTS:
            self._subagents[task] = parent
        return []

    def task_ended(self, frame: Mapping[str, Any]) -> list[Wire]:
        """A background task ended (`task_notification`, or a final `task_updated`): the
        terminal of the command it was ends with it; a subagent's calls that never got a
        result end with it (failed)."""
        task = _str(frame, "task_id")
        patch = frame.get("patch")
        status = _str(frame, "status") or (
            _str(patch, "status") if isinstance(patch, Mapping) else None
        )
        if not task or status not in _TASK_ENDINGS:
            return []  # still running (or paused): the terminal stays open
        self._foreground.pop(task, None)
        parent = self._subagents.pop(task, None)
        if parent is not None:
            return self._close([i for i in self._calls if self._parents.get(i) == parent])
        tool_id = self._background.pop(task, None)
        if tool_id is None:
            return []
        return [terminal_exit(tool_id, status)]

    def subagents_ended(self) -> None:
        """Claude's stream ended: no subagent runs on, so the next close ends their calls."""
        self._subagents.clear()
        self._foreground.clear()

    def _close(self, calls: list[str]) -> list[Wire]:
        for tool_id in calls:
            self._calls.pop(tool_id, None)
            self._parents.pop(tool_id, None)
            self._sent.discard(tool_id)
            self._running.discard(tool_id)
            self._progress.pop(tool_id, None)
        return [_status(tool_id, "failed") for tool_id in calls]

    def card_sent(self, tool_id: object) -> None:
        """The opening `tool_call` of call `tool_id` went to the client (`LiveView`)."""
        if isinstance(tool_id, str) and (
            tool_id in self._calls or tool_id in self._streamed.announced
        ):
            self._sent.add(tool_id)

    def shown_call(self, tool_id: str) -> tuple[bool, str | None]:
        """Whether the client was shown the card of call `tool_id` (its opening `tool_call`
        sent, not only made: docs/decisions.md#permission-card-before-its-call; still open),
        and the subagent's Agent call it runs under (None: the main thread's, or not known)."""
        shown = tool_id in self._sent and (
            tool_id in self._calls or tool_id in self._streamed.announced
        )
        return shown, self._parents.get(tool_id)

    def subagent_call(self, agent_id: object) -> str | None:
        """The Agent call the running subagent `agent_id` (its task id, as `task_started`
        gave it) runs under; None for none known."""
        if not isinstance(agent_id, str) or not agent_id:
            return None
        return self._foreground.get(agent_id) or self._subagents.get(agent_id)

    def permitted(self, tool_id: str) -> list[Wire]:
        """The call runs now (the user allowed it, or it needs no permission)."""
        if tool_id not in self._calls or tool_id in self._running:
            return []
        self._running.add(tool_id)
        return [_status(tool_id, "in_progress")]

    def progress(self, frame: Mapping[str, Any]) -> list[Wire]:
        """Claude Code's `tool_progress` for a running call (else its subagent's Agent call):
        the card is `in_progress`, with the elapsed time; a call no longer open is left alone."""
        candidates = (frame.get("tool_use_id"), frame.get("parent_tool_use_id"))
        tool_id = next((i for i in candidates if isinstance(i, str) and i in self._calls), None)
        if tool_id is None:
            return []
        response: Wire = {}
        elapsed = frame.get("elapsed_time_seconds")
        if isinstance(elapsed, int | float) and not isinstance(elapsed, bool) and elapsed >= 0:
            response["elapsedTimeSeconds"] = elapsed
        for key, wire in (("subagent_type", "subagentType"), ("subagent_retry", "subagentRetry")):
            if frame.get(key) is not None:
                response[wire] = frame[key]
        update = _status(tool_id, "in_progress")
        if tool_id in self._running:
            if self._progress.get(tool_id) == response:
                return []  # nothing changed since the last beat
            del update["status"]
        self._running.add(tool_id)
        self._progress[tool_id] = response
        meta: Wire = {"toolName": self._calls[tool_id][0], "toolResponse": response}
        update["_meta"] = {"claudeCode": meta}
        return [update]

    def user(
        self,
        blocks: Iterable[Mapping[str, Any]],
        *,
        tool_use_result: object = None,
        not_run: Mapping[str, Mapping[str, str]] | None = None,
    ) -> list[Wire]:
        """Updates for the tool results in one user message (Claude Code ran its tools).
        `not_run`: why Claude Code stamped a result instead of running the tool, by call id
        (`tool_results.non_execution`): on the call's last update, for every client."""
        updates: list[Wire] = []
        for block in blocks:
            if block.get("type") != "tool_result":
                continue
            tool_id = _str(block, "tool_use_id")
            if not tool_id:
                self.skipped += 1
                continue
            if tool_id in self._plan_calls:
                continue  # a plan's "todos updated" is no news
            if tool_id in self._denied:
                # Its card failed with the reason already, which the result's text would only
                # say less of; why it did not run still goes out, as the reference sends it
                # (docs/reference-adapter.md#non-execution-kind).
                name, parent = self._denied.pop(tool_id)
                why = not_run.get(tool_id) if not_run else None
                if why is not None:
                    updates.append(_denied_why(tool_id, name, parent, why))
                continue
            if tool_id in self._task_calls:
                name, tool_input = self._task_calls.pop(tool_id)
                updates.extend(
                    self.tasks.tool_result(
                        name,
                        tool_input,
                        block.get("content"),
                        tool_use_result,
                        is_error=block.get("is_error") is True,
                    )
                )
                continue
            if self._live:
                # Claude Code ran it without asking anyone: it was running until now.
                updates.extend(self.permitted(tool_id))
            self._running.discard(tool_id)
            self._progress.pop(tool_id, None)
            name, tool_input = self._calls.pop(tool_id, ("", None))
            parent = self._parents.pop(tool_id, None)
            self._sent.discard(tool_id)
            task = background_task(tool_use_result)
            if self._terminal and task is not None and len(self._background) < 256:
                self._background[task] = tool_id
            is_error = block.get("is_error") is True
            ended = result_updates(
                tool_id=tool_id,
                name=name,
                tool_input=tool_input,
                content=block.get("content"),
                is_error=is_error,
                tool_use_result=tool_use_result,
                cwd=self.cwd,
                terminal=self._terminal,
                terminal_delta=self._terminal_delta,
                air=self.air.air,
            )
            if name in _PATCHED and not is_error and self._live and self.air.diff_patch:
                # Live only: on a load the file holds whatever came after.
                _with_final_patch(ended, tool_id, final_patch(tool_use_result, self.read_text))
            if name == PLAN_EXIT and self.air.plan_file:
                args = (tool_id, tool_input, tool_use_result)
                check = self.existing_file
                ended = plan_file_result(ended, *args, is_error=is_error, existing_file=check)
            if name == "Bash" and self.async_tasks is not None:
                ended = self._backgrounded(ended, tool_id, tool_input, task, is_error=is_error)
            why = not_run.get(tool_id) if not_run else None
            if why is not None and ended:
                _with_non_execution(ended, tool_id, name, why)
            updates.extend(ended)
            if name == PLAN_EXIT:
                approved = self._approved_plan(
                    tool_id, tool_input, tool_use_result, is_error, parent
                )
                updates.extend(approved)
        return updates

    def _approved_plan(
        self,
        tool_id: str,
        tool_input: object,
        tool_use_result: object,
        is_error: bool,
        parent: str | None,
    ) -> list[Wire]:
        """After an ExitPlanMode call's result, the plan it approved as the session's markdown
        plan, when the core says so (`fsm.approved_plan`), under the id the core gives it
        (`AirClient.approved_plan_id`), as the reference sends it
        (docs/reference-adapter.md#approved-plan)."""
        plan = approved_plan(
            tool_input,
            tool_use_result,
            is_error=is_error,
            subagent=parent is not None,
            plan_updates=self.plan_updates,
        )
        if plan is None:
            return []
        return [approved_plan_update(plan, self.air.approved_plan_id(tool_id))]

    def _backgrounded(
        self,
        ended: list[Wire],
        tool_id: str,
        tool_input: object,
        task: str | None,
        *,
        is_error: bool,
    ) -> list[Wire]:
        """A Bash command that went to the background, for the Async Tasks panel: only
        structured data says so (the result's `backgroundTaskId`, or `run_in_background` on a
        call that did not fail), never the command's text. Its card says
        `_meta.jetbrains.air.asyncTasks.backgrounded`; the task's spawn follows it."""
        assert self.async_tasks is not None
        command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
        in_background = isinstance(tool_input, Mapping) and tool_input.get("run_in_background")
        if task is None and not (in_background is True and not is_error):
            return ended
        marked = [
            {**u, "_meta": with_air_meta(u.get("_meta"), "asyncTasks", {"backgrounded": True})}
            if u.get("sessionUpdate") == "tool_call_update" and u.get("toolCallId") == tool_id
            else u
            for u in ended
        ]
        if task is None:
            return marked
        frame = {
            "task_id": task,
            "tool_use_id": tool_id,
            "task_type": "local_bash",
            "description": command,
            "is_backgrounded": True,
        }
        return marked + self.async_tasks.backgrounded(frame)

    def close_open_calls(self) -> list[Wire]:
        """A turn ended: a message still streaming broke off, and its calls that never got a
        result failed (interrupted or lost); those of a subagent still running in the
        background stay open (it runs on, and their results will come)."""
        running = set(self._subagents.values())
        kept = {i for i in self._calls if self._parents.get(i) in running}
        left = [i for i in self._calls if i not in kept]
        left += [i for i in self._streamed.announced if i not in self._calls]
        updates = self._stream.close_broken()
        updates += [_status(tool_id, "failed") for tool_id in left]
        self._calls = {i: call for i, call in self._calls.items() if i in kept}
        self._parents = {i: parent for i, parent in self._parents.items() if i in kept}
        self._sent &= kept
        self._streamed.clear()
        self._plan_calls.clear()
        self._task_calls.clear()
        self._denied.clear()
        self._running &= kept
        self._progress = {i: beat for i, beat in self._progress.items() if i in kept}
        return updates


def server_result(block: Mapping[str, Any]) -> Mapping[str, Any]:
    """A server tool's result block as a `tool_result`: text for the card (a search's hits as
    title and address; an advisor's encrypted advice is not shown), failed on an error."""
    content = block.get("content")
    kind = content.get("type") if isinstance(content, Mapping) else None
    is_error = block.get("is_error") is True or (isinstance(kind, str) and kind.endswith("_error"))
    text: object = content
    if isinstance(content, Mapping):
        if kind == "advisor_result":
            text = _str(content, "text") or ""
        elif kind == "advisor_redacted_result":
            text = "Advisor guidance applied server-side."
        elif is_error:
            text = f"Error: {_str(content, 'error_code') or 'unknown'}"
        else:
            text = _str(content, "text") or _str(content, "stdout") or ""
    elif isinstance(content, list):
        hits = [
            f"{_str(hit, 'title') or ''} {_str(hit, 'url') or ''}".strip()
            for hit in content
            if isinstance(hit, Mapping) and hit.get("type") != "text"
        ]
        text = "\n".join(h for h in hits if h) if any(hits) else content
    return {
        "type": "tool_result",
        "tool_use_id": block.get("tool_use_id"),
        "content": text,
        "is_error": is_error,
    }


def prompt_updates(blocks: Iterable[Mapping[str, Any]]) -> list[Wire]:
    """A stored prompt as the client's own message (replay): its text and images."""
    updates: list[Wire] = []
    for block in blocks:
        kind = block.get("type")
        text = _str(block, "text")
        if kind == "text" and text:
            updates.append({"sessionUpdate": "user_message_chunk", "content": _text(text)})
        elif kind == "image" and isinstance(block.get("source"), Mapping):
            source = block["source"]
            data, mime = _str(source, "data"), _str(source, "media_type")
            if data and mime:
                image = {"type": "image", "data": data, "mimeType": mime}
                updates.append({"sessionUpdate": "user_message_chunk", "content": image})
    return updates


def _text(text: str) -> Wire:
    return {"type": "text", "text": text}


def _status(tool_id: str, status: str) -> Wire:
    return {"sessionUpdate": "tool_call_update", "toolCallId": tool_id, "status": status}


def _on_card(tool_id: str, text: str) -> Wire:
    return {
        "sessionUpdate": "tool_call_update",
        "toolCallId": tool_id,
        "content": [{"type": "content", "content": _text(text)}],
    }
