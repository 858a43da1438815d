"""The conformance checker: every way a wire log breaks the sessionFailure contract or JSON-RPC.

Theory of operation: `Checker.feed` takes the log's lines in order, keeps the state the rules
need across frames (requests awaiting answers per direction, what the client negotiated, the
turn each session is in) and records a `Violation` with
the frame's line number for every breach; `finish` adds what only the end of the log can tell
(a prompt never answered, a title repeated as agent text) and returns the `Report`. Rules on
one record live in `record_checks.py` (with the revisions they track) and `record_rules.py`,
rules on initialize answers, errors and agent_error updates in `response_rules.py`, turn-aware
ones in `turn_rules.py`, the rule names in `rules.py`. Every frame is also applied to a
`ClientTranscript`, the same client-side rules the end-to-end tests use, so the report shows
what a client made of the log. The checker judges the wire only, so it works for any agent, not
just ours.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from adapter.conformance.client_view import ClientTranscript
from adapter.conformance.contract import agent_error_negotiated, session_failure_negotiated
from adapter.conformance.frames import (
    as_dict,
    find_records,
    id_key,
    rpc_problems,
)
from adapter.conformance.log import Direction, LogFrame, LogLine
from adapter.conformance.record_checks import RecordWatch, Request
from adapter.conformance.response_rules import (
    advertising_problems,
    agent_error_problems,
    error_problems,
)
from adapter.conformance.rules import RULES
from adapter.conformance.turn_rules import EchoWatch, IdWatch

__all__ = ["RULES", "Checker", "Report", "Violation", "check_log"]


@dataclass(frozen=True, slots=True)
class Violation:
    frame: int  # the 1-based line number of the frame in the log
    rule: str  # a key of RULES
    message: str


@dataclass(slots=True)
class Report:
    frames: int
    records: int
    violations: list[Violation]
    transcript: ClientTranscript
    negotiated: bool | None  # None: the log holds no initialize request


class Checker:
    """Feed it every log line in order (`feed`), then call `finish` once."""

    def __init__(self) -> None:
        self.transcript = ClientTranscript()
        self.violations: list[Violation] = []
        self.frames = 0
        self.records = 0
        # The latest initialize decides; None until the log shows one.
        self.negotiated: bool | None = None
        self.air_client = True  # until the client's initialize says otherwise
        self.agent_error = False
        # Keyed by the direction the request travelled and its JSON id: each peer numbers its own.
        self._requests: dict[tuple[Direction, str], Request] = {}
        self._loading: set[str] = set()  # sessions whose session/load is not answered yet
        self._echo = EchoWatch(self._flag)
        self._ids = IdWatch(self._flag)
        self._records = RecordWatch(self._flag, self._ids, self._echo)

    def _flag(self, line: int, rule: str, message: str) -> None:
        assert rule in RULES, rule
        self.violations.append(Violation(line, rule, message))

    def feed(self, item: LogLine) -> None:
        if not isinstance(item, LogFrame):
            self._flag(item.line, "unparseable", item.reason)
            return
        self.frames += 1
        # A JSON-RPC batch is legal JSON-RPC 2.0 (ACP itself never sends one): check each part.
        parts = item.message if isinstance(item.message, list) and item.message else [item.message]
        for part in parts:
            self._frame(item.direction, part, item.line)

    def finish(self) -> Report:
        for (direction, _), request in self._requests.items():
            if (
                direction == "outgoing"
                and request.method == "session/prompt"
                and request.answered_at is None
            ):
                self._flag(
                    request.line,
                    "unanswered-prompt",
                    "this session/prompt got no response by the end of the log",
                )
        self._echo.finish()
        self.violations.sort(key=lambda v: v.frame)  # stable: same-frame order is kept
        return Report(
            self.frames, self.records, list(self.violations), self.transcript, self.negotiated
        )

    # -- one frame -----------------------------------------------------------------------

    def _frame(self, direction: Direction, frame: object, line: int) -> None:
        for problem in rpc_problems(frame):
            self._flag(line, "not-jsonrpc", problem)
        if not isinstance(frame, dict):
            return
        request: Request | None = None
        if isinstance(frame.get("method"), str):
            self._request(direction, frame, line)
        elif "id" in frame and ("result" in frame or "error" in frame):
            request = self._response(direction, frame, line)
        if direction == "incoming" and frame.get("method") == "session/update":
            self._update(as_dict(frame.get("params")), line)
        for found in find_records(frame):
            self.records += 1
            self._records.check(direction, frame, found, request, line, negotiated=self.negotiated)
        self.transcript.apply(direction, frame, frame_no=line)

    def _request(self, direction: Direction, frame: dict[str, Any], line: int) -> None:
        method = str(frame["method"])
        params = as_dict(frame.get("params"))
        session = str(params.get("sessionId", ""))
        if "id" in frame:
            self._requests[(direction, id_key(frame["id"]))] = Request(method, session, line)
        if direction != "outgoing":
            return
        if method == "initialize":
            meta = as_dict(params.get("clientCapabilities")).get("_meta")
            self.negotiated = session_failure_negotiated(meta)
            self.agent_error = agent_error_negotiated(meta)
            # The advertisement is owed to JetBrains AIR only (docs/decisions.md#advertising).
            # Its own reading of the contract: `_meta.jetbrains.air` is an object.
            self.air_client = isinstance(as_dict(as_dict(meta).get("jetbrains")).get("air"), dict)
        elif method == "session/load":
            self._records.session_loaded(session)
            self._loading.add(session)
            self._echo.turn_began(session)
            self._ids.session_loaded(session)
        elif method == "session/prompt":
            self._echo.turn_began(session)
            self._ids.prompt_sent(session, line)

    def _response(self, direction: Direction, frame: dict[str, Any], line: int) -> Request | None:
        asked_by: Direction = "incoming" if direction == "outgoing" else "outgoing"
        request = self._requests.get((asked_by, id_key(frame["id"])))
        who = "agent" if direction == "incoming" else "client"
        if request is None:
            self._flag(
                line,
                "unknown-response",
                f"the {who} answers id {json.dumps(frame['id'])}, which was never requested",
            )
            return None
        if request.answered_at is not None:
            self._flag(
                line,
                "duplicate-response",
                f"the {request.method} request of frame {request.line} was already answered "
                f"at frame {request.answered_at}",
            )
            return request
        request.answered_at = line
        if direction == "incoming":
            self._agent_answer(request, frame, line)
        return request

    def _agent_answer(self, request: Request, frame: dict[str, Any], line: int) -> None:
        if request.method == "session/prompt":
            self._ids.prompt_answered(request.session)
        elif request.method == "session/load":
            self._loading.discard(request.session)
        problems: list[tuple[str, str]] = []
        if "error" in frame:
            problems = error_problems(as_dict(frame.get("error")))
        elif request.method == "initialize":
            problems = advertising_problems(as_dict(frame.get("result")), air=self.air_client)
        for rule, message in problems:
            self._flag(line, rule, message)

    def _update(self, params: dict[str, Any], line: int) -> None:
        session = str(params.get("sessionId", ""))
        update = as_dict(params.get("update"))
        kind = update.get("sessionUpdate")
        if not isinstance(kind, str):
            return
        content = as_dict(update.get("content"))
        text = content.get("text") if content.get("type") == "text" else ""
        self._echo.update(session, kind, text if isinstance(text, str) else "", line)
        if kind == "agent_error":
            problems = agent_error_problems(
                update, opted_in=self.agent_error, replaying=session in self._loading
            )
            for rule, message in problems:
                self._flag(line, rule, message)


def check_log(lines: Iterable[LogLine]) -> Report:
    """Check a whole log (as `read_log` returns it)."""
    checker = Checker()
    for item in lines:
        checker.feed(item)
    return checker.finish()
