"""JetBrains AIR's native subagent sessions (`nativeSubagentSessions`, the AIR form): each of
Claude Code's subagents is a child session of its own, in the reference adapter's wire shapes.

Theory of operation: one `NativeSubagents` per session. Every session update the live view
makes goes through `route`, and comes out as the (session id, update) pairs to send, in order:
the root session's own updates unchanged, a subagent's on its child session, the Agent/Task
call that launched it not at all. Claude Code's task frames (`task_started`,
`task_notification`, `task_updated`) and a SendMessage result that resumed an agent open and
end the children; the parent's cancel, the stream's end and a conversation reset end them all.
On the parent (the root, or the child that made the call):

    {"sessionUpdate": "subagent_spawned", "subagentSessionId", "name", "task", "prompt"?,
     "capabilities": {}}
    {"sessionUpdate": "subagent_state_update", "subagentSessionId", "state"}

Rules, each the reference's (`NativeSubagentRuntime` in its AIR form:
docs/reference-adapter.md#native-subagents):
- Off (`enabled` False: the client did not declare it) every update goes to the root as is.
- A child is announced before any update of its own: those that come first wait, per launch
  call (at most 64 launches, 256 updates, 32 per launch; past that they are dropped), and go
  out right after `subagent_spawned`.
- A child's id is Claude Code's agent id (`task_id`); a resumed agent (a `task_updated` running
  patch, or a SendMessage result naming it) opens generation `<task_id>:generation:<n>`, with a
  `subagent_spawned` of its own, under its old parent while that one is live, else the root;
  an agent from before a load (`restore`) goes under the agent whose history holds its launch
  call while that agent is live, else the root (the reference's `restoreAgent`:
  docs/reference-adapter.md#native-subagents).
- `name`: the first non-blank of the Agent input's `name`, its description, its
  `subagent_type`, else `Agent <last 8 of the id>`; `task`: the prompt or the description,
  else `Delegated task`; `prompt`: the task's own prompt, else the Agent input's, else the
  SendMessage text of a resume, never cut, absent when unknown.
- The Agent/Task call is never shown, except when it fails with no child: then it is one
  `tool_call` with its final status, without the `subagent` mark.
- A child ends once (`completed`, `failed`, `disconnected`, `cancelled`; Claude Code's
  `killed`, `cancelled` and `stopped` are `cancelled`); what it sends after its end is dropped,
  except its async tasks' updates, which stay on the child.
- A permission request of a subagent goes on its child session once it is announced
  (`session_of_agent`).
- A child's configuration, each option a one-value select the client cannot change
  (`fsm.air.subagent_config`): its model, which each of its responses names (`child_model`),
  and what Claude Code's hooks say it runs with, its permission mode, a model it switched to,
  its effort and its agent type (`subagent_hook`, `configure`). Its child session gets every
  option it has, in one `config_option_update` (mode, model, effort, then the rest), when
  that set changes: held until the child is announced and sent right after its
  `subagent_spawned`; never after its end (AIR's draft takes no configuration of an ended
  child), and forgotten then. Options of an agent not known yet wait under its agent id, for
  at most 64 such agents; past that they are dropped.

Pure: no I/O, no clock; sending is the shell's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fsm.air.meta import SUBAGENT_TOOLS
from fsm.air.subagent_config import (
    AgentEntry,
    ModeEntry,
    ModelEntry,
    ModeMeta,
    child_model_option,
    hook_configuration,
    model_entry,
    no_mode_meta,
)

__all__ = [
    "SUBAGENT_STATES",
    "NativeSubagents",
    "Routed",
    "subagent_launches",
    "subagent_state",
]

Wire = dict[str, Any]
Routed = tuple[str, Wire]  # (session id, update)
# The order of a child's options, by category; any other comes after (`publishConfiguration`).
_CATEGORY_ORDER = ("mode", "model", "thought_level", "model_config")

SUBAGENT_STATES = ("completed", "failed", "disconnected", "cancelled")
_STATE_OF = {
    "completed": "completed",
    "failed": "failed",
    "disconnected": "disconnected",
    "killed": "cancelled",
    "cancelled": "cancelled",
    "stopped": "cancelled",
}
_TERMINAL_PATCH = frozenset({"completed", "failed", "killed"})
_RUNNING_PATCH = frozenset({"running", "pending"})
_ASYNC_TASK_UPDATES = frozenset(
    {"async_task_spawned", "async_task_progress", "async_task_state_update"}
)
_TOOL_UPDATES = frozenset({"tool_call", "tool_call_update"})
# The reference's bounds on what waits for its child's announcement.
MAX_PENDING_PARENTS = 64
MAX_PENDING_UPDATES = 256
MAX_PENDING_UPDATES_PER_PARENT = 32
# Tool calls whose owning child is remembered (the oldest is forgotten first).
_MAX_CHILD_TOOL_CALLS = 2048
_AIR_SUBAGENT_KEY = "subagent"


def subagent_state(status: object) -> str | None:
    """Claude Code's task status as a child's end state; None: not an end."""
    return _STATE_OF.get(status) if isinstance(status, str) else None


def _text(value: object) -> str | None:
    """A non-blank string, trimmed."""
    return value.strip() if isinstance(value, str) and value.strip() else None


def _prompt(value: object) -> str | None:
    """A prompt as it is (never trimmed), when it says something."""
    return value if isinstance(value, str) and value.strip() else None


def _display_name(name: object, description: object, kind: object, task_id: str) -> str:
    for value in (name, description, kind):
        text = _text(value)
        if text is not None:
            return text
    return f"Agent {task_id[-8:] if len(task_id) > 8 else task_id}"


def _task_of(prompt: object, description: object) -> str:
    return _text(prompt) or _text(description) or "Delegated task"


def _claude_meta(update: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = update.get("_meta")
    claude = meta.get("claudeCode") if isinstance(meta, Mapping) else None
    return claude if isinstance(claude, Mapping) else {}


def _air_meta(meta: object) -> Mapping[str, Any] | None:
    jetbrains = meta.get("jetbrains") if isinstance(meta, Mapping) else None
    air = jetbrains.get("air") if isinstance(jetbrains, Mapping) else None
    return air if isinstance(air, Mapping) else None


@dataclass(slots=True)
class _Identity:
    """What the Agent/Task call's input says of its agent."""

    name: str | None = None
    description: str | None = None
    prompt: str | None = None
    kind: str | None = None  # `subagent_type`

    def merged(self, raw: object) -> _Identity:
        if not isinstance(raw, Mapping):
            return self
        return _Identity(
            name=_text(raw.get("name")) or self.name,
            description=_text(raw.get("description")) or self.description,
            prompt=_prompt(raw.get("prompt")) or self.prompt,
            kind=_text(raw.get("subagent_type")) or self.kind,
        )


