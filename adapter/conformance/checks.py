"""The conformance checker: every way a wire log breaks the sessionFailure contract or JSON-RPC.

Theory of operation: `Checker.feed` takes the log's lines in order, keeps the state the rules
need across frames (requests awaiting answers per direction, whether the client negotiated the
extension, the latest revision of every record id) and records a `Violation` with the frame's
line number for every breach; `finish` adds what only the end of the log can tell (a prompt
never answered) and returns the `Report`. Every frame is also applied to a `ClientTranscript`,
the same client-side rules the end-to-end tests use, so the report shows what a client made of
the log. The checker judges the wire only, so it works for any agent, not just ours.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from adapter.conformance.client_view import ClientTranscript, FailureEntry, MessageEntry
from adapter.conformance.frames import (
    FoundRecord,
    as_dict,
    details_problems,
    find_records,
    id_key,
    record_field_problems,
    rpc_problems,
)
from adapter.conformance.log import Direction, LogFrame, LogLine
from fsm.negotiation import session_failure_negotiated
from fsm.wire import SESSION_FAILURE_KEYS

__all__ = ["RULES", "Checker", "Report", "Violation", "check_log"]

RULES: dict[str, str] = {
    "unparseable": "a log line that is not a readable, directed frame",
    "not-jsonrpc": "a frame that is not a JSON-RPC 2.0 request, notification or response",
    "unknown-response": "a response to a request id never sent",
    "duplicate-response": "a request answered more than once",
    "unanswered-prompt": "a session/prompt with no answer by the end of the log",
    "record-carrier": "a record anywhere but a session_info_update or a session/prompt result",
    "air-version": "_meta.jetbrains.air.version beside a record is not 1",
    "record-field": "a required field missing or ill-typed, or an empty details",
    "record-extra-key": "a record key outside id/revision/category/severity/title/details/actions",
    "warning-actions": "a warning that carries actions",
    "record-details": "details that repeat the title, or that the title alone would have held",
    "record-stop-reason": "a prompt response carrying a record whose stopReason is not end_turn",
    "revision-backwards": "a record whose revision is lower than one already sent for its id",
    "revision-conflict": "a revision repeated with different content",
    "not-negotiated": "a record sent to a client that did not negotiate sessionFailure",
    "title-as-agent-text": "a record's title also sent as agent message text (DECISIONS row 20)",
}

_INFO_PATH = ("params", "update", "_meta", "jetbrains", "air", "sessionFailure")
_PROMPT_PATH = ("result", "_meta", "jetbrains", "air", "sessionFailure")


@dataclass(frozen=True, slots=True)
class Violation:
    frame: int  # the 1-based line number of the frame in the log
    rule: str  # a key of RULES
    message: str


@dataclass(slots=True)
class _Request:
    method: str
    session: str
    line: int
    answered_at: int | None = None


@dataclass(slots=True)
class _Revision:
    revision: int
    content: str  # canonical JSON of the whole record
    line: int


@dataclass(slots=True)
class Report:
    frames: int
    records: int
    violations: list[Violation]
    transcript: ClientTranscript
    negotiated: bool | None  # None: the log holds no initialize request


@dataclass(slots=True)
class Checker:
    transcript: ClientTranscript = field(default_factory=ClientTranscript)
    violations: list[Violation] = field(default_factory=list)
    frames: int = 0
    records: int = 0
    # The latest initialize decides; None until the log shows one.
    negotiated: bool | None = None
    # Keyed by the direction the request travelled and its JSON id: each peer numbers its own.
    _requests: dict[tuple[Direction, str], _Request] = field(default_factory=dict)
    _revisions: dict[tuple[str, str], _Revision] = field(default_factory=dict)

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
        if self.negotiated:
            self._title_as_agent_text()
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
        request: _Request | None = None
        if isinstance(frame.get("method"), str):
            self._request(direction, frame, line)
        elif "id" in frame and ("result" in frame or "error" in frame):
            request = self._response(direction, frame, line)
        for found in find_records(frame):
            self.records += 1
            self._record(direction, frame, found, request, line)
        self.transcript.apply(direction, frame, frame_no=line)

    def _request(self, direction: Direction, frame: dict[str, Any], line: int) -> None:
        method = str(frame["method"])
        params = as_dict(frame.get("params"))
        session = str(params.get("sessionId", ""))
        if "id" in frame:
            self._requests[(direction, id_key(frame["id"]))] = _Request(method, session, line)
        if direction == "outgoing" and method == "initialize":
            capabilities = as_dict(params.get("clientCapabilities"))
            self.negotiated = session_failure_negotiated(capabilities.get("_meta"))
        elif direction == "outgoing" and method == "session/load":
            # The agent replays the session into a fresh client view: its records start over.
            for key in [k for k in self._revisions if k[0] == session]:
                del self._revisions[key]

    def _response(self, direction: Direction, frame: dict[str, Any], line: int) -> _Request | None:
        asked_by: Direction = "incoming" if direction == "outgoing" else "outgoing"
        request = self._requests.get((asked_by, id_key(frame["id"])))
        who = "agent" if direction == "incoming" else "client"
        if request is None:
            self._flag(
                line,
                "unknown-response",
                f"the {who} answers id {json.dumps(frame['id'])}, which was never requested",
            )
        elif request.answered_at is not None:
            self._flag(
                line,
                "duplicate-response",
                f"the {request.method} request of frame {request.line} was already answered "
                f"at frame {request.answered_at}",
            )
        else:
            request.answered_at = line
        return request

    # -- one record ----------------------------------------------------------------------

    def _carrier(
        self,
        direction: Direction,
        frame: dict[str, Any],
        found: FoundRecord,
        request: _Request | None,
    ) -> tuple[bool, str]:
        """(is it a contract carrier, how to name the surface it rode on)."""
        if direction == "outgoing":
            return False, f"a client-to-agent {frame.get('method') or 'response'}"
        method = frame.get("method")
        if method == "session/update":
            update = as_dict(as_dict(frame.get("params")).get("update"))
            kind = update.get("sessionUpdate")
            ok = kind == "session_info_update" and found.path == _INFO_PATH
            return ok, f"a session/update {kind}"
        if isinstance(method, str):
            return False, f"a {method} request"
        if request is None:
            return False, "a response to an unknown request"
        if "error" in frame:
            return False, f"a {request.method} error response"
        ok = request.method == "session/prompt" and found.path == _PROMPT_PATH
        return ok, f"a {request.method} response"

    def _record(
        self,
        direction: Direction,
        frame: dict[str, Any],
        found: FoundRecord,
        request: _Request | None,
        line: int,
    ) -> None:
        ok, surface = self._carrier(direction, frame, found, request)
        if not ok:
            self._flag(
                line,
                "record-carrier",
                f"a sessionFailure record on {surface} (at {found.where}); records ride only "
                f"a session_info_update's _meta or a session/prompt result's _meta",
            )
        if found.air is not None:
            version = found.air.get("version")
            if type(version) is not int or version != 1:
                self._flag(
                    line, "air-version", f"_meta.jetbrains.air.version is {json.dumps(version)}"
                )
        if self.negotiated is not True:
            self._flag(
                line,
                "not-negotiated",
                "a record, but the log holds no initialize request"
                if self.negotiated is None
                else "a record, but the client's initialize did not negotiate sessionFailure",
            )
        problems = record_field_problems(found.record)
        for problem in problems:
            self._flag(line, "record-field", problem)
        if not isinstance(found.record, dict):
            return
        record: dict[str, Any] = found.record
        self._soft_rules(record, line)
        if ok and request is not None:
            stop = as_dict(frame.get("result")).get("stopReason")
            if stop != "end_turn":
                self._flag(
                    line,
                    "record-stop-reason",
                    f"a prompt response carrying a record has stopReason {json.dumps(stop)}, "
                    f'not "end_turn"',
                )
        if ok and not problems:
            session = (
                request.session
                if request is not None
                else str(as_dict(frame.get("params")).get("sessionId", ""))
            )
            self._revision(session, record, line)

    def _soft_rules(self, record: dict[str, Any], line: int) -> None:
        extra = sorted(str(k) for k in record if k not in SESSION_FAILURE_KEYS)
        if extra:
            self._flag(line, "record-extra-key", f"keys outside the contract: {', '.join(extra)}")
        actions = record.get("actions")
        if record.get("severity") == "warning" and isinstance(actions, list) and actions:
            self._flag(line, "warning-actions", f"a warning with actions {json.dumps(actions)}")
        title, details = record.get("title"), record.get("details")
        if isinstance(title, str) and title.strip() and isinstance(details, str) and details:
            for problem in details_problems(title, details):
                self._flag(line, "record-details", problem)

    def _revision(self, session: str, record: dict[str, Any], line: int) -> None:
        key = (session, str(record["id"]))
        revision = int(record["revision"])
        content = json.dumps(record, sort_keys=True)
        previous = self._revisions.get(key)
        if previous is None or revision > previous.revision:
            self._revisions[key] = _Revision(revision, content, line)
        elif revision < previous.revision:
            self._flag(
                line,
                "revision-backwards",
                f"id {record['id']!r} goes from revision {previous.revision} (frame "
                f"{previous.line}) back to {revision}",
            )
        elif content != previous.content:
            self._flag(
                line,
                "revision-conflict",
                f"id {record['id']!r} repeats revision {revision} (first at frame "
                f"{previous.line}) with different content",
            )

    # -- whole transcript ----------------------------------------------------------------

    def _title_as_agent_text(self) -> None:
        # Row 20: the prose that became a record's title is not also assistant text.
        for session in self.transcript.sessions:
            entries = self.transcript.session_entries(session)
            titles = {e.title.strip() for e in entries if isinstance(e, FailureEntry)}
            for entry in entries:
                if not isinstance(entry, MessageEntry) or entry.kind != "agent":
                    continue
                for title in sorted(t for t in titles if t and t in entry.text):
                    self._flag(
                        entry.first_frame,
                        "title-as-agent-text",
                        f"agent text repeats the record title {title!r}",
                    )


def check_log(lines: Iterable[LogLine]) -> Report:
    """Check a whole log (as `read_log` returns it)."""
    checker = Checker()
    for item in lines:
        checker.feed(item)
    return checker.finish()
