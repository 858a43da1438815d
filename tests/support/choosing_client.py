"""Clients that answer the agent's permission questions, for the end-to-end tests:
`ChoosingClient` answers each with `choose(options)` (`kind`, `option`; None refuses), and can
hold the first one unanswered; `KindClient` picks the option of one kind, or fails the request."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import acp
from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

from tests.support.harness import RecordingClient

Chooser = Callable[[list[Any]], str | None]


class ChoosingClient(RecordingClient):
    """Answers each permission request with `choose(options)` (None refuses); with `hold`,
    the first request is never answered (until cancelled)."""

    def __init__(self, choose: Chooser, *, hold: bool = False) -> None:
        super().__init__()
        self.choose = choose
        self.hold = hold
        self.offered: list[list[Any]] = []
        self.asked = asyncio.Event()

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append(tool_call)
        self.offered.append(list(options))
        self.asked.set()
        if self.hold:
            self.hold = False
            await asyncio.Event().wait()  # never answered; cancelled with the turn
        chosen = self.choose(list(options))
        if chosen is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=chosen)
        )


def kind(wanted: str) -> Chooser:
    return lambda options: next(o.option_id for o in options if o.kind == wanted)


def option(option_id: str) -> Chooser:
    return lambda options: option_id


@dataclass(slots=True)
class KindClient(RecordingClient):
    """Picks the permission option of `kind`, or fails the request when `fail` is set."""

    kind: str = "allow_once"
    fail: bool = False
    offered: list[list[tuple[str, str]]] = field(default_factory=list)

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permission_requests.append(tool_call)
        self.offered.append([(o.option_id, o.kind) for o in options])
        if self.fail:
            raise acp.RequestError.internal_error({"reason": "the editor fell over"})
        [option] = [o for o in options if o.kind == self.kind]
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=option.option_id)
        )
