"""The conformance checker's rules on one sessionFailure record, with the state they keep: the
latest revision of every record id per session (which `session/load` starts over).

Split from `checks.py`: `Checker` finds the records in each frame and hands each to
`RecordWatch.check`, with the request the frame answers. Field-level rules live in
`record_rules.py` and `frames.py`; the identity rules across a turn in `turn_rules.py`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from adapter.conformance.frames import FoundRecord, as_dict, record_field_problems
from adapter.conformance.log import Direction
from adapter.conformance.record_rules import record_problems
from adapter.conformance.turn_rules import EchoWatch, Flag, IdWatch

__all__ = ["RecordWatch", "Request"]

_INFO_PATH = ("params", "update", "_meta", "jetbrains", "air", "sessionFailure")
_PROMPT_PATH = ("result", "_meta", "jetbrains", "air", "sessionFailure")


@dataclass(slots=True)
class Request:
    """A request seen in the log, and the frame that answered it (None: not yet)."""

    method: str
    session: str
    line: int
    answered_at: int | None = None


@dataclass(slots=True)
class _Revision:
    revision: int
    content: str  # canonical JSON of the whole record
    line: int


class RecordWatch:
    """The record rules; `flag`, `ids` and `echo` are the `Checker`'s."""

    def __init__(self, flag: Flag, ids: IdWatch, echo: EchoWatch) -> None:
        self._flag = flag
        self._ids = ids
        self._echo = echo
        self._revisions: dict[tuple[str, str], _Revision] = {}

    def session_loaded(self, session: str) -> None:
        """The agent replays the session into a fresh client view: its records start over."""
        for key in [k for k in self._revisions if k[0] == session]:
            del self._revisions[key]

    def _carrier(
        self,
        direction: Direction,
        frame: dict[str, Any],
        found: FoundRecord,
        request: Request | None,
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

    def check(
        self,
        direction: Direction,
        frame: dict[str, Any],
        found: FoundRecord,
        request: Request | None,
        line: int,
        *,
        negotiated: bool | None,
    ) -> None:
        """Flag every breach by one record found in `frame`; `negotiated` is what the latest
        initialize decided (None: the log holds none yet)."""
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
        if negotiated is not True:
            self._flag(
                line,
                "not-negotiated",
                "a record, but the log holds no initialize request"
                if negotiated is None
                else "a record, but the client's initialize did not negotiate sessionFailure",
            )
        problems = record_field_problems(found.record)
        for problem in problems:
            self._flag(line, "record-field", problem)
        if not isinstance(found.record, dict):
            return
        record: dict[str, Any] = found.record
        for rule, message in record_problems(record, found.air):
            self._flag(line, rule, message)
        on_prompt = ok and request is not None
        if on_prompt:
            self._prompt_carrier(frame, record, line)
        if ok and not problems:
            self._accepted(
                frame, record, request if on_prompt else None, line, negotiated=negotiated
            )

    def _prompt_carrier(self, frame: dict[str, Any], record: dict[str, Any], line: int) -> None:
        stop = as_dict(frame.get("result")).get("stopReason")
        if stop != "end_turn":
            self._flag(
                line,
                "record-stop-reason",
                f"a prompt response carrying a record has stopReason {json.dumps(stop)}, "
                f'not "end_turn"',
            )
        if record.get("severity") == "warning":
            self._flag(line, "warning-on-prompt", "a warning record on a prompt response")

    def _accepted(
        self,
        frame: dict[str, Any],
        record: dict[str, Any],
        prompt: Request | None,
        line: int,
        *,
        negotiated: bool | None,
    ) -> None:
        # A well-formed record on its carrier: the identity and transcript rules apply.
        session = (
            prompt.session
            if prompt is not None
            else str(as_dict(frame.get("params")).get("sessionId", ""))
        )
        rid, revision = str(record["id"]), int(record["revision"])
        self._revision(session, record, line)
        if prompt is not None:
            self._ids.prompt_record(session, rid, prompt.line, line)
        else:
            self._ids.info_record(session, rid, str(record["severity"]), line)
        self._ids.record(session, rid, revision, line, category=str(record.get("category")))
        if negotiated:
            details = record.get("details")
            self._echo.record(
                session, rid, str(record["title"]), details if isinstance(details, str) else None
            )

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