@dataclass(slots=True)
class _Child:
    session_id: str
    parent_session_id: str
    parent_tool_use_id: str | None
    name: str
    task: str
    prompt: str | None = None
    announced: bool = False
    terminal: str | None = None


@dataclass(slots=True)
class _Config:
    """A child's configuration: its options by id (first report first), what its session was
    last sent, and the model that showed."""

    options: dict[str, Wire] = field(default_factory=dict)
    published: list[Wire] | None = None
    published_model: tuple[str, str] | None = None


@dataclass(slots=True)
class NativeSubagents:
    """The children of one root session; see the module's docstring."""

    root: str
    enabled: bool = False
    # A mode's `_meta` as the root's picker gives it (`AirClient.mode_meta`), for a child's.
    mode_meta: ModeMeta = no_mode_meta
    _children: dict[str, _Child] = field(default_factory=dict)  # by task id (insertion order)
    _task_by_tool_use: dict[str, str] = field(default_factory=dict)
    _child_by_launch: dict[str, _Child] = field(default_factory=dict)
    _parent_by_tool_use: dict[str, str] = field(default_factory=dict)
    _identity: dict[str, _Identity] = field(default_factory=dict)
    _control: dict[str, Wire] = field(default_factory=dict)  # the launch call, as it stands
    _controls: set[str] = field(default_factory=set)  # Agent/Task call ids seen
    _owner_of_call: dict[str, _Child] = field(default_factory=dict)
    _session_of_async: dict[str, str] = field(default_factory=dict)
    _send_messages: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    _generation: dict[str, int] = field(default_factory=dict)
    _pending: dict[str, list[Wire]] = field(default_factory=dict)
    _configs: dict[str, _Config] = field(default_factory=dict)  # by child session id
    # The session ids in `_configs` no child has yet: what the bound on unknown agents counts.
    _waiting_configs: set[str] = field(default_factory=set)
    # Agents from before a load that Claude Code runs again, to be found in the session's
    # history (`wanted`, then `restore` or `unresolved`): by the launch their output names,
    # and by agent id (with the resuming prompt and call).
    _wanted_launches: set[str] = field(default_factory=set)
    _wanted_agents: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    _unresolved: set[str] = field(default_factory=set)
    _last_restored: int = 0
    _pending_count: int = 0
    dropped: int = 0  # updates and configurations the pending bounds dropped (the shell logs them)

    # ---- the one path of every update -------------------------------------------------------

    def route(self, update: Wire) -> list[Routed]:
        """Where `update` goes: nowhere, the root, a child; or, for a launch call that
        announces its child, the announcement and what waited for it."""
        if not self.enabled:
            return [(self.root, update)]
        kind = update.get("sessionUpdate")
        claude = _claude_meta(update)
        launch = _text(claude.get("parentToolUseId"))
        if kind in _TOOL_UPDATES and self._is_control(update):
            return self._route_control(update, launch)
        if kind in _ASYNC_TASK_UPDATES:
            return self._route_async_task(update)
        tool_call_id = _text(update.get("toolCallId")) if kind in _TOOL_UPDATES else None
        if kind == "tool_call" and claude.get("toolName") == "SendMessage" and tool_call_id:
            self._remember_send_message(tool_call_id, update.get("rawInput"))
        owner = self._owner_of_call.get(tool_call_id) if tool_call_id else None
        if owner is not None:
            return self._to_child(owner, update, tool_call_id)
        if launch is not None:
            child = self._child_by_launch.get(launch)
            if child is None or not child.announced:
                self._buffer(launch, update)
                if child is None and self._unseen(launch):
                    # The launch of an agent from before a load: looked up in the history.
                    self._wanted_launches.add(launch)
                return []
            return self._to_child(child, update, tool_call_id)
        return [(self.root, update)]

    def _is_control(self, update: Mapping[str, Any]) -> bool:
        tool_call_id = update.get("toolCallId")
        if isinstance(tool_call_id, str) and tool_call_id in self._controls:
            return True
        air = _air_meta(update.get("_meta"))
        marked = air is not None and air.get(_AIR_SUBAGENT_KEY) is True
        return marked or _claude_meta(update).get("toolName") in SUBAGENT_TOOLS

    def _route_control(self, update: Wire, launch: str | None) -> list[Routed]:
        tool_call_id = _text(update.get("toolCallId"))
        if tool_call_id is None:
            return []
        self._controls.add(tool_call_id)
        initial = self._control.get(tool_call_id)
        if update.get("sessionUpdate") == "tool_call" or initial is not None:
            self._control[tool_call_id] = _merged(initial, update)
        self._identity[tool_call_id] = self._identity.get(tool_call_id, _Identity()).merged(
            update.get("rawInput")
        )
        parent_child = self._child_by_launch.get(launch) if launch else None
        parent_session = parent_child.session_id if parent_child else self.root
        out: list[Routed] = []
        self._parent_by_tool_use[tool_call_id] = parent_session
        child = self._child_by_launch.get(tool_call_id)
        if child is not None and not child.announced:
            child.parent_session_id = parent_session
            self._apply_identity(child, self._identity.get(tool_call_id))
            out += self._announce(child)
            out += self._flush(tool_call_id)
        if child is None and update.get("status") == "failed":
            self._take_pending(tool_call_id)
            shown = self._control.get(tool_call_id) or update
            self._forget_control(tool_call_id)
            out.append((parent_session, _fallback(shown, update)))
        return out

    def _route_async_task(self, update: Wire) -> list[Routed]:
        """An async task's update stays with the session of the call that started it, even
        after that child ended."""
        task_id = _text(update.get("asyncTaskId"))
        tool_call_id = _text(update.get("toolCallId"))
        owner = self._owner_of_call.get(tool_call_id) if tool_call_id else None
        session = owner.session_id if owner is not None else None
        if session is None and task_id is not None:
            session = self._session_of_async.get(task_id)
        if session is not None and task_id is not None:
            self._session_of_async[task_id] = session
        return [(session or self.root, update)]

    def _to_child(self, child: _Child, update: Wire, tool_call_id: str | None) -> list[Routed]:
        if child.terminal is not None:
            return []  # an ended child gets nothing more
        if update.get("sessionUpdate") == "config_option_update":
            options = update.get("configOptions")
            if not isinstance(options, list):
                return []
            found = [dict(o) for o in options if isinstance(o, Mapping)]
            return self.configure(child.session_id, found, update.get("_meta"))
        if tool_call_id:
            self._owner_of_call.pop(tool_call_id, None)
            self._owner_of_call[tool_call_id] = child
            if len(self._owner_of_call) > _MAX_CHILD_TOOL_CALLS:
                del self._owner_of_call[next(iter(self._owner_of_call))]
        return [(child.session_id, update)]

    # ---- Claude Code's task frames -----------------------------------------------------------

    def task_started(self, frame: Mapping[str, Any]) -> list[Routed]:
        if not self.enabled:
            return []
        task_id = _text(frame.get("task_id"))
        tool_use_id = _text(frame.get("tool_use_id"))
        if task_id is None:
            return []
        kind = _text(frame.get("subagent_type"))
        if kind is None:
            if tool_use_id is not None:
                self._take_pending(tool_use_id)
                self._forget_control(tool_use_id)
            return []
        if tool_use_id in self._send_messages and task_id not in self._children:
            # Claude Code runs an agent from before a load again, under the SendMessage call
            # that woke it: restored from the history.
            self._wanted_agents[task_id] = (_prompt(frame.get("prompt")), tool_use_id)
            return []
        previous = self._children.get(task_id)
        if previous is not None and previous.terminal is None:
            return []
        known_parent = self._parent_by_tool_use.get(tool_use_id) if tool_use_id else None
        if known_parent is None and previous is not None:
            known_parent = self._resumed_parent(previous)
        identity = self._identity.get(tool_use_id) if tool_use_id else None
        identity = identity or _Identity()
        description = identity.description or frame.get("description")
        prompt = _prompt(frame.get("prompt")) or identity.prompt
        child = _Child(
            session_id=self._next_session_id(task_id, previous),
            parent_session_id=known_parent or self.root,
            parent_tool_use_id=tool_use_id,
            name=_display_name(identity.name, description, identity.kind or kind, task_id),
            task=_task_of(identity.prompt or frame.get("prompt"), description),
            prompt=prompt,
        )
        return self._open(task_id, child, announce=known_parent is not None or not tool_use_id)

    def task_notification(self, frame: Mapping[str, Any]) -> list[Routed]:
        if not self.enabled:
            return []
        task_id = _text(frame.get("task_id"))
        tool_use_id = _text(frame.get("tool_use_id"))
        out = self._finish(task_id, frame.get("status"), tool_use_id) if task_id else []
        if tool_use_id is not None:
            self._take_pending(tool_use_id)
        return out

    def task_updated(self, frame: Mapping[str, Any]) -> list[Routed]:
        """A terminal patch ends the child; a running one resumes a finished one."""
        if not self.enabled:
            return []
        task_id = _text(frame.get("task_id"))
        patch = frame.get("patch")
        status = patch.get("status") if isinstance(patch, Mapping) else None
        if task_id is None:
            return []
        if status in _TERMINAL_PATCH:
            return self._finish(task_id, status, None)
        if status in _RUNNING_PATCH:
            return self._resumed(task_id, self._send_message_to(task_id))
        return []

    def send_message_result(self, tool_use_result: object) -> list[Routed]:
        """A SendMessage result: when it says it resumed a finished agent, that agent runs
        again, with the message as its prompt."""
        if not self.enabled or not isinstance(tool_use_result, Mapping):
            return []
        agent = _text(tool_use_result.get("resumedAgentId"))
        if tool_use_result.get("success") is not True or agent is None:
            return []
        return self._resumed(agent, self._send_message_to(agent))

    def _resumed(self, task_id: str, prompt: str | None) -> list[Routed]:
        previous = self._children.get(task_id)
        if previous is None and task_id not in self._unresolved:
            self._wanted_agents.setdefault(task_id, (prompt, None))  # from before a load
        if previous is None or previous.terminal is None:
            return []  # unknown here (looked up in the history), or still running
        child = _Child(
            session_id=self._next_session_id(task_id, previous),
            parent_session_id=self._resumed_parent(previous),
            parent_tool_use_id=previous.parent_tool_use_id,
            name=previous.name,
            task=previous.task,
            prompt=prompt,
        )
        return self._open(task_id, child, announce=True)

    def parent_cancelled(self) -> list[Routed]:
        """`session/cancel` of the root ends every child as cancelled."""
        return self.finish_all("cancelled")

    def finish_all(self, state: str) -> list[Routed]:
        """The stream ended or the conversation was reset: every open child ends `state`."""
        if not self.enabled:
            return []
        out: list[Routed] = []
        for task_id in reversed(list(self._children)):
            out += self._finish(task_id, state, None)
        self._pending.clear()
        self._pending_count = 0
        self._identity.clear()
        self._control.clear()
        self._parent_by_tool_use.clear()
        self._configs.clear()
        self._waiting_configs.clear()
        return out

    def child_model(
        self, launch: str | None, model: object, choices: Iterable[ModelEntry] = ()
    ) -> list[Routed]:
        """A subagent's response names its model: its child session shows it as a `model`
        option offering only that model (the client cannot change a child's), named as the
        root's picker names it (`choices`: value, name, the id it resolves to), else by its id;
        sent only when it changes, never after the child's end, and held until the child is
        announced (only the latest)."""
        entry = model_entry(model, choices)
        if not self.enabled or not launch or entry is None:
            return []
        child = self._child_by_launch.get(launch)
        config = self._configs.get(child.session_id) if child is not None else None
        if child is not None and child.announced and config and config.published_model == entry:
            return []  # most responses repeat the model the child shows
        update: Wire = {
            "sessionUpdate": "config_option_update",
            "configOptions": [child_model_option(entry)],
            "_meta": {"claudeCode": {"parentToolUseId": launch}},
        }
        return self.route(update)

    def subagent_hook(
        self,
        hook_input: object,
        *,
        modes: Iterable[ModeEntry] = (),
        models: Iterable[ModelEntry] = (),
        agents: Iterable[AgentEntry] = (),
    ) -> list[Routed]:
        """One of Claude Code's hooks fired (its input as it came): when inside a subagent, the
        options it says that subagent runs with (`fsm.air.subagent_config.hook_configuration`,
        named as the root's pickers `modes`, `models` and `agents` name them) go to
        `configure`."""
        if not self.enabled:
            return []
        found = hook_configuration(
            hook_input, modes=modes, models=models, agents=agents, mode_meta=self.mode_meta
        )
        if found is None:
            return []
        return self.configure(*found)

    def configure(self, agent_id: str, options: list[Wire], meta: object = None) -> list[Routed]:
        """Options of the child `agent_id` (Claude Code's agent id, as a hook names it, or a
        child session's id): kept over what it had by id, and, once the child is announced,
        the child's whole set when it changed (with `meta` as the update's `_meta`). An ended
        child takes none; an agent not known yet keeps them under its agent id, which is the
        session id its first generation gets (`reportConfiguration`)."""
        options = [o for o in options if isinstance(o.get("id"), str)]
        if not self.enabled or agent_id == self.root or not options:
            return []
        known = self._children.get(agent_id) or self._child_of_session(agent_id)
        session_id = known.session_id if known is not None else agent_id
        if known is not None and known.terminal is not None:
            return []  # AIR's draft takes no configuration of an ended child
        config = self._configs.get(session_id)
        if config is None:
            if known is None and len(self._waiting_configs) >= MAX_PENDING_PARENTS:
                self.dropped += 1
                return []
            config = self._configs[session_id] = _Config()
            if known is None:
                self._waiting_configs.add(session_id)
        for option in options:
            config.options[option["id"]] = dict(option)
        if known is None or not known.announced:
            return []
        return self._publish_config(known, meta)

    def _publish_config(self, child: _Child, meta: object = None) -> list[Routed]:
        """The child's whole configuration, when it is not what its session last got."""
        config = self._configs.get(child.session_id)
        if config is None or child.terminal is not None:
            return []
        options = sorted(config.options.values(), key=_category_rank)
        if options == config.published:
            return []
        update: Wire = {"sessionUpdate": "config_option_update", "configOptions": options}
        if isinstance(meta, Mapping) and meta:
            update["_meta"] = dict(meta)
        config.published = options
        model = next((o for o in options if o.get("id") == "model"), None)
        offered = model.get("options") if model is not None else None
        shown = offered[0] if isinstance(offered, list) and offered else None
        value = model.get("currentValue") if model is not None else None
        if isinstance(shown, Mapping) and "name" in shown and isinstance(value, str):
            config.published_model = (value, str(shown["name"]))
        return [(child.session_id, update)]

    def _child_of_session(self, session_id: str) -> _Child | None:
        if session_id == self.root:
            return None
        return next((c for c in self._children.values() if c.session_id == session_id), None)

    @property
    def wanting(self) -> bool:
        """Something is to be looked up in the session's history (`wanted`)."""
        return bool(self._wanted_launches or self._wanted_agents)

    def wanted(self) -> tuple[list[str], list[str]]:
        """The launches and the agent ids to look up in the session's history (each once)."""
        launches, agents = sorted(self._wanted_launches), list(self._wanted_agents)
        self._wanted_launches.clear()
        return launches, agents

    def restore(
        self,
        agent_id: str,
        launch: str,
        *,
        name: str | None,
        description: str | None,
        kind: str | None,
        now_ms: int,
        launcher: str | None = None,
    ) -> list[Routed]:
        """An agent from before a load, found in the history (launched by `launch`), runs
        again: a generation of its own, `<agent id>:generation:<now in ms>` (later each
        restore one more), with what waited for it; under the agent `launcher` whose history
        holds the launch call while that agent is live, else under the root."""
        prompt, resumed_by = self._wanted_agents.pop(agent_id, (None, None))
        if not self.enabled or agent_id in self._children:
            return []
        generation = max(now_ms, self._last_restored + 1)
        self._last_restored = generation
        self._generation[agent_id] = generation
        child = _Child(
            session_id=f"{agent_id}:generation:{generation}",
            parent_session_id=self._launching_session(launcher),
            parent_tool_use_id=launch,
            name=_display_name(name, description, kind, agent_id),
            task=_task_of(None, description),
            prompt=prompt,
        )
        out = self._open(agent_id, child, announce=True)
        if resumed_by is not None:
            self._task_by_tool_use[resumed_by] = agent_id
            self._child_by_launch[resumed_by] = child
            out += self._flush(resumed_by)
        return out

    def unresolved(self, *, launch: str | None = None, agent: str | None = None) -> None:
        """The history has no agent of `launch` (or no `agent`): it is not looked up again,
        and what waits for it stays unshown."""
        if launch is not None:
            self._unresolved.add(launch)
        if agent is not None:
            self._wanted_agents.pop(agent, None)
            self._unresolved.add(agent)

    def _unseen(self, launch: str) -> bool:
        return not (
            launch in self._unresolved
            or launch in self._task_by_tool_use
            or launch in self._child_by_launch
            or launch in self._control
            or launch in self._controls
            or launch in self._parent_by_tool_use
            or launch in self._identity
        )

    def session_of_agent(self, agent_id: object) -> str:
        """The session a subagent's permission request goes on: its child's once announced,
        else the root's."""
        child = self._children.get(agent_id) if isinstance(agent_id, str) else None
        return child.session_id if self.enabled and child and child.announced else self.root

    # ---- the children ------------------------------------------------------------------------

    def _open(self, task_id: str, child: _Child, *, announce: bool) -> list[Routed]:
        self._children.pop(task_id, None)
        self._children[task_id] = child
        self._waiting_configs.discard(child.session_id)  # what waited under its id is its own
        launch = child.parent_tool_use_id
        if launch is not None:
            self._task_by_tool_use[launch] = task_id
            self._child_by_launch[launch] = child
            self._control.pop(launch, None)
        if not announce:
            return []
        return [*self._announce(child), *(self._flush(launch) if launch else [])]

    def _finish(self, task_id: str, status: object, tool_use_id: str | None) -> list[Routed]:
        state = subagent_state(status)
        child = (
            self._child_by_launch.get(tool_use_id) if tool_use_id else self._children.get(task_id)
        )
        if child is not None and tool_use_id and self._task_by_tool_use.get(tool_use_id) != task_id:
            return []
        if state is None or child is None or child.terminal is not None:
            return []
        out = self._announce(child)
        if child.parent_tool_use_id:
            out += self._flush(child.parent_tool_use_id)
        out.append(
            (
                child.parent_session_id,
                {
                    "sessionUpdate": "subagent_state_update",
                    "subagentSessionId": child.session_id,
                    "state": state,
                },
            )
        )
        child.terminal = state
        self._configs.pop(child.session_id, None)  # an ended child takes no configuration
        if child.parent_tool_use_id:
            self._forget_control(child.parent_tool_use_id)
        return out

    def _announce(self, child: _Child) -> list[Routed]:
        if child.announced:
            return []
        child.announced = True
        update: Wire = {
            "sessionUpdate": "subagent_spawned",
            "subagentSessionId": child.session_id,
            "name": child.name,
            "task": child.task,
        }
        if child.prompt is not None:
            update["prompt"] = child.prompt
        update["capabilities"] = {}
        # What its hooks said it runs with before it was announced, right after.
        return [(child.parent_session_id, update), *self._publish_config(child)]

    def _flush(self, launch: str) -> list[Routed]:
        out: list[Routed] = []
        for update in self._take_pending(launch):
            out += self.route(update)
        return out

    def _apply_identity(self, child: _Child, identity: _Identity | None) -> None:
        if identity is None:
            return
        if identity.name or identity.description:
            child.name = _display_name(
                identity.name, identity.description, identity.kind, child.session_id
            )
        if identity.prompt or identity.description:
            child.task = _task_of(identity.prompt, identity.description)
        if child.prompt is None:
            child.prompt = identity.prompt

    def _resumed_parent(self, previous: _Child) -> str:
        return previous.parent_session_id if self._live(previous.parent_session_id) else self.root

    def _launching_session(self, launcher: str | None) -> str:
        parent = self._children.get(launcher) if launcher else None
        if parent is None or not parent.announced or not self._live(parent.session_id):
            return self.root
        return parent.session_id

    def _live(self, session_id: str) -> bool:
        if session_id == self.root:
            return True
        return any(
            c.session_id == session_id and c.terminal is None for c in self._children.values()
        )

    def _next_session_id(self, task_id: str, previous: _Child | None) -> str:
        if previous is None:
            self._generation[task_id] = 1
            return task_id
        generation = self._generation.get(task_id, 1) + 1
        self._generation[task_id] = generation
        return f"{task_id}:generation:{generation}"

    # ---- what waits, and what is remembered --------------------------------------------------

    def _buffer(self, launch: str, update: Wire) -> None:
        updates = self._pending.get(launch)
        if updates is not None and _model_entry(update) is not None:
            # Only the latest model of a child not announced yet waits.
            for index, waiting in enumerate(updates):
                if _model_entry(waiting) is not None:
                    updates[index] = update
                    return
        if (
            self._pending_count >= MAX_PENDING_UPDATES
            or (updates is None and len(self._pending) >= MAX_PENDING_PARENTS)
            or (updates is not None and len(updates) >= MAX_PENDING_UPDATES_PER_PARENT)
        ):
            self.dropped += 1
            return
        self._pending.setdefault(launch, []).append(update)
        self._pending_count += 1

    def _take_pending(self, launch: str) -> list[Wire]:
        updates = self._pending.pop(launch, [])
        self._pending_count -= len(updates)
        return updates

    def _forget_control(self, tool_use_id: str) -> None:
        self._identity.pop(tool_use_id, None)
        self._control.pop(tool_use_id, None)
        self._parent_by_tool_use.pop(tool_use_id, None)

    def _remember_send_message(self, tool_call_id: str, raw: object) -> None:
        if not isinstance(raw, Mapping):
            return
        to = _text(raw.get("to"))
        if to is None:
            return
        self._send_messages.pop(tool_call_id, None)
        self._send_messages[tool_call_id] = (to, _prompt(raw.get("message")))
        if len(self._send_messages) > _MAX_CHILD_TOOL_CALLS:
            del self._send_messages[next(iter(self._send_messages))]

    def _send_message_to(self, agent: str) -> str | None:
        """The text of the latest SendMessage call to `agent`."""
        for to, text in reversed(list(self._send_messages.values())):
            if to == agent:
                return text
        return None


