"""JetBrains AIR's native subagent sessions on `session/load`: the subagents of a stored session
as child sessions again, in the reference adapter's AIR form (`replaySessionHistory`:
docs/reference-adapter.md#subagent-replay).

Theory of operation: one `SubagentReplay` per replay, fed the transcript's entries in order
(the session's, and each subagent's own transcript right after the message that launched it).
Claude Code keeps no task frames, so a child is known by its launch: each Agent/Task
`tool_use` is a child `<session id>:replay-subagent:<tool use id>`, announced right after the
message that holds it with `subagent_spawned` (its name and task from the call's input, else
`Restored agent` and `Delegated task restored from session history`), on the session of
whoever made the call. A subagent message whose launch is unknown announces a child
`Disconnected agent`. The launch call itself is never shown. Every update of a child's
message goes to the child's session, and a later update of one of its calls (a result, the
close at the next prompt) follows the call; a child's response names its model, which its
session shows (`model`): as the root's model picker names it when its list is known (a load
replays while Claude Code starts, so mostly it is not), else by its id; once the load is
answered, the list is known, and a child whose model it names otherwise gets that entry
(`refined_models`, the reference's `publishReplayedChildModels`). At the end (`finish`),
before `loadReplayEnd`, each child announced gets its `subagent_state_update`, newest first:
from Claude Code's `<task-notification>` of it when the history holds one, else from its
launch's `tool_result` (`completed` without an error, `cancelled` when the error says
cancelled, interrupted, stopped or killed, `failed` otherwise), and `disconnected` with
neither or a lineage that loops.

Pure: reading the transcripts and sending is the shell's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fsm.air.async_tasks import task_notices
from fsm.air.meta import SUBAGENT_TOOLS
from fsm.air.native_subagents import Routed, subagent_state
from fsm.air.subagent_config import ModelEntry, child_model_option, model_entry

__all__ = ["SubagentReplay", "fork_directive", "replayed_end_state"]

# How Claude Code opens the directive message of a `subagent_type: "fork"` child, and what
# follows its boilerplate, right before the prompt of the Agent call.
_FORK_OPEN = "<fork-boilerplate>"
_FORK_DIRECTIVE = "</fork-boilerplate>\nYour directive: "

Wire = dict[str, Any]

_STOPPED = re.compile(r"\b(?:cancelled|canceled|interrupted|stopped|killed)\b")
_CALL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
_RESULT_BLOCKS = frozenset({"tool_result", "mcp_tool_result"})


def _text_of(value: object, seen: set[int] | None = None) -> str:
    seen = seen if seen is not None else set()
    if isinstance(value, str):
        return value
    if not isinstance(value, list | Mapping) or id(value) in seen:
        return ""
    seen.add(id(value))
    if isinstance(value, list):
        return " ".join(_text_of(item, seen) for item in value)
    parts = (_text_of(value.get(key), seen) for key in ("text", "content", "message"))
    return " ".join(part for part in parts if part)


def replayed_end_state(block: Mapping[str, Any]) -> str:
    """How a launch ended, from its `tool_result` (`replaySubagentTerminalState`)."""
    if block.get("is_error") is not True:
        return "completed"
    return "cancelled" if _STOPPED.search(_text_of(block.get("content")).lower()) else "failed"


def fork_directive(records: Iterable[Mapping[str, Any]]) -> tuple[int, str | None] | None:
    """A fork child's transcript starts with context it inherited (a copy of the launching
    message, placeholder results), then its directive message: (that message's index, the
    prompt it holds), or None for any other transcript (`stripForkPrefix`). What comes before
    the directive is not the child's own work and is not replayed; the directive is its prompt
    alone."""
    for index, record in enumerate(records):
        message = record.get("message")
        content = message.get("content") if isinstance(message, Mapping) else None
        if record.get("type") != "user" or not isinstance(content, list):
            continue
        texts = [
            block["text"]
            for block in content
            if isinstance(block, Mapping)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
            and block["text"].startswith(_FORK_OPEN)
        ]
        if not texts:
            continue
        start = texts[0].find(_FORK_DIRECTIVE)
        return index, texts[0][start + len(_FORK_DIRECTIVE) :] if start >= 0 else None
    return None


def _first(*values: object) -> str | None:
    for value in values:
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


@dataclass(slots=True)
class _Child:
    session_id: str
    name: str
    task: str
    parent_launch: str | None = None  # the launch of the child that made the call
    reconstructable: bool = True
    announced: bool = False
    end: str | None = None


@dataclass(slots=True)
class SubagentReplay:
    """The children of one replay; see the module's docstring. Off (`enabled` False) every
    update goes to the root and nothing is announced."""

    root: str
    enabled: bool = False
    _children: dict[str, _Child] = field(default_factory=dict)  # by launch id
    _ends: dict[str, str] = field(default_factory=dict)  # a launch's end, by launch id
    _controls: set[str] = field(default_factory=set)  # the launch calls, never shown
    _owner_of_call: dict[str, str] = field(default_factory=dict)  # call id -> session id
    _order: list[str] = field(default_factory=list)  # launches in the order announced
    # The model each child's latest response named, and the entry its session shows for it.
    _models: dict[str, tuple[str, tuple[str, str]]] = field(default_factory=dict)
    _notified: dict[str, str] = field(default_factory=dict)  # a task notice's end, by launch

    def read(self, blocks: Iterable[Mapping[str, Any]], parent: str | None) -> list[str]:
        """Learn an entry's launches and results (`parent`: the launch whose subagent wrote
        it); the launch ids it holds, in order."""
        if not self.enabled:
            return []
        launches: list[str] = []
        for block in blocks:
            kind = block.get("type")
            if kind in _RESULT_BLOCKS and isinstance(block.get("tool_use_id"), str):
                end = replayed_end_state(block)
                self._ends[block["tool_use_id"]] = end
                child = self._children.get(block["tool_use_id"])
                if child is not None:
                    child.end = end
            ident = block.get("id")
            if kind not in _CALL_BLOCKS or not isinstance(ident, str):
                continue
            if block.get("name") not in SUBAGENT_TOOLS:
                continue
            raw = block.get("input")
            spec: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
            self._controls.add(ident)
            if kind == "tool_use":
                launches.append(ident)
            if ident not in self._children:
                self._children[ident] = _Child(
                    session_id=f"{self.root}:replay-subagent:{ident}",
                    name=_first(
                        spec.get("name"), spec.get("description"), spec.get("subagent_type")
                    )
                    or "Restored agent",
                    task=_first(spec.get("prompt"), spec.get("description"))
                    or "Delegated task restored from session history",
                    parent_launch=parent,
                    end=self._ends.get(ident),
                )
        return launches

    def target(self, parent: str | None) -> tuple[str, list[Routed]]:
        """The session an entry of the subagent of launch `parent` goes to (None: the root's),
        and the announcements due first."""
        if not self.enabled or parent is None:
            return self.root, []
        out: list[Routed] = []
        return self._announce(parent, set(), out), out

    def announce(self, launch: str) -> list[Routed]:
        """The child of `launch`, announced right after the message that launched it."""
        _, out = self.target(launch)
        return out

    def route(self, update: Wire, session_id: str) -> list[Routed]:
        """Where an update made from an entry for `session_id` goes: nowhere for a launch
        call, with its call for a later update of a known call, else to `session_id`."""
        if not self.enabled:
            return [(self.root, update)]
        call = update.get("toolCallId")
        if isinstance(call, str) and update.get("sessionUpdate") in (
            "tool_call",
            "tool_call_update",
        ):
            if call in self._controls:
                return []
            owner = self._owner_of_call.setdefault(call, session_id)
            return [(owner, update)]
        return [(session_id, update)]

    def route_all(self, updates: list[Wire], session_id: str) -> list[Routed]:
        """`route` for each of an entry's updates (off: all to the root, the bulk path)."""
        if not self.enabled:
            root = self.root
            return [(root, update) for update in updates]
        return [routed for update in updates for routed in self.route(update, session_id)]

    def model(
        self, launch: str | None, model: object, choices: Iterable[ModelEntry] = ()
    ) -> list[Routed]:
        """A replayed response of the subagent of `launch` names its model: the child's
        session shows it, named as the root's picker entries `choices` (value, name, resolved
        id) name it, else by its id (a load's replay mostly runs before the session's model
        list is known), when that changed."""
        child = self._children.get(launch) if self.enabled and launch else None
        entry = model_entry(model, choices)
        if child is None or not child.announced or entry is None or not isinstance(model, str):
            return []
        shown = self._models.get(child.session_id)
        if shown is not None and shown[1] == entry:
            return []
        self._models[child.session_id] = (model, entry)
        update = {
            "sessionUpdate": "config_option_update",
            "configOptions": [child_model_option(entry)],
        }
        return [(child.session_id, update)]

    def refined_models(self, choices: Iterable[ModelEntry]) -> list[Routed]:
        """Once the load is answered and the session's model list is known (`choices`): each
        replayed child whose model that list names otherwise than its session shows gets the
        list's entry, once (AIR's draft takes this more exact snapshot of an ended child's
        configuration)."""
        listed = list(choices)
        out: list[Routed] = []
        for session_id, (model, shown) in self._models.items():
            entry = model_entry(model, listed)
            if entry is not None and entry != shown:
                update = {
                    "sessionUpdate": "config_option_update",
                    "configOptions": [child_model_option(entry)],
                }
                out.append((session_id, update))
        self._models.clear()
        return out

    def notified(self, content: object) -> None:
        """A user message's `<task-notification>`s (Claude Code's word that a background task
        ended): a subagent's is how it ended, over its launch's result."""
        if not self.enabled:
            return
        for notice in task_notices(content):
            launch, state = notice.get("tool_use_id"), subagent_state(notice["status"])
            if isinstance(launch, str) and state:
                self._notified[launch] = state

    def finish(self) -> list[Routed]:
        """Each announced child's end, on its parent's session, newest first."""
        out: list[Routed] = []
        for launch in reversed(self._order):
            child = self._children[launch]
            end = self._notified.get(launch) or child.end
            state = end if child.reconstructable and end else "disconnected"
            parent = self._children.get(child.parent_launch) if child.parent_launch else None
            out.append(
                (
                    parent.session_id if parent is not None else self.root,
                    {
                        "sessionUpdate": "subagent_state_update",
                        "subagentSessionId": child.session_id,
                        "state": state,
                    },
                )
            )
        return out

    def _announce(self, launch: str, ancestors: set[str], out: list[Routed]) -> str:
        child = self._children.get(launch)
        if child is None:
            child = _Child(
                session_id=f"{self.root}:replay-subagent:{launch}",
                name="Disconnected agent",
                task="Subagent restored without persisted launch metadata",
                reconstructable=False,
            )
            self._children[launch] = child
        if launch in ancestors:
            # A lineage that loops: nothing of it can be trusted.
            child.reconstructable = False
            child.end = None
            child.parent_launch = None
        parent_session = self.root
        if child.parent_launch is not None:
            parent_session = self._announce(child.parent_launch, {*ancestors, launch}, out)
        if not child.announced:
            child.announced = True
            self._order.append(launch)
            out.append(
                (
                    parent_session,
                    {
                        "sessionUpdate": "subagent_spawned",
                        "subagentSessionId": child.session_id,
                        "name": child.name,
                        "task": child.task,
                        "capabilities": {},
                    },
                )
            )
        return child.session_id
