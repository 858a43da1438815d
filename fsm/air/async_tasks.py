"""JetBrains AIR's Async Tasks panel (`asyncTasks`): Claude Code's background work, other than
subagents, as a lifecycle of its own, in the reference adapter's wire shapes.

Theory of operation: one `AsyncTasks` per session, for a client that declared `asyncTasks`
(`fsm.air.client.AirClient.async_tasks`). Claude Code's task frames go in as their raw dicts
(`task_started`, `task_progress`, `task_updated`, `task_notification`,
`background_tasks_changed`, and a Bash result that names its `backgroundTaskId`); out come the
session updates to send, in order:

    {"sessionUpdate": "async_task_spawned", "asyncTaskId", "name", "taskType", "description",
     "showInTranscript", "canStop", "outputFilePath"?, "toolCallId"?}
    {"sessionUpdate": "async_task_progress", "asyncTaskId", <only the fields that changed>}
    {"sessionUpdate": "async_task_state_update", "asyncTaskId", "state", "summary"?, ...}

Rules, each the reference's (`AsyncTaskRuntime`: docs/reference-adapter.md#async-tasks):
- A subagent (`subagent_type`, or `task_type: local_agent`) is never an async task.
- A task is spawned when Claude Code says it went to the background (`is_backgrounded`, or no
  such flag and a type other than a foreground shell or agent; a `task_updated` patch with
  `is_backgrounded`; a Bash result with `backgroundTaskId`).
- A spawn names the tool call that started the task, so it waits for the id (the task is
  *held*, its later updates queued behind the spawn); a held task is spawned without the id
  when it ends first or when the turn's result comes (`turn_ended`). No id is guessed.
- States: `running`, `paused`, `completed`, `failed`, `stopped` (`pending` is running;
  `killed`, `cancelled`, `stopped` are stopped). A terminal state is final, except that a
  `stopped` the level list inferred may be corrected once by the task's own end.
- `background_tasks_changed` lists the live tasks: an announced task missing from it is
  `stopped`; a known task on it goes to the panel (a task the level alone recovered is kept
  out of the transcript).
- The stream's end or a cancel finishes every open task (`finish_all`).
- A turn Claude Code runs with no prompt open (a task notification's follow-up, a `/loop` or
  scheduled wakeup) is a task of its own, `autonomous-turn-<uuid>` ("Claude is working", type
  `turn`, out of the transcript, no tool call), whose description is its cause: the wakeup that
  started it, else the last task notification's summary
  (docs/reference-adapter.md#autonomous-turns). It opens at Claude Code's `running` state, a
  scheduled fire's start, or its first top-level output while no prompt is open and no cancel's
  tail is being read (the tail ends when a prompt is taken up, or at Claude's own next model
  request, one serving no prompt, when Claude Code names them: `status`); it ends `completed`
  at the `idle` state, when a prompt takes the work over (its echo, or a result the core takes
  for it), or at its own result (`failed` for an error; a placeholder result with no model turn
  goes on). Stopping it interrupts Claude, refused while
  a prompt waits (`stops_by_interrupt`, `claim_stop`).
- `_session/async_task/stop` may stop a task that is announced, open, not a monitor and not
  already being stopped (`claim_stop`); once stopped, `stopped` publishes its end and one line
  "Task stopped by user: <name>." (a `notice` for a `session.notices` client).

On `session/load` (`TaskReplay`): Claude Code keeps no task frames, so a background task is
restored from the `<task-notification>` that ended it, with the tool call that started it
(a task no known call started stays unknown; a subagent's is no async task); its spawn and
end go to the session that made that call: a JetBrains AIR child's replay session for a call
of a subagent (the reference's `routeOf`: docs/reference-adapter.md#subagent-replay).

Pure: no I/O, no clock; what is sent and what is asked of Claude is the shell's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fsm.air.meta import SUBAGENT_TOOLS

__all__ = [
    "AUTONOMOUS_TURN_PREFIX",
    "TASK_STATES",
    "AsyncTasks",
    "TaskReplay",
    "Wire",
    "scheduled_fire_cause",
    "task_notices",
]

Wire = dict[str, Any]

TASK_STATES = ("running", "paused", "completed", "failed", "stopped")
_TERMINAL = frozenset({"completed", "failed", "stopped"})
_STATE_OF = {
    "pending": "running",
    "running": "running",
    "paused": "paused",
    "completed": "completed",
    "failed": "failed",
    "killed": "stopped",
    "cancelled": "stopped",
    "stopped": "stopped",
}
_DEFAULT_DESCRIPTION = "Background task"
# Claude Code runs a handful of background tasks; past this many the oldest ended one goes.
_MAX_TASKS = 256
# A turn Claude Code runs with no prompt open (docs/reference-adapter.md#autonomous-turns).
AUTONOMOUS_TURN_PREFIX = "autonomous-turn-"
_AUTONOMOUS_DEFAULT = "Claude Code started a turn without a prompt."
# Claude Code's `system/init` capability: each model request's `status` names the prompts it
# serves (`user_message_uuids`), so Claude's own next work is told from a cancel's tail.
REQUEST_MARKER_LISTS = "request_marker_lists_v1"


def scheduled_fire_cause(frame: Mapping[str, Any]) -> str | None:
    """What a `command_lifecycle` "started" frame says started its command: a `/loop` wakeup
    (`wakeup_source: loop_wakeup`, with the time it was set for, `scheduled_for` in epoch
    milliseconds, given in UTC: the agent does not know the client's zone) or another scheduled
    task (`schedule_wakeup`); None for any other command or value
    (docs/reference-adapter.md#autonomous-turns)."""
    source = frame.get("wakeup_source")
    if source == "schedule_wakeup":
        return "A scheduled task fired."
    if source != "loop_wakeup":
        return None
    stamp = _iso_utc(frame.get("scheduled_for"))
    if stamp is None:
        return "A scheduled wakeup fired."
    return f"A scheduled wakeup fired (set for {stamp})."


# JavaScript's Date reaches 8.64e15 ms either side of the epoch; its ISO form needs four-digit
# years, which these bounds keep (0000-01-01 to 9999-12-31).
_FIRST_MS, _LAST_MS = -62_167_219_200_000, 253_402_300_799_999


def _iso_utc(value: object) -> str | None:
    """Epoch milliseconds as JavaScript's `toISOString` writes them
    (`2026-01-01T09:00:00.000Z`), or None for anything else; computed, not read from a clock
    (the civil-from-days rule of the proleptic Gregorian calendar)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or not _FIRST_MS <= value <= _LAST_MS:
        return None
    ms = int(value)  # toward zero, as JavaScript clips a time
    days, ms_of_day = divmod(ms, 86_400_000)
    z = days + 719_468
    era, doe = divmod(z, 146_097)
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = yoe + era * 400 + (1 if month <= 2 else 0)
    seconds, milli = divmod(ms_of_day, 1000)
    hour, rest = divmod(seconds, 3600)
    minute, second = divmod(rest, 60)
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{milli:03d}Z"


def _text(value: object) -> str | None:
    """A non-blank string, trimmed; anything else is None."""
    return value.strip() if isinstance(value, str) and value.strip() else None


def _field(frame: Mapping[str, Any], camel: str, snake: str) -> Any:
    value = frame.get(camel)
    return value if value is not None else frame.get(snake)


def _task_type(value: object) -> str:
    if value == "local_bash":
        return "shell"
    if value == "local_workflow":
        return "workflow"
    if value in ("local_monitor", "mcp"):
        return "monitor"
    return _text(value) or "task"


def _is_subagent(frame: Mapping[str, Any]) -> bool:
    subagent_type = _field(frame, "subagentType", "subagent_type")
    return subagent_type is not None or _field(frame, "taskType", "task_type") == "local_agent"


def _is_background(flag: object, task_type: object) -> bool:
    if flag is True:
        return True
    if flag is False:
        return False
    return task_type not in ("local_bash", "local_agent")


def _usage(value: object) -> Wire | None:
    if not isinstance(value, Mapping):
        return None
    numbers = []
    for camel, snake in (
        ("totalTokens", "total_tokens"),
        ("toolUses", "tool_uses"),
        ("durationMs", "duration_ms"),
    ):
        number = _field(value, camel, snake)
        if not isinstance(number, int | float) or isinstance(number, bool):
            return None
        numbers.append(number)
    return dict(zip(("totalTokens", "toolUses", "durationMs"), numbers, strict=True))


@dataclass(slots=True)
class _Task:
    id: str
    name: str = _DEFAULT_DESCRIPTION
    task_type: str = "task"
    description: str = _DEFAULT_DESCRIPTION
    show_in_transcript: bool = True
    monitor: bool = False
    announced: bool = False
    held: bool = False  # waits for its tool call id before its spawn
    deferred: list[Callable[[], list[Wire]]] = field(default_factory=list)
    ignored: bool = False  # a subagent: the client never sees it
    started_observed: bool = False
    panel_only: bool = False  # recovered from the level list alone: never in the transcript
    stopping: bool = False
    stop_announced: bool = False
    autonomous: bool = False  # a turn Claude Code runs with no prompt open: a stop interrupts
    state: str = "running"
    terminal_summary: str | None = None
    terminal_source: str | None = None  # "event", "level" or "shutdown"
    tool_call_id: str | None = None
    output_file_path: str | None = None
    published: dict[str, str] = field(default_factory=dict)  # what the client holds

    @property
    def terminal(self) -> bool:
        return self.state in _TERMINAL


class AsyncTasks:
    """The session's async tasks and what the client was told of them."""

    def __init__(self, *, notices: bool = False, fresh_id: Callable[[], str] | None = None) -> None:
        """`notices`: the client declared `session.notices` (the stop's line is a notice).
        `fresh_id`: the shell's source of fresh uuids (the core keeps no randomness), drawn
        once for each autonomous turn's task; without it no such task opens."""
        self._notices = notices
        self._tasks: dict[str, _Task] = {}
        self._fresh_id = fresh_id
        self._autonomous: _Task | None = None  # the task of the autonomous turn that runs now
        # The last task notification's summary: that notification usually starts the next
        # autonomous turn, which it then describes.
        self._last_summary: str | None = None
        self._session_state: str | None = None  # Claude Code's last `session_state_changed`
        # A cancel's tail is being read: Claude's output of the stopped work opens no task
        # (until a prompt is taken up, or Claude's own next request, `status`).
        self._cancelled = False
        self._marker_lists = False  # this Claude Code declares `REQUEST_MARKER_LISTS`

    # --- Claude Code's frames -------------------------------------------------------------

    def started(self, frame: Mapping[str, Any]) -> list[Wire]:
        """`system/task_started`."""
        task = self._task_of(frame)
        if task is None:
            return []
        if _is_subagent(frame):
            self._ignore(task)
            return []
        before = (task.output_file_path, task.tool_call_id)
        was_announced = task.announced
        self._merge_started(task, frame)
        out: list[Wire] = []
        flag = _field(frame, "isBackgrounded", "is_backgrounded")
        if _is_background(flag, _field(frame, "taskType", "task_type")) or task.held:
            out += self._announce(task)
        if was_announced and (task.output_file_path, task.tool_call_id) != before:
            out += self._metadata(task)
        return out

    def backgrounded(self, frame: Mapping[str, Any]) -> list[Wire]:
        """A command Claude Code moved to the background, as its Bash result says
        (`backgroundTaskId`): `{task_id, tool_use_id, description, task_type}`."""
        task = self._task_of(frame)
        if task is None or _is_subagent(frame):
            return []
        before = (task.output_file_path, task.tool_call_id)
        was_announced = task.announced
        self._merge_started(task, frame)
        out = self._announce(task)
        if was_announced and (task.output_file_path, task.tool_call_id) != before:
            out += self._metadata(task)
        return out

    def updated(self, frame: Mapping[str, Any]) -> list[Wire]:
        """`system/task_updated`: a patch of the task (a final status ends it)."""
        patch = frame.get("patch")
        task = self._task_of(frame)
        if task is None or not isinstance(patch, Mapping):
            return []
        before = task.output_file_path
        description = _text(patch.get("description"))
        if description:
            task.description = task.name = description
        self._merge_output(task, patch)
        out: list[Wire] = []
        if _field(patch, "isBackgrounded", "is_backgrounded") is True:
            out += self._announce(task)
        state = _STATE_OF.get(str(patch.get("status")))
        error = _text(patch.get("error"))
        if state is None or (state in ("running", "paused") and task.terminal):
            if task.announced and task.output_file_path != before:
                out += self._metadata(task)
            return out
        if state in ("running", "paused"):
            if task.state != state:
                task.state = state
                out += self._when_announced(task, lambda: self._state(task, state, error))
            elif task.announced and task.output_file_path != before:
                out += self._metadata(task)
            return out
        return out + self._finish(task, state, error, "event")

    def progress(self, frame: Mapping[str, Any]) -> list[Wire]:
        """`system/task_progress`: what changed of a task the panel shows (or will)."""
        task_id = _text(_field(frame, "taskId", "task_id"))
        task = self._tasks.get(task_id) if task_id else None
        if task is None or task.ignored or not (task.announced or task.held):
            return []
        before = (task.output_file_path, task.tool_call_id)
        self._merge_output(task, frame)
        self._merge_tool_call(task, frame)
        output_changed = task.output_file_path != before[0]
        if task.terminal:
            return self._metadata(task) if output_changed else []
        changes: Wire = {}
        for key, value in (
            ("description", _text(frame.get("description"))),
            ("summary", _text(frame.get("summary"))),
            ("lastToolName", _text(_field(frame, "lastToolName", "last_tool_name"))),
            ("usage", _usage(frame.get("usage"))),
        ):
            if value is not None:
                changes[key] = value
        if output_changed and task.output_file_path:
            changes["outputFilePath"] = task.output_file_path
        if task.tool_call_id != before[1] and task.tool_call_id:
            changes["toolCallId"] = task.tool_call_id
        out = self._when_announced(task, lambda: self._progress(task, changes))
        if task.held and task.tool_call_id:
            out += self._announce(task)  # the id came: the spawn, then what waited for it
        return out

    def notified(self, frame: Mapping[str, Any]) -> list[Wire]:
        """`system/task_notification`: the task ended (Claude is woken to follow up)."""
        state = _STATE_OF.get(str(frame.get("status")))
        task = self._task_of(frame) if state in _TERMINAL else None
        if task is None or state is None:
            return []
        self._last_summary = _text(frame.get("summary")) or self._last_summary
        was_terminal = task.terminal
        corrects_level = was_terminal and task.terminal_source == "level"
        before = task.output_file_path
        self._merge_output(task, frame)
        self._merge_tool_call(task, frame)
        out = self._finish(task, state, _text(frame.get("summary")), "event")
        moved = task.output_file_path != before
        if was_terminal and not corrects_level and task.announced and moved:
            out += self._metadata(task)
        return out

    def listed(self, frame: Mapping[str, Any]) -> list[Wire]:
        """`system/background_tasks_changed`: the tasks that live now (replace semantics)."""
        tasks = frame.get("tasks")
        if not isinstance(tasks, list):
            return []
        out: list[Wire] = []
        live: set[str] = set()
        for item in tasks[:_MAX_TASKS]:
            if not isinstance(item, Mapping):
                continue
            task = self._task_of(item)
            if task is None:
                continue
            live.add(task.id)
            if task.ignored or task.terminal:
                continue
            if _field(item, "taskType", "task_type") == "local_agent":
                self._ignore(task)
                continue
            if not task.started_observed:
                # The level proves the task lives but not whether its transcript card is
                # wanted: a late `task_started` may say `skip_transcript`; the panel only.
                task.panel_only = True
                task.show_in_transcript = False
            raw_type = _field(item, "taskType", "task_type")
            if raw_type is not None:
                task.task_type = _task_type(raw_type)
            task.monitor = task.monitor or raw_type == "local_monitor"
            description = _text(item.get("description"))
            if description:
                task.description = task.name = description
            out += self._announce(task)
        for task in list(self._tasks.values()):
            open_ = (task.announced or task.held) and not task.ignored and not task.terminal
            # An autonomous turn is no background task: the list never names it.
            if open_ and not task.autonomous and task.id not in live:
                # Its end was lost (or comes late): stopped now, corrected by a late end.
                out += self._finish(task, "stopped", None, "level")
        return out

    def turn_ended(self) -> list[Wire]:
        """The turn's result came: a task still held is spawned without its tool call id."""
        out: list[Wire] = []
        for task in list(self._tasks.values()):
            if task.held:
                out += self._announce(task, without_tool_call=True)
        return out

    def finish_all(self, state: str) -> list[Wire]:
        """The stream ended (`failed`) or the session was cancelled (`stopped`): every open
        task ends."""
        self._autonomous = None
        self._session_state = None
        out: list[Wire] = []
        for task in list(self._tasks.values()):
            if (task.announced or task.held) and not task.ignored and not task.terminal:
                out += self._finish(task, state, None, "shutdown")
        return out

    # --- a turn Claude Code runs with no prompt open (docs/reference-adapter.md#autonomous-turns)

    @property
    def autonomous_open(self) -> bool:
        """The task of an autonomous turn is open."""
        return self._autonomous is not None

    def session_state(self, state: object, *, prompt_open: bool) -> list[Wire]:
        """`system/session_state_changed`: Claude Code going `running` from another state
        with no prompt open (`prompt_open`: one is live, being sent or queued) starts an
        autonomous turn; `idle` ends the open one."""
        previous, self._session_state = self._session_state, str(state)
        if state == "running" and previous != "running" and not prompt_open:
            return self._autonomous_started(None)
        if state == "idle":
            return self._autonomous_ended("completed")
        return []

    def command_started(self, frame: Mapping[str, Any], *, prompt_open: bool) -> list[Wire]:
        """A `command_lifecycle` frame: a scheduled fire's start (`scheduled_fire_cause`) with
        no prompt open, outside a cancel's tail, starts an autonomous turn, or names the cause
        of the one `running` opened."""
        if frame.get("state") != "started" or prompt_open or self._cancelled:
            return []
        cause = scheduled_fire_cause(frame)
        return [] if cause is None else self._autonomous_started(cause)

    def output(self, *, prompt_open: bool) -> list[Wire]:
        """Claude's own top-level output (a message, or a streamed part of one): with no
        prompt open and no cancel's tail being read, its turn is autonomous (Claude Code stays
        `running` while background agents run, so their follow-up has no `running` of its
        own)."""
        if self._autonomous is not None or prompt_open or self._cancelled:
            return []
        return self._autonomous_started(None)

    def result(self, *, own_work: bool, model_turns: object, is_error: bool) -> list[Wire]:
        """A result, as the core said whose it is (`fsm.ShowResult`): one a prompt took (the
        work is that prompt's now) ends the autonomous turn `completed`; one of Claude's own
        work ends it too, `failed` for an error, but a placeholder (no model turn, `num_turns`
        0) comes before the follow-up that answers it, so the turn goes on."""
        if not own_work:
            return self._autonomous_ended("completed")
        turns = model_turns if isinstance(model_turns, int | float) else 0
        if turns > 0 or is_error:
            return self._autonomous_ended("failed" if is_error else "completed")
        return []

    def prompt_took_over(self) -> list[Wire]:
        """A prompt took Claude's work over (its echo, or the core took a result for it): the
        autonomous turn is the prompt's now, and a cancel's tail is over."""
        self._cancelled = False
        return self._autonomous_ended("completed")

    def cancelled(self) -> None:
        """The client cancelled: what Claude says of the stopped work opens no task."""
        self._cancelled = True

    def initialized(self, frame: Mapping[str, Any]) -> None:
        """A `system/init`: whether this Claude Code names the prompts each model request
        serves (`REQUEST_MARKER_LISTS`)."""
        capabilities = frame.get("capabilities")
        self._marker_lists = (
            isinstance(capabilities, list | tuple) and REQUEST_MARKER_LISTS in capabilities
        )

    def status(self, frame: Mapping[str, Any], *, prompt_open: bool) -> None:
        """A `system/status`: after a cancel, a model request (`requesting`) that serves no
        prompt, with none open, is Claude's own next work (a follow-up once a background
        command ended), not the stopped work's tail (Claude Code ends the interrupted turn
        first, then runs a prompt it had taken off its queue, whose request names it): the
        tail is over, and Claude's output opens an autonomous turn again, as the reference's
        `servesCancelledWork` decides. A Claude Code that names no prompts cannot tell: the
        tail then lasts until a prompt is taken up. A subagent's status (`parent_tool_use_id`)
        is not Claude's own request."""
        if not (self._cancelled and self._marker_lists) or prompt_open:
            return
        if frame.get("parent_tool_use_id"):
            return
        served = frame.get("user_message_uuids")
        if frame.get("status") == "requesting" and not (isinstance(served, list) and served):
            self._cancelled = False

    def stops_by_interrupt(self, task_id: str) -> bool:
        """Stopping `task_id` interrupts Claude: it is an autonomous turn's task."""
        task = self._tasks.get(task_id)
        return task is not None and task.autonomous

    def _autonomous_started(self, cause: str | None) -> list[Wire]:
        task = self._autonomous
        if task is not None:
            if cause is None:
                return []
            return self._progress(task, {"description": cause})  # what the fire says wins
        if self._fresh_id is None:
            return []
        task = self._task_of({"task_id": AUTONOMOUS_TURN_PREFIX + self._fresh_id()})
        if task is None:
            return []
        task.autonomous = task.started_observed = True
        task.name, task.task_type = "Claude is working", "turn"
        task.description = cause or self._last_summary or _AUTONOMOUS_DEFAULT
        task.show_in_transcript = False
        self._last_summary = None
        self._autonomous = task
        return self._announce(task, without_tool_call=True)

    def _autonomous_ended(self, state: str) -> list[Wire]:
        task, self._autonomous = self._autonomous, None
        if task is None:
            return []
        # The interrupt's result and idle come before Claude Code answers the interrupt: a
        # turn the client is stopping ends `stopped` (docs/decisions.md#stopped-own-turn).
        return self._finish(task, "stopped" if task.stopping else state, None, "event")

    # --- `_session/async_task/stop` --------------------------------------------------------

    def claim_stop(self, task_id: str) -> bool:
        """Whether the client may stop `task_id` now; if so, it is being stopped. Whether an
        autonomous turn's task is stopped while a prompt is on its way is the turn's word
        (`OwnTurnStopped`, docs/decisions.md#stopped-own-turn): that prompt would be folded
        into the turn, and the interrupt would drop it; a refused stop is released
        (`release_stop`)."""
        task = self._tasks.get(task_id)
        can = (
            task is not None
            and task.announced
            and not task.monitor
            and not task.ignored
            and not task.stopping
            and not task.terminal
        )
        if can and task is not None:
            task.stopping = True
        return can

    def release_stop(self, task_id: str) -> None:
        """Stopping failed: the task may be stopped again."""
        task = self._tasks.get(task_id)
        if task is not None and not task.terminal:
            task.stopping = False

    def stopped(self, task_id: str) -> list[Wire]:
        """Claude Code stopped the task the client asked to stop: its end (unless its own
        frame said it first) and the one line that says so."""
        task = self._tasks.get(task_id)
        if task is None or not task.announced or task.ignored or task.stop_announced:
            return []
        task.stop_announced = True
        if self._autonomous is task:
            self._autonomous = None
        out = self._finish(task, "stopped", None, "event")
        # Whether or not the task's own end won the race: the user asked, this answers.
        if self._notices:
            out.append(
                {
                    "sessionUpdate": "notice",
                    "severity": "info",
                    "title": "Task stopped by user",
                    "description": f"{task.name}.",
                }
            )
        else:
            text = f"**Task stopped by user:** {task.name}."
            out.append(
                {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
            )
        return out

    # --- the registry -----------------------------------------------------------------------

    def _task_of(self, frame: Mapping[str, Any]) -> _Task | None:
        task_id = _text(_field(frame, "taskId", "task_id"))
        if task_id is None:
            return None
        task = self._tasks.get(task_id)
        if task is None:
            if len(self._tasks) >= _MAX_TASKS:
                oldest = next((t for t in self._tasks.values() if t.terminal or t.ignored), None)
                if oldest is None:
                    return None  # that many live tasks: a new one is not Claude Code's
                del self._tasks[oldest.id]
            task = self._tasks[task_id] = _Task(id=task_id)
        return task

    def _ignore(self, task: _Task) -> None:
        # Only a task the client never saw may be ignored: none is left without its end.
        if task.announced:
            return
        task.ignored, task.held, task.deferred = True, False, []

    def _merge_started(self, task: _Task, frame: Mapping[str, Any]) -> None:
        task.started_observed = True
        raw_type = _field(frame, "taskType", "task_type")
        if raw_type is not None:
            task.task_type = _task_type(raw_type)
        if raw_type == "local_monitor":
            task.monitor = True
        description = _text(frame.get("description"))
        if description:
            task.description = description
        elif task.description == _DEFAULT_DESCRIPTION and task.task_type != "task":
            task.description = task.task_type[0].upper() + task.task_type[1:]
        task.name = _text(_field(frame, "workflowName", "workflow_name")) or task.description
        skip = _field(frame, "skipTranscript", "skip_transcript")
        if task.panel_only:
            task.show_in_transcript = False  # a level-only recovery stays out of the transcript
        elif skip is not None:
            task.show_in_transcript = skip is not True
        self._merge_output(task, frame)
        tool_call = _text(_field(frame, "toolCallId", "tool_use_id"))
        if tool_call:
            task.tool_call_id = tool_call

    @staticmethod
    def _merge_output(task: _Task, frame: Mapping[str, Any]) -> None:
        path = _text(_field(frame, "outputFilePath", "output_file"))
        if path:
            task.output_file_path = path

    @staticmethod
    def _merge_tool_call(task: _Task, frame: Mapping[str, Any]) -> None:
        if task.tool_call_id is None:
            task.tool_call_id = _text(_field(frame, "toolCallId", "tool_use_id"))

    # --- what the client is told --------------------------------------------------------------

    def _when_announced(self, task: _Task, make: Callable[[], list[Wire]]) -> list[Wire]:
        if task.announced:
            return make()
        if task.held:
            task.deferred.append(make)
        return []

    def _announce(self, task: _Task, *, without_tool_call: bool = False) -> list[Wire]:
        if task.announced or task.ignored:
            return []
        if task.tool_call_id is None and not without_tool_call and not task.terminal:
            task.held = True
            return []
        if task.monitor:
            task.task_type, task.show_in_transcript = "monitor", False
        spawn: Wire = {
            "sessionUpdate": "async_task_spawned",
            "asyncTaskId": task.id,
            "name": task.name,
            "taskType": task.task_type,
            "description": task.description,
            "showInTranscript": task.show_in_transcript,
            "canStop": not task.monitor,
        }
        if task.output_file_path:
            spawn["outputFilePath"] = task.output_file_path
        if task.tool_call_id:
            spawn["toolCallId"] = task.tool_call_id
        task.announced, task.held = True, False
        self._record(
            task,
            {
                "description": task.description,
                "outputFilePath": task.output_file_path,
                "toolCallId": task.tool_call_id,
            },
        )
        out = [spawn]
        deferred, task.deferred = task.deferred, []
        for make in deferred:
            out += make()
        if task.terminal:
            out += self._state(task, task.state, task.terminal_summary)
        return out

    def _finish(self, task: _Task, state: str, summary: str | None, source: str) -> list[Wire]:
        if task.ignored:
            return []
        if task.terminal and (task.terminal_source != "level" or source != "event"):
            return []  # final, except a level's guess that the task's own end corrects
        task.state, task.terminal_summary, task.terminal_source = state, summary, source
        if task.announced:
            return self._state(task, state, summary)
        if task.held:
            return self._announce(task)  # it ended before its id came: spawned without it
        return []

    def _metadata(self, task: _Task) -> list[Wire]:
        if not (task.output_file_path or task.tool_call_id):
            return []
        if task.terminal:
            return self._state(task, task.state, task.terminal_summary)
        changes: Wire = {}
        if task.output_file_path:
            changes["outputFilePath"] = task.output_file_path
        if task.tool_call_id:
            changes["toolCallId"] = task.tool_call_id
        return self._progress(task, changes)

    def _progress(self, task: _Task, fields: Wire) -> list[Wire]:
        changed = self._changed(task, fields)
        if not changed:
            return []  # a beat with nothing new is not sent
        self._record(task, changed)
        return [{"sessionUpdate": "async_task_progress", "asyncTaskId": task.id, **changed}]

    def _state(self, task: _Task, state: str, summary: str | None) -> list[Wire]:
        changed = self._changed(
            task, {"outputFilePath": task.output_file_path, "toolCallId": task.tool_call_id}
        )
        update: Wire = {"sessionUpdate": "async_task_state_update", "asyncTaskId": task.id}
        update["state"] = state
        if summary:
            update["summary"] = summary
        update.update(changed)
        self._record(task, changed)
        return [update]

    @staticmethod
    def _changed(task: _Task, fields: Wire) -> Wire:
        return {
            key: value
            for key, value in fields.items()
            if value is not None and task.published.get(key) != json.dumps(value, sort_keys=True)
        }

    @staticmethod
    def _record(task: _Task, fields: Wire) -> None:
        for key, value in fields.items():
            if value is not None:
                task.published[key] = json.dumps(value, sort_keys=True)


_NOTICE = re.compile(r"<task-notification>(.*?)</task-notification>", re.S)
_CALL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})


def _notice_tag(body: str, tag: str) -> str | None:
    match = re.search(f"<{tag}>(.*?)</{tag}>", body, re.S)
    return (match.group(1).strip() or None) if match else None


def task_notices(content: object) -> list[Wire]:
    """The `<task-notification>`s of a user message (its string, or its text blocks), as the
    frame Claude Code sends live: `task_id`, `status`, and `tool_use_id`, `summary`,
    `output_file` when given. Only one with a task id and a status (one without comes while
    the task runs); the `<result>` body is not read
    (docs/reference-adapter.md#task-notifications)."""
    texts = [content] if isinstance(content, str) else []
    if isinstance(content, list):
        texts = [
            block["text"]
            for block in content
            if isinstance(block, Mapping)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        ]
    out: list[Wire] = []
    for text in texts:
        for body in _NOTICE.findall(text):
            body = body.split("<result>", 1)[0]
            task, status = _notice_tag(body, "task-id"), _notice_tag(body, "status")
            if not task or not status:
                continue
            frame: Wire = {"task_id": task, "status": status}
            for key, tag in (
                ("tool_use_id", "tool-use-id"),
                ("summary", "summary"),
                ("output_file", "output-file"),
            ):
                value = _notice_tag(body, tag)
                if value:
                    frame[key] = value
            out.append(frame)
    return out


@dataclass(slots=True)
class _Call:
    name: str
    input: Mapping[str, Any]
    session_id: str


class TaskReplay:
    """The async tasks of one `session/load` replay (see the module's docstring); None
    `tasks` (the client did not declare `asyncTasks`) restores none."""

    def __init__(self, tasks: AsyncTasks | None) -> None:
        self._tasks = tasks
        # Every tool call of the history: a notification comes long after its call's result.
        self._calls: dict[str, _Call] = {}

    def read(self, blocks: Iterable[Mapping[str, Any]], session_id: str) -> None:
        """An entry's tool calls, made on `session_id` (the root's, or a child's)."""
        if self._tasks is None:
            return
        for block in blocks:
            ident = block.get("id")
            if block.get("type") in _CALL_BLOCKS and isinstance(ident, str) and ident:
                raw = block.get("input")
                self._calls[ident] = _Call(
                    name=str(block.get("name")),
                    input=raw if isinstance(raw, Mapping) else {},
                    session_id=session_id,
                )

    def notified(self, content: object) -> list[tuple[str, Wire]]:
        """A user message's task notifications: each known task's spawn and end, on the
        session of the call that started it."""
        tasks = self._tasks
        if tasks is None:
            return []
        out: list[tuple[str, Wire]] = []
        for notice in task_notices(content):
            call = self._calls.get(notice.get("tool_use_id", ""))
            if call is None or call.name in SUBAGENT_TOOLS:
                continue
            frame: Wire = {
                "task_id": notice["task_id"],
                "is_backgrounded": True,
                "tool_use_id": notice["tool_use_id"],
            }
            if "output_file" in notice:
                frame["output_file"] = notice["output_file"]
            if call.name == "Bash":
                frame["task_type"] = "local_bash"
                command = call.input.get("command")
                if isinstance(command, str):
                    frame["description"] = command
            elif call.name == "Monitor":
                frame["task_type"] = "local_monitor"
            updates = tasks.backgrounded(frame) + tasks.notified(notice)
            out += [(call.session_id, update) for update in updates]
        return out