def _category_rank(option: Mapping[str, Any]) -> int:
    category = option.get("category")
    return _CATEGORY_ORDER.index(category) if category in _CATEGORY_ORDER else len(_CATEGORY_ORDER)


def _model_entry(update: Mapping[str, Any]) -> tuple[str, str] | None:
    """The (value, name) of a child's one-model `config_option_update`; None for any other."""
    if update.get("sessionUpdate") != "config_option_update":
        return None
    options = update.get("configOptions")
    if not isinstance(options, list) or len(options) != 1 or not isinstance(options[0], Mapping):
        return None
    option = options[0]
    offered = option.get("options")
    if option.get("id") != "model" or not isinstance(offered, list) or len(offered) != 1:
        return None
    shown = offered[0]
    if not isinstance(shown, Mapping):
        return None
    return str(shown.get("value")), str(shown.get("name"))


def _merged(initial: Wire | None, update: Wire) -> Wire:
    """The launch call as it stands: its first report with each later one over it."""
    if initial is None:
        return dict(update)
    merged = {**initial, **update, "sessionUpdate": initial.get("sessionUpdate")}
    meta_initial, meta_update = initial.get("_meta"), update.get("_meta")
    if isinstance(meta_initial, Mapping) and isinstance(meta_update, Mapping):
        merged["_meta"] = {**meta_initial, **meta_update}
    return merged


