"""The cards of tool calls Claude is still writing: opened at the call's `content_block_start`,
refined as each field of its input completes (`adapter.view.tool_input_stream`).

The opening `tool_call` is pending with an empty input; each refinement is a `tool_call_update`
with the input so far and whichever of title, kind and locations changed since the card last
showed them. A refinement never carries content: half a diff would mislead. The finished
`assistant` message then fills the card in whole (`adapter.view.turn_view`).

Calls are known by their content block's index within the message streaming now; a new
`message_start` forgets the previous message's.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from dataclasses import dataclass, field
from typing import Any

from adapter.view.task_plan import TASK_TOOLS
from adapter.view.tool_cards import PLAN_TOOL, card_for
from adapter.view.tool_input_stream import InputScan

__all__ = ["StreamedCalls"]

Wire = dict[str, Any]
_REFINED = ("title", "kind", "locations")


@dataclass(slots=True)
class _Writing:
    tool_id: str
    name: str
    scan: InputScan = field(default_factory=InputScan)
    shown: Wire = field(default_factory=dict)  # what the card shows of `_REFINED`


class StreamedCalls:
    def __init__(self, cwd: str, *, fixed_question_title: bool = False) -> None:
        self._cwd = cwd
        # AskUserQuestion's card keeps its fixed title as its questions come in
        # (`fsm.AirClient.fixed_question_title`).
        self._fixed_question_title = fixed_question_title
        self._writing: dict[int, _Writing] = {}
        self.announced: set[str] = set()  # cards opened while their input still streamed

    def message_started(self) -> None:
        self._writing.clear()

    def started(self, index: object, block: Mapping[str, Any], known: Container[str]) -> list[Wire]:
        """A content block began; the card to open if it is a tool call (`known`: the ids of
        calls the turn has cards for already)."""
        tool_id, name = block.get("id"), block.get("name")
        if not isinstance(tool_id, str) or not isinstance(name, str) or not tool_id or not name:
            return []
        if name == PLAN_TOOL or name in TASK_TOOLS or tool_id in known:
            return []
        self.announced.add(tool_id)
        card = card_for(
            tool_id, name, {}, self._cwd, fixed_question_title=self._fixed_question_title
        )
        card["content"], card["locations"] = [], []
        card["_meta"] = {"claudeCode": {"toolName": name}}
        writing = _Writing(tool_id, name)
        writing.shown = {key: card.get(key) for key in _REFINED}
        if isinstance(index, int):
            self._writing[index] = writing
        return [card]

    def input_delta(self, index: object, partial: object) -> list[Wire]:
        """A piece of a call's input; the refinement to send if a field completed."""
        writing = self._writing.get(index) if isinstance(index, int) else None
        if writing is None or not isinstance(partial, str) or not writing.scan.feed(partial):
            return []
        fields = writing.scan.fields
        if fields is None or writing.tool_id not in self.announced:
            return []
        card = card_for(
            writing.tool_id,
            writing.name,
            fields,
            self._cwd,
            fixed_question_title=self._fixed_question_title,
        )
        update: Wire = {
            "sessionUpdate": "tool_call_update",
            "toolCallId": writing.tool_id,
            "rawInput": dict(fields),
        }
        for key in _REFINED:
            value = card.get(key)
            if value is not None and value != writing.shown.get(key):
                update[key] = writing.shown[key] = value
        update["_meta"] = {"claudeCode": {"toolName": writing.name}}
        return [update]

    def finished(self, tool_id: str) -> bool:
        """The call's finished message came: True if its card was opened here."""
        if tool_id not in self.announced:
            return False
        self.announced.discard(tool_id)
        return True

    def clear(self) -> None:
        self._writing.clear()
        self.announced.clear()
