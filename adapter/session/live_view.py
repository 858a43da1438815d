"""The session's live view (`adapter.view.turn_view` driven live): Claude's messages in, session
updates out.

`adapter.session.session` calls it at the points of a live turn (a stream event, a finished
message the core let through, tool results, a permission granted, the result, the answer); each
sends what `TurnView` makes of it, plus the turn's `usage_update` and the session's title.
Content of an unusable shape is skipped and logged once per session, never allowed to end the
turn.
"""

from __future__ import annotations

import datetime
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

import anyio
from acp.schema import TextContentBlock, ToolCallUpdate, Usage
from claude_agent_sdk import (
    AssistantMessage,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    UserMessage,
)

from adapter.claude import file_checkpoints
from adapter.claude.patch_sources import read_patch_source
from adapter.claude.plan_files import existing_plan_file
from adapter.claude.sdk_compat import send_control_request
from adapter.claude.skill_files import skill_file_in
from adapter.view.compaction import CompactionCards
from adapter.view.compaction_ids import CompactionIds
from adapter.view.compaction_updates import CompactionUpdates
from adapter.view.plan import approved_plan_update
from adapter.view.side_messages import SideMessages
from adapter.view.stream_assembly import MalformedStream
from adapter.view.task_plan import TaskPlan
from adapter.view.title import title_for
from adapter.view.tool_cards import card_for, input_json
from adapter.view.tool_results import non_execution
from adapter.view.turn_view import TurnView, blocks_of, prompt_updates
from adapter.view.usage import UsageMeter
from adapter.wire.client_link import ClientLink
from fsm import (
    AirClient,
    AsyncTasks,
    FileChangeReports,
    Goals,
    NativeSubagents,
    PermissionCard,
    PromptSuggestions,
    ReportPlan,
    generated_title,
    permission_card,
    redact,
    renames_session,
    shown_title,
    subagent_state,
    title_description,
    typed_prompt_said,
)

__all__ = ["LiveView"]


def _initialized(tasks: AsyncTasks, frame: Mapping[str, Any], prompt_open: bool) -> list[Any]:
    tasks.initialized(frame)  # whether Claude Code names the prompts each request serves
    return []


def _status(tasks: AsyncTasks, frame: Mapping[str, Any], prompt_open: bool) -> list[Any]:
    tasks.status(frame, prompt_open=prompt_open)  # Claude's own next request ends a cancel's tail
    return []


# Claude Code's system frames the Async Tasks panel reads (`fsm.air.async_tasks.AsyncTasks`),
# each with whether a prompt is open: what they say to send (an autonomous turn's start or end,
# docs/reference-adapter.md#autonomous-turns, among them).
_ASYNC_TASK_FRAMES: dict[str, Callable[[AsyncTasks, Mapping[str, Any], bool], list[Any]]] = {
    "task_started": lambda tasks, frame, _: tasks.started(frame),
    "task_progress": lambda tasks, frame, _: tasks.progress(frame),
    "task_updated": lambda tasks, frame, _: tasks.updated(frame),
    "task_notification": lambda tasks, frame, _: tasks.notified(frame),
    "background_tasks_changed": lambda tasks, frame, _: tasks.listed(frame),
    "init": _initialized,
    "status": _status,
    "session_state_changed": lambda tasks, frame, prompt_open: tasks.session_state(
        frame.get("state"), prompt_open=prompt_open
    ),
}

# Claude Code's task frames that open and end native subagent sessions
# (`fsm.air.native_subagents.NativeSubagents`, a method of each name).
_SUBAGENT_FRAMES = frozenset({"task_started", "task_notification", "task_updated"})

log = logging.getLogger(__name__)

TITLE_SECONDS = 60.0  # Claude Code's title is a small model's call; past this it gave none


async def _no_files() -> dict[str, Any]:
    return {}


def _no_prompt() -> bool:
    return False


def _fresh_id() -> str:
    return str(uuid.uuid4())


_T = TypeVar("_T")


class _Fetched(Generic[_T]):
    """What `fetch` returns, fetched only when iterated: a hook of the main thread (most tool
    calls) never lists the root's pickers, which only name a subagent's values."""

    __slots__ = ("_fetch",)

    def __init__(self, fetch: Callable[[], Iterable[_T]]) -> None:
        self._fetch = fetch

    def __iter__(self) -> Iterator[_T]:
        return iter(self._fetch())


def _masked(block: Mapping[str, Any], mask: tuple[str, ...]) -> Mapping[str, Any]:
    text = block.get("text")
    if block.get("type") != "text" or not isinstance(text, str):
        return block
    return {**block, "text": redact(text, mask)}