def _fallback(shown: Wire, terminal: Wire) -> Wire:
    """A launch call that failed with no child, shown after all: one `tool_call` with its final
    status and title, without the `subagent` mark (`unexposedControlFallback`)."""
    update: Wire = {**shown, **terminal, "sessionUpdate": "tool_call"}
    update["status"] = terminal.get("status") or "failed"
    title = terminal.get("title")
    tool_name = _claude_meta(shown).get("toolName") or _claude_meta(terminal).get("toolName")
    if not (isinstance(title, str) and title.strip()):
        title = shown.get("title")
    if not (isinstance(title, str) and title.strip()):
        title = "Task" if tool_name == "Task" else "Agent"
    update["title"] = title
    meta: Wire = {}
    for source in (shown.get("_meta"), terminal.get("_meta")):
        if isinstance(source, Mapping):
            meta.update(source)
    claude: Wire = {}
    for source in (shown, terminal):
        claude.update(_claude_meta(source))
    meta["claudeCode"] = claude
    air = _air_meta(meta)
    if air is not None and _AIR_SUBAGENT_KEY in air:
        rest = {k: v for k, v in air.items() if k != _AIR_SUBAGENT_KEY}
        meta["jetbrains"] = {**meta["jetbrains"], "air": rest}
    update["_meta"] = meta
    return update


def subagent_launches(content: object) -> list[str]:
    """The ids of the Agent and Task calls that launched subagents in a message's `content`
    (`subagentLaunchIds`: docs/reference-adapter.md#subagent-launches)."""
    if not isinstance(content, list):
        return []
    return [
        block["id"]
        for block in content
        if isinstance(block, Mapping)
        and block.get("type") == "tool_use"
        and block.get("name") in SUBAGENT_TOOLS
        and isinstance(block.get("id"), str)
    ]