class LiveView:
    def __init__(
        self,
        link: ClientLink,
        session_id: str,
        cwd: str,
        *,
        terminal_output: bool,
        terminal_output_delta: bool = False,
        titled: bool,
        compaction_updates: bool = False,
        compactions_before: Callable[[str | None], Awaitable[int]] | None = None,
        acp_notices: bool = False,
        private: Callable[[], tuple[str, ...]] = tuple,
        air: AirClient | None = None,
        plan_updates: bool = False,
    ) -> None:
        """`titled`: the session has its title already (a loaded one: its first prompt was
        not this one). `compaction_updates`: the client declared `session.compaction`.
        `compactions_before`: how many compactions the session's transcript holds (before the
        boundary it names), read when the session opens (`count_compactions`), so that ids
        agree with a load's (none: the session has no transcript to read). `acp_notices`:
        the client declared `session.notices`; `private`: the values masked in Claude Code's own
        words, read at each use (a provider set later adds to them); `plan_updates`: the client
        declared `plan`, so an approved plan is sent as a `plan_update`."""
        self._link = link
        self._session_id = session_id
        self._cwd = cwd
        self.terminal = terminal_output
        self.terminal_delta = terminal_output_delta
        self.plan_updates = plan_updates
        self._view = TurnView(
            cwd=cwd,
            live=True,
            terminal=terminal_output,
            terminal_delta=terminal_output_delta,
            air=air,
            existing_file=existing_plan_file,
            skill_file=skill_file_in(cwd),
            read_text=lambda path: read_patch_source(path).text,
            plan_updates=plan_updates,
        )
        self.air = self._view.air
        # JetBrains AIR's file-change reports (`fsm.air.file_change_reports`).
        self.file_changes = FileChangeReports(enabled=self.air.file_change_report)
        # JetBrains AIR's goal (`fsm.air.goals`): every AIR client is shown it.
        self.goals = Goals(air=self.air.air)
        # The prompt Claude Code predicts after a turn (`fsm.air.prompt_suggestions`).
        self.suggestions = PromptSuggestions(air=self.air.prompt_suggestions)
        self._usage = UsageMeter(resumed=titled)
        self._compaction_ids = CompactionIds(session_id)
        self._compactions_before = compactions_before
        self._compaction: CompactionCards | CompactionUpdates = (
            CompactionUpdates(self._compaction_ids, self.air)
            if compaction_updates
            else CompactionCards(self._compaction_ids, self.air)
        )
        self.compaction_updates = compaction_updates
        self._title: str | None = None
        self._title_sent = titled
        # Claude Code's own name for the session (`ask_title`): asked for once per
        # conversation, and whether it gave one (which the first prompt's line never replaces).
        self._title_request: str | None = None
        self._title_asked = False
        self._title_from_claude = False
        self._private = private
        self._ask_title: Callable[[str], object] = lambda description: None
        # A `/rename` typed in the chat: the name Claude Code stored is read once its turn is
        # over (`read_title`, docs/decisions.md#live-session-names).
        self._renamed = False
        self._user_named = False  # a `/rename` named it: no generated title replaces that
        self._read_title: Callable[[], object] = lambda: None
        self._warned = False
        # Whether the answer's text so far ends mid-line: a failure's words, or a client's own
        # error block after the answer, must start on a line of their own (a code fence left
        # open would swallow them).
        self._line_open = False
        # A local command's output, Claude Code's informational lines, a blank turn's result.
        self._side = SideMessages(notices=acp_notices, private=private)
        # JetBrains AIR's Async Tasks panel, for a client that declared `asyncTasks`.
        self._async_tasks = (
            AsyncTasks(notices=acp_notices, fresh_id=_fresh_id)
            if air is not None and air.async_tasks
            else None
        )
        # Whether a prompt is open (the core's `working`: live, being sent or queued), which
        # the Async Tasks panel's autonomous turn reads (set by the session).
        self.prompt_open: Callable[[], bool] = _no_prompt
        self._view.async_tasks = self._async_tasks
        # JetBrains AIR's native subagent sessions: every update goes through it, and a
        # subagent's go to its child session (a pass-through for any other client).
        self.subagents = NativeSubagents(
            session_id, enabled=self.air.native_subagents, mode_meta=self.air.mode_meta
        )
        self._subagent_drops = 0  # how many of the core's drops the log has told
        # The root's model picker entries (value, name, resolved id), to name a subagent's
        # model as the picker does (set by the session).
        self.model_choices: Callable[[], list[tuple[str, str, str | None]]] = list
        # The root's modes (id, name, description) and agents (name, description), to name a
        # subagent's mode and agent type as its pickers do (set by the session).
        self.mode_choices: Callable[[], list[tuple[str, str, str | None]]] = list
        self.agent_choices: Callable[[], list[tuple[str, str | None]]] = list
        # The session's subagents in its history, by launch (set by the session).
        self.subagent_files: Callable[[], Awaitable[dict[str, Any]]] = _no_files

    async def user_said(self, blocks: tuple[dict[str, Any], ...]) -> None:
        """What a person typed in another client of the session, as the user's message: its
        text and images, as a replayed prompt shows them."""
        for update in prompt_updates(blocks):
            await self._send_raw(update)

    async def _send_raw(self, update: dict[str, Any]) -> bool:
        sent = await self._send_routed(self.subagents.route(update))
        await self._restore_subagents()
        self._log_subagent_drops()
        return sent

    def _log_subagent_drops(self) -> None:
        """What waited for a subagent's announcement past the core's bounds was dropped: said
        once per batch, as the reference logs each drop
        (docs/reference-adapter.md#native-subagents)."""
        dropped = self.subagents.dropped
        if dropped != self._subagent_drops:
            log.info(
                "session %s: dropped %d subagent update(s) waiting for their subagent; the "
                "pending buffer limit was reached",
                self._session_id,
                dropped - self._subagent_drops,
            )
            self._subagent_drops = dropped

    async def _restore_subagents(self) -> None:
        """Agents from before a load that Claude Code runs again: found in the session's
        history (`subagent_files`), each gets a generation of its own."""
        if not self.subagents.wanting:
            return
        launches, agents = self.subagents.wanted()
        try:
            files = await self.subagent_files()
        except Exception:
            log.warning("session %s: the subagents' history could not be read", self._session_id)
            files = {}
        by_agent = {found.agent_id: launch for launch, found in files.items()}
        subagents = self.subagents
        now = int(time.time() * 1000)
        for agent in agents:
            launch = by_agent.get(agent)
            if launch is None:
                subagents.unresolved(agent=agent)
                continue
            launches = [other for other in launches if other != launch]
            await self._send_routed(self._restored(agent, launch, files[launch], now))
        for launch in launches:
            found = files.get(launch)
            if found is None:
                subagents.unresolved(launch=launch)
                continue
            await self._send_routed(self._restored(found.agent_id, launch, found, now))

    def _restored(
        self, agent: str, launch: str, found: Any, now: int
    ) -> list[tuple[str, dict[str, Any]]]:
        return self.subagents.restore(
            agent,
            launch,
            name=found.name,
            description=found.description,
            kind=found.kind,
            now_ms=now,
            launcher=found.launcher,
        )

    async def _send_routed(self, routed: list[tuple[str, dict[str, Any]]]) -> bool:
        """Send what the native subagent routing made, each to its session, through the link's
        changed-meta filter (an AIR client's) where it reads the update (`ClientLink
        .send_raw_update`), after the routing, which reads each update's `claudeCode` keys."""
        sent = True
        for session_id, update in routed:
            kind = update.get("sessionUpdate")
            if kind == "agent_message_chunk" and session_id == self._session_id:
                self._saw_text(update.get("content"))
            sent = await self._link.send_raw_update(session_id, update) and sent
            if kind == "tool_call":
                # Only now is the card shown: a permission request for the call, written
                # from another task, may carry AIR's share of it from here on.
                self._view.card_sent(update.get("toolCallId"))
        return sent

    async def _subagent_frames(
        self, make: Callable[[], list[tuple[str, dict[str, Any]]]], what: str
    ) -> None:
        try:
            routed = make()
        except Exception:
            self._bad_content(f"{what} Claude sent in an unusable shape")
            return
        await self._send_routed(routed)
        await self._restore_subagents()
        self._log_subagent_drops()

    def _saw_text(self, content: object) -> None:
        text = content.get("text") if isinstance(content, Mapping) else None
        if isinstance(text, str) and text:
            self._line_open = not text.endswith("\n")

    def adopt_tasks(self, tasks: TaskPlan) -> None:
        """The task list a `session/load` replayed: the live plan goes on from it (a later
        TaskUpdate may name only a task's id)."""
        self._view.tasks = tasks

    def text_sent(self, text: str) -> None:
        """Agent text the core authored or passed on went out: the answer's latest text."""
        if text:
            self._line_open = not text.endswith("\n")

    def _bad_content(self, what: str) -> None:
        # Once per session at warning level: a Claude that sends one bad frame sends many.
        level = logging.DEBUG if self._warned else logging.WARNING
        self._warned = True
        log.log(level, "session %s: skipped %s", self._session_id, what)

    async def _send(self, make: Callable[[], list[dict[str, Any]]], what: str) -> None:
        skipped = self._view.skipped
        try:
            updates = make()
        except MalformedStream as exc:
            self._bad_content(f"a stream event from Claude ({exc})")
            return
        except Exception:
            # Whatever a block of an odd shape makes us raise, it is that content that is
            # lost, not the turn.
            self._bad_content(f"{what} Claude sent in an unusable shape")
            return
        if self._view.skipped != skipped:
            self._bad_content(f"content blocks of {what} of an unknown type or shape")
        for update in updates:
            await self._send_raw(update)

    async def stream_event(self, message: StreamEvent) -> None:
        parent = message.parent_tool_use_id
        await self.own_output(parent)
        await self._send(
            lambda: self._view.stream_event(message.event, parent if parent else None),
            "a stream event",
        )
        if not parent:
            if isinstance(self._compaction, CompactionUpdates):
                compaction = self._compaction
                await self._send(lambda: compaction.stream(message.event), "a compaction")
            usage = self._usage.saw_stream(message.event)
            if usage is not None:
                await self._send_raw(usage)  # the context meter moves during the turn

    async def own_output(self, parent: object) -> None:
        """Claude's output (a message or a streamed part of one), before it is shown; `parent`
        its `parent_tool_use_id`. Top-level output (no parent) with no prompt open is a turn of
        Claude's own, an Async Tasks entry for an AIR client (`fsm.AsyncTasks.output`,
        docs/reference-adapter.md#autonomous-turns); a subagent's is not."""
        tasks = self._async_tasks
        if tasks is not None and not parent:
            # Every streamed delta comes here: the core's answer is mostly none, made without
            # `_send`'s bookkeeping (it reads no content, so it raises nothing).
            for update in tasks.output(prompt_open=self.prompt_open()):
                await self._send_raw(update)

    async def prompt_took_over(self) -> None:
        """Claude took up a prompt of the client's (its echo): an autonomous turn's entry ends,
        the prompt's turn goes on with that work."""
        if self._async_tasks is not None:
            await self._send(self._async_tasks.prompt_took_over, "an autonomous turn")

    async def unparsed(self, frame: Mapping[str, Any]) -> None:
        """A frame the SDK does not parse (`adapter.claude.unparsed`): a tool's progress."""
        if frame.get("type") == "tool_progress":
            await self._send(lambda: self._view.progress(frame), "a tool's progress")
        elif frame.get("type") == "active_goal":
            await self._send_all(self.goals.runtime_goal(frame.get("value")))
        elif frame.get("type") == "prompt_suggestion":
            await self._send_all(self.suggestions.suggested(frame.get("suggestion")))
        elif frame.get("type") == "command_lifecycle" and self._async_tasks is not None:
            # A scheduled fire's start names the autonomous turn's cause.
            tasks, prompt_open = self._async_tasks, self.prompt_open()
            await self._send(
                lambda: tasks.command_started(frame, prompt_open=prompt_open), "a command's start"
            )

    async def client_prompted(self) -> None:
        """A client's prompt: the predicted one is spent."""
        await self._send_all(self.suggestions.prompted())

    async def _send_all(self, updates: list[dict[str, Any]]) -> None:
        for update in updates:
            await self._send_raw(update)

    async def goal_prompted(self, blocks: list[Any], message_uuid: str) -> None:
        """A client's prompt or steer goes to Claude as the user message `message_uuid`: a
        `/goal` command in it shows its goal at once."""
        first = next((b for b in blocks if isinstance(b, TextContentBlock)), None)
        await self._send_all(self.goals.prompted(first.text if first else None, message_uuid))

    def taken_up(self, message_uuid: str) -> None:
        """Claude took the user message `message_uuid` up (its echo)."""
        self.goals.taken_up(message_uuid)

    async def system(self, message: SystemMessage) -> None:
        """A `system` frame: compaction (its card or its updates), and the context it
        retained."""
        data = message.data if isinstance(message.data, Mapping) else {}
        if message.subtype == "conversation_reset":
            await self.background_work_ended("failed")
        if message.subtype == "conversation_reset":
            # A fresh conversation (`/clear`): its task ids are new, the old task list is no
            # plan; and the session's name no longer describes it: the next prompt that says
            # something names it again (docs/reference-adapter.md#session-titles).
            await self._send(self._view.tasks.reset, "a conversation reset")
            await self._send_all(self.suggestions.reset())
            self._title, self._title_sent = None, False
            self._title_asked = self._title_from_claude = self._user_named = False
            return
        subagents = self.subagents
        if message.subtype in _SUBAGENT_FRAMES:
            read_frame = getattr(subagents, message.subtype)
            await self._subagent_frames(lambda: read_frame(data), "a subagent's task frame")
        tasks = self._async_tasks
        read_tasks = _ASYNC_TASK_FRAMES.get(message.subtype)
        if tasks is not None and read_tasks is not None:
            prompt_open = self.prompt_open()
            await self._send(lambda: read_tasks(tasks, data, prompt_open), "a background task")
        if message.subtype == "task_started":
            await self._send(lambda: self._view.task_started(data), "a task's start")
        if message.subtype == "task_updated":
            await self._send(lambda: self._view.task_moved(data), "a task's move")
        if message.subtype in ("task_notification", "task_updated"):
            await self._send(lambda: self._view.task_ended(data), "a task's end")
            return
        if message.subtype == "permission_denied":
            await self._send(lambda: self._view.denied(data), "a permission denial")
            return
        if message.subtype == "memory_recall":
            await self._send(lambda: self._view.recalled(data), "a memory recall")
            return
        if message.subtype in ("local_command_output", "informational"):
            side = self._side
            await self._send(lambda: side.system(message.subtype, data), "a system message")
            return
        if data.get("parent_tool_use_id") or message.subtype not in ("status", "compact_boundary"):
            return  # a subagent's compaction is not the session's
        if not self._compaction_ids.known and self._starts_or_bounds(message.subtype, data):
            # Not counted when the session opened (it cannot happen; this is the fallback):
            # read now, though a boundary this compaction writes may already be there.
            boundary = data.get("uuid") if message.subtype == "compact_boundary" else None
            await self.count_compactions(boundary if isinstance(boundary, str) else None)
        await self._send(lambda: self._compaction.system(message.subtype, data), "a compaction")
        if message.subtype == "compact_boundary":
            await self._send_raw(self._usage.compacted(data.get("compact_metadata")))

    async def count_compactions(self, stop: str | None = None) -> None:
        """Learn how many compactions the session's transcript holds (once): done when the
        session opens, before its Claude can compact, so none in flight is counted."""
        if self._compaction_ids.known:
            return
        count = await self._compactions_before(stop) if self._compactions_before else 0
        self._compaction_ids.learn(count)

    def no_compactions_yet(self) -> None:
        """A new session: its transcript holds no compaction (nothing to read)."""
        self._compaction_ids.learn(0)

    @staticmethod
    def _starts_or_bounds(subtype: str, data: Mapping[str, Any]) -> bool:
        return subtype == "compact_boundary" or data.get("status") == "compacting"

    def compacted(self, summary: str) -> None:
        """The PostCompact hook's summary (`adapter.claude.hooks`): shown to a
        `session.compaction` client with the compaction's end, as the reference adapter shows
        it; a card client gets none, as there (docs/reference-adapter.md#compaction-updates)."""
        if isinstance(self._compaction, CompactionUpdates):
            self._compaction.compacted(summary)

    async def task_changed(self, data: Mapping[str, Any]) -> None:
        """A TaskCreated/TaskCompleted hook: the task list's plan, when it changed."""
        await self._send(lambda: self._view.tasks.hook(data), "a task hook")

    async def subagent_hook(self, data: object) -> None:
        """A hook that may have fired inside a subagent: what it says that subagent runs with,
        for its child session (`fsm.NativeSubagents.subagent_hook` decides what is sent)."""
        subagents = self.subagents
        modes = _Fetched(self.mode_choices)
        models = _Fetched(self.model_choices)
        agents = _Fetched(self.agent_choices)
        await self._subagent_frames(
            lambda: subagents.subagent_hook(data, modes=modes, models=models, agents=agents),
            "a subagent's hook",
        )

    def saw_assistant(self, message: AssistantMessage) -> None:
        if message.parent_tool_use_id is None:
            self._usage.saw_request(message.usage)

    async def assistant(
        self, message: AssistantMessage, *, mask: tuple[str, ...] | None = None
    ) -> None:
        """With `mask` (private values), the message's text is masked as error prose is
        (docs/decisions.md#secrets); without, the model's answer is shown verbatim."""
        message_id = message.message_id if isinstance(message.message_id, str) else None
        parent = message.parent_tool_use_id if isinstance(message.parent_tool_use_id, str) else None
        blocks = blocks_of(message.content)
        for block in blocks:
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                name = block.get("name")
                self.file_changes.tool_use(
                    block["id"], name if isinstance(name, str) else "", block.get("input"), parent
                )
        if parent is None and any(b.get("type") == "text" and b.get("text") for b in blocks):
            self._side.delivered()
        if mask is not None:
            blocks = [_masked(block, mask) for block in blocks]
        if parent is not None:
            # A subagent's response: its child session shows the model it ran on.
            subagents, choices, model = self.subagents, self.model_choices(), message.model
            await self._subagent_frames(
                lambda: subagents.child_model(parent, model, choices), "a subagent's model"
            )
        await self._send(
            lambda: self._view.assistant(blocks, message_id=message_id, parent=parent),
            "a message",
        )

    async def tool_results(self, message: UserMessage, raw: object = None) -> None:
        """`raw`: the message as Claude Code wrote it (its `tool_result_meta`, which the SDK's
        parser drops)."""
        not_run = non_execution(raw)
        for block in blocks_of(message.content):
            if block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                self.file_changes.tool_result(
                    block["tool_use_id"], is_error=block.get("is_error") is True
                )
        await self._send(
            lambda: self._view.user(
                blocks_of(message.content),
                tool_use_result=message.tool_use_result,
                not_run=not_run,
            ),
            "a tool result",
        )
        # A SendMessage that woke a finished subagent: its child session opens again.
        result = message.tool_use_result
        subagents = self.subagents
        await self._subagent_frames(lambda: subagents.send_message_result(result), "a resume")

    async def permitted(self, tool_id: str | None) -> None:
        if tool_id:
            await self._send(lambda: self._view.permitted(tool_id), "a permission")

    def permission_card(
        self, tool_id: str, name: str, tool_input: object, context: object
    ) -> tuple[ToolCallUpdate, PermissionCard]:
        """The tool call a permission request shows: the call's own card (title, kind,
        locations, diff), status pending, with what Claude Code's request (`context`, a
        `HintedContext`) adds; AIR's share of it where the card was shown
        (`fsm.permission_card`, docs/reference-adapter.md#permission-request-tool-call); and
        the core's plan of it, whose verdict on that share the broker follows."""
        copies = not self.air.raw_input_rendering
        card = card_for(
            tool_id,
            name,
            tool_input,
            self._cwd,
            input_copies=copies,
            fixed_question_title=self.air.fixed_question_title,
        )
        shown, card_parent = self._view.shown_call(tool_id)
        # The subagent's Agent call from the request's agent id, as the reference has it
        # (docs/reference-adapter.md#permission-request-tool-call): the
        # call's card may not have been shown yet; else the one its card was shown under.
        parent = self._view.subagent_call(getattr(context, "agent_id", None)) or card_parent
        locations = card.get("locations", [])
        plan = permission_card(
            tool_name=name,
            card_paths=[location["path"] for location in locations],
            has_content=bool(card.get("content")),
            card_title=card["title"],
            request_title=getattr(context, "title", None),
            blocked_path=getattr(context, "blocked_path", None),
            display_name=getattr(context, "display_name", None),
            parent_tool_use_id=parent,
            mcp_server=getattr(getattr(context, "hints", None), "mcp_server", None),
            slim=self.air.slim_permission_card and shown,
        )
        if plan.title is not None:
            card["title"] = plan.title
        if plan.extra_location is not None:
            card["locations"] = [*locations, {"path": plan.extra_location}]
        if plan.input_as_json:
            card["content"] = input_json(tool_input)
        request = {key: card[key] for key in plan.fields if key in card}
        if plan.meta is not None:
            request["_meta"] = plan.meta
        return ToolCallUpdate.model_validate(request), plan

    def model_chosen(self, window: int | None) -> None:
        """The session runs a model whose words promise this context window (None: none)."""
        self._usage.model_chosen(window)

    def window_measured(self, window: int) -> None:
        """Claude Code measured the current model's context window (`get_context_usage`)."""
        self._usage.window_measured(window)

    @property
    def context_used(self) -> int:
        """The tokens the context holds, as Claude last reported them."""
        return self._usage.used

    @property
    def cache_ttl(self) -> str | None:
        """How long the last top-level request's prompt cache lives, if it said."""
        return self._usage.cache_ttl

    def prompted(self, blocks: list[Any], *, by_adapter: bool = False) -> None:
        # The adapter's own idle `/compact` names no session, and its compaction says `idle`.
        self._compaction.idle = by_adapter
        text = "\n".join(b.text for b in blocks if isinstance(b, TextContentBlock))
        self._side.prompted(text)
        self._usage.turn_started()
        if by_adapter:
            return
        said = typed_prompt_said(text)
        self._renamed = renames_session(text)
        if self._renamed:
            # Claude Code names the session itself: no first line and no title to ask for.
            self._title_request = None
            return
        if self._title is None:
            # The first prompt that says something names the session, as on load: a hidden
            # local command (`/model opus`) names nothing.
            self._title = title_for(said)
        if not self._title_asked and not self._title_from_claude:
            # Claude Code's own name for the session, asked for once the turn is over.
            self._title_request = title_description(said, titled=False)

    def title_request(self) -> str | None:
        """What to ask Claude Code to name the session from, once the turn is over
        (`ask_title`); None when it has been asked already."""
        description, self._title_request = self._title_request, None
        if description is not None:
            self._title_asked = True
        return description

    async def ask_title(self, client: Any, description: str) -> None:
        """Ask Claude Code for the session's name (`generate_session_title`, stored in its
        transcript as `session/list` shows it) and show it in place of the first prompt's
        line; between turns, and no turn waits for it. No title, or no answer: the first
        line stays, and the next prompt asks again."""
        request = {"subtype": "generate_session_title", "description": description}
        try:
            with anyio.fail_after(TITLE_SECONDS):
                response = await send_control_request(client, {**request, "persist": True})
        except Exception:
            log.info("session %s: Claude Code gave no title", self._session_id)
            self._title_asked = False
            return
        title = generated_title(response, self._private())
        if title is None:
            self._title_asked = False
            return
        if self._user_named:
            return  # a `/rename` came first: the user's name stands
        self._title_from_claude = True
        if title == self._title and self._title_sent:
            return
        self._title = title
        if self._title_sent:
            # The first prompt's line went out already: this name replaces it.
            await self._send_title()

    async def turn_result(self, message: ResultMessage, *, turn_id: str | None) -> None:
        """A result, as the core said whose it is (`fsm.ShowResult`,
        docs/decisions.md#result-owner): the prompt `turn_id`'s, whose answer its text may be
        and whose usage its tokens count toward; None: Claude's own work, no prompt's."""
        self.suggestions.result()
        failed = message.is_error or getattr(message, "stop_reason", None) == "refusal"
        await self._send_all(self.goals.result(failed=failed))
        own_work = turn_id is None
        if self._async_tasks is not None:
            # The result ends the model turn: a task still waiting for its tool call's id
            # is spawned without it; Claude's own turn ends at its own result, or at one a
            # waiting prompt takes.
            tasks = self._async_tasks
            await self._send(tasks.turn_ended, "a background task")
            turns, failed_turn = getattr(message, "num_turns", None), bool(message.is_error)
            await self._send(
                lambda: tasks.result(own_work=own_work, model_turns=turns, is_error=failed_turn),
                "an autonomous turn",
            )
        side = self._side
        await self._send(lambda: side.result(message, own_work=own_work), "a result")
        if not isinstance(message.usage, Mapping):
            return
        usage = self._usage
        update = usage.saw_result(
            message.usage, message.model_usage, message.total_cost_usd, for_turn=not own_work
        )
        if update is not None:
            await self._send_raw(update)

    async def rate_limited(self, info: object) -> None:
        """A `rate_limit_event`: the windows ride on a `usage_update` (a client's meter), in
        the shape the reference adapter gives them (`_meta["_claude/rateLimit"]`:
        docs/reference-adapter.md#context-meter)."""
        raw = getattr(info, "raw", None)
        if isinstance(raw, Mapping):
            await self._send_raw(self._usage.rate_limit_update(raw))

    async def work_ended(self) -> None:
        """Work no prompt owns ended at its result (the core's `CloseOpenCalls`,
        docs/decisions.md#own-work-ends-its-cards): its cards reach a final status now, not at
        the next user turn's end."""
        await self._send(self._view.close_open_calls, "work no prompt owns")

    async def turn_ended(self, *, failed: bool = False) -> None:
        """Before a prompt's answer: end what the turn left open (calls, a broken stream), and,
        when the turn `failed`, the answer's last line: a client that appends its own error
        block after the text (CodeCompanion) must not glue it to an open line or code fence."""
        await self._send(self._view.close_open_calls, "a turn's end")
        await self._send(self._compaction.turn_ended, "a turn's end")
        if failed and self._line_open:
            await self._send_raw(
                {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "\n"}}
            )
        self._line_open = False

    async def report_file_changes(
        self, plan: ReportPlan, client: Any | None, add_dirs: Sequence[str]
    ) -> None:
        """A settled turn's file-change report, before its answer: Claude Code's checkpoint
        previewed (for a turn that ended), the paths resolved, the report sent."""
        changed: list[object] | None = None
        failure: str | None = "providerError"
        if plan.reason is None and client is not None:
            changed, failure = await file_checkpoints.preview(client, plan.turn_id)
        folders = file_checkpoints.roots(self._cwd, add_dirs)
        shown = ReportPlan(
            plan.request_id,
            plan.turn_id,
            plan.reason,
            tuple(str(p) for p in file_checkpoints.resolved(plan.edited, self._cwd)),
        )
        update = FileChangeReports.report(
            shown,
            changed=None if changed is None else file_checkpoints.resolved(changed, self._cwd),
            failure=failure,
            roots=folders,
        )
        await self._send_raw(update)

    async def turn_settled(self, *, failed: bool = False, handed_off: bool = False) -> None:
        """Before a prompt's answer: `turn_ended`, and name the session once (a session whose
        first turn failed is named too: its prompt was the user's all the same). `handed_off`:
        Claude's work goes on for the next prompt (prompt queueing), so nothing is ended."""
        if not handed_off:
            await self.turn_ended(failed=failed)
        if self._title and not self._title_sent:
            self._title_sent = True
            await self._send_title()
        description = self.title_request()
        if description is not None:
            # Between turns: Claude Code answers the question with frames of its own, which
            # must not land inside a running turn.
            self._ask_title(description)
        if self._renamed:
            self._renamed = False
            self._read_title()

    def read_titles_with(self, read: Callable[[], object]) -> None:
        """`read()` runs `read_title` beside the session (the name Claude Code stored)."""
        self._read_title = read

    async def read_title(self, stored: Callable[[], Awaitable[str | None]]) -> bool:
        """Show the name Claude Code stored for the session after a `/rename`, or on load
        (`stored`: reads it, as `session/list` shows it), in place of the one shown; no
        generated title replaces it. Nothing stored, or the same name: nothing is sent.
        Whether a stored name is the session's now."""
        try:
            title = shown_title(await stored(), self._private())
        except Exception:
            log.info("session %s: its stored title could not be read", self._session_id)
            return False
        if title is None:
            return False
        self._title_from_claude = self._user_named = True
        if title == self._title and self._title_sent:
            return True
        self._title, self._title_sent = title, True
        await self._send_title()
        return True

    def ask_titles_with(self, ask: Callable[[str], object]) -> None:
        """`ask(description)` runs `ask_title` beside the session (the current Claude's)."""
        self._ask_title = ask

    async def _send_title(self) -> None:
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        await self._send_raw(
            {"sessionUpdate": "session_info_update", "title": self._title, "updatedAt": now}
        )

    def title_given(self) -> None:
        """The client named the session: no title from its first prompt replaces that one."""
        self._title_sent = True

    async def background_work_ended(self, state: str) -> None:
        """Claude's stream ended (`failed`; `stopped` when the adapter ended it) or its
        conversation was reset: every async task and subagent still open ends."""
        self._view.subagents_ended()
        subagents = self.subagents
        ended = subagent_state(state) or "failed"
        await self._subagent_frames(lambda: subagents.finish_all(ended), "the subagents' end")
        if self._async_tasks is not None:
            tasks = self._async_tasks
            await self._send(lambda: tasks.finish_all(state), "the background tasks' end")

    async def parent_cancelled(self) -> None:
        """The client cancelled the session's turn: AIR's child sessions all end cancelled; what
        Claude still says of the stopped work opens no autonomous turn."""
        if self._async_tasks is not None:
            self._async_tasks.cancelled()
        await self._subagent_frames(self.subagents.parent_cancelled, "the subagents' cancel")

    async def stop_async_task(
        self,
        task_id: str,
        stop: Callable[[str], Awaitable[None]],
        interrupt: Callable[[], Awaitable[bool]],
    ) -> bool:
        """`_session/async_task/stop`: False for a task the client may not stop (unknown,
        ended, a monitor, already being stopped, an autonomous turn the core would not
        interrupt: `interrupt` says False); else Claude Code is asked to `stop` it (an
        autonomous turn: Claude is interrupted, docs/reference-adapter.md#autonomous-turns),
        and its end and a line that says so go out. Claude Code's refusal propagates, and the
        task may be stopped again."""
        tasks = self._async_tasks
        if tasks is None or not tasks.claim_stop(task_id):
            return False
        try:
            if tasks.stops_by_interrupt(task_id):
                if not await interrupt():
                    tasks.release_stop(task_id)
                    return False
            else:
                await stop(task_id)
        except BaseException:
            tasks.release_stop(task_id)
            raise
        await self._send(lambda: tasks.stopped(task_id), "a stopped task")
        return True

    def percent_used(self) -> int | None:
        return self._usage.percent_used()

    async def context_cleared(self, tool_id: str, plan: str | None = None) -> None:
        """A plan exit cleared the context: the meter shows it empty, then the approved `plan`
        (given for a client that takes `plan_update`s), under the id the core gives it
        (`AirClient.approved_plan_id`: AIR's names the approval); the ExitPlanMode card, whose
        denial only ended the old context, is completed."""
        await self._send_raw(self._usage.cleared())
        if plan is not None:
            await self._send_raw(approved_plan_update(plan, self.air.approved_plan_id(tool_id)))
        await self._send_raw(
            {"sessionUpdate": "tool_call_update", "toolCallId": tool_id, "status": "completed"}
        )

    def response_usage(self) -> Usage | None:
        return self._usage.response_usage()

    def response_quota(self) -> dict[str, Any] | None:
        """The prompt response's `_meta.quota` (the turn's tokens by model), if it had any."""
        return self._usage.quota()
