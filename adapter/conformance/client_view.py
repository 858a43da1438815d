"""The transcript a capable client shows, rebuilt from the frames it exchanged with an agent.

Theory of operation: `ClientTranscript.apply(direction, frame)` is the client side of the
sessionFailure contract ("Identity, revisions, and history", "Actions") plus the ordinary ACP
transcript, as a small pure state machine (no I/O, never raises, whatever the frame holds):

* a record with a new id inserts a failure entry at the current stream position;
* the same id with a higher revision updates that entry in place: it does not move;
* the same or a lower revision is ignored (idempotent);
* unknown and duplicate actions are dropped, keeping the first occurrence order;
* prompts (`session/prompt` as sent), user/agent/thought message chunks and tool calls are
  entries too: consecutive chunks of one kind merge into one entry, `tool_call_update` updates
  its `tool_call` entry in place; a JSON-RPC error answering a prompt is a "rejected" entry.

A client reads records only where the contract puts them: a `session_info_update`'s `_meta`, or
the result `_meta` of a `session/prompt` response, wrapped as `_meta.jetbrains.air` with version
1, and only when every required field is well-typed (a client cannot render less). Records
elsewhere, or malformed, are not shown; reporting them is the checker's job (`checks.py`). The
view does not gate on negotiation: it shows what a capable client would make of the frames.

Entries are kept per session (a client shows one transcript per session); `session/load`
starts that session's view afresh, since the agent replays the whole conversation into it.
Frames are "outgoing" (client to agent) or "incoming" (agent to client), as in the harness.
The entries themselves, and how a record is read out of its carrier, are in `client_entries.py`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from adapter.conformance.client_entries import (
    REVISED_FIELDS,
    Carrier,
    Entry,
    FailureEntry,
    MessageEntry,
    MessageKind,
    RejectionEntry,
    ToolEntry,
    air_of,
    block_text,
    carried_record,
)
from adapter.conformance.frames import (
    as_dict,
    filter_actions,
    id_key,
    is_request,
    is_response,
)

__all__ = ["ClientTranscript"]

_CHUNKS: dict[str, MessageKind] = {
    "user_message_chunk": "user",
    "agent_message_chunk": "agent",
    "agent_thought_chunk": "thought",
}


class ClientTranscript:
    """What a capable client shows; feed it every frame in order with `apply`."""

    def __init__(self) -> None:
        self._sessions: dict[str, list[Entry]] = {}
        self._failures: dict[tuple[str, str], FailureEntry] = {}
        self._tools: dict[tuple[str, str], ToolEntry] = {}
        # The message entry that the next chunk of its kind extends, per session.
        self._open: dict[str, MessageEntry] = {}
        # The client's own requests awaiting an answer: id -> (method, sessionId).
        self._requests: dict[str, tuple[str, str]] = {}
        self._frames = 0

    @classmethod
    def from_frames(cls, frames: Iterable[tuple[str, object]]) -> ClientTranscript:
        """A transcript fed `(direction, frame)` pairs, numbered from 1."""
        transcript = cls()
        for direction, frame in frames:
            transcript.apply(direction, frame)
        return transcript

    # -- reading -------------------------------------------------------------------------

    @property
    def sessions(self) -> list[str]:
        """Session ids in order of first appearance ("" for frames that name none)."""
        return list(self._sessions)

    @property
    def entries(self) -> list[Entry]:
        """Every entry, session by session, each session in transcript order."""
        return [entry for entries in self._sessions.values() for entry in entries]

    def session_entries(self, session: str) -> list[Entry]:
        return list(self._sessions.get(session, []))

    def failures(self) -> list[FailureEntry]:
        return [e for e in self.entries if isinstance(e, FailureEntry)]

    # -- applying ------------------------------------------------------------------------

    def apply(self, direction: str, frame: object, *, frame_no: int | None = None) -> None:
        """Apply one frame. `frame_no` defaults to the count of frames applied so far."""
        self._frames += 1
        number = self._frames if frame_no is None else frame_no
        if not isinstance(frame, dict):
            return
        if direction == "outgoing" and is_request(frame):
            self._client_request(frame, number)
        elif direction == "incoming" and frame.get("method") == "session/update":
            params = as_dict(frame.get("params"))
            self._update(str(params.get("sessionId", "")), as_dict(params.get("update")), number)
        elif direction == "incoming" and is_response(frame):
            self._response(frame, number)

    def _client_request(self, frame: dict[str, Any], number: int) -> None:
        method = frame.get("method")
        params = as_dict(frame.get("params"))
        session = str(params.get("sessionId", ""))
        if "id" in frame and isinstance(method, str):
            self._requests[id_key(frame["id"])] = (method, session)
        if method == "session/load":
            self._reset(session)
        elif method == "session/prompt":
            blocks = params.get("prompt")
            text = "\n".join(block_text(b) for b in blocks) if isinstance(blocks, list) else ""
            self._insert(
                MessageEntry(
                    kind="user", session=session, text=text, first_frame=number, last_frame=number
                )
            )

    def _response(self, frame: dict[str, Any], number: int) -> None:
        # Popped: a second answer to the same id is no longer the client's concern.
        request = self._requests.pop(id_key(frame.get("id")), None)
        if request is None or request[0] != "session/prompt":
            return
        session = request[1]
        self._open.pop(session, None)  # the turn is over: its message is complete
        if "error" in frame:
            error = as_dict(frame.get("error"))
            self._insert(
                RejectionEntry(
                    session=session,
                    code=error.get("code"),
                    message=str(error.get("message", "")),
                    first_frame=number,
                    last_frame=number,
                )
            )
            return
        air = air_of(as_dict(frame.get("result")).get("_meta"))
        record = carried_record(air)
        if record is not None:
            self._record(session, record, "prompt_response", number)

    def _update(self, session: str, update: dict[str, Any], number: int) -> None:
        kind = update.get("sessionUpdate")
        if isinstance(kind, str) and kind in _CHUNKS:
            self._chunk(session, _CHUNKS[kind], block_text(update.get("content")), number)
        elif kind in ("tool_call", "tool_call_update"):
            self._tool(session, update, number)
        elif kind == "session_info_update":
            record = carried_record(air_of(update.get("_meta")))
            if record is not None:
                self._record(session, record, "session_info_update", number)

    def _chunk(self, session: str, kind: MessageKind, text: str, number: int) -> None:
        open_entry = self._open.get(session)
        if open_entry is not None and open_entry.kind == kind:
            open_entry.text += text
            open_entry.last_frame = number
            return
        entry = MessageEntry(
            kind=kind, session=session, text=text, first_frame=number, last_frame=number
        )
        self._insert(entry)
        self._open[session] = entry

    def _tool(self, session: str, update: dict[str, Any], number: int) -> None:
        call_id = str(update.get("toolCallId", ""))
        entry = self._tools.get((session, call_id))
        if entry is None:
            # An update for a call never announced still shows: there is a tool to show.
            entry = ToolEntry(
                session=session,
                tool_call_id=call_id,
                title="",
                status="",
                first_frame=number,
                last_frame=number,
            )
            self._insert(entry)
            self._tools[(session, call_id)] = entry
        if isinstance(update.get("title"), str):
            entry.title = update["title"]
        if isinstance(update.get("status"), str):
            entry.status = update["status"]
        entry.last_frame = number

    def _record(self, session: str, record: dict[str, Any], carrier: Carrier, n: int) -> None:
        key = (session, str(record["id"]))
        existing = self._failures.get(key)
        if existing is not None and record["revision"] <= existing.revision:
            return  # the same or a lower revision: idempotently ignored
        details = record.get("details")
        fresh = FailureEntry(
            session=session,
            id=key[1],
            revision=int(record["revision"]),
            category=str(record["category"]),
            severity=str(record["severity"]),
            title=str(record["title"]),
            details=details if isinstance(details, str) and details else None,
            actions=filter_actions(record["actions"]),
            carrier=carrier,
            first_frame=n,
            last_frame=n,
        )
        if existing is None:
            self._insert(fresh)
            self._failures[key] = fresh
            return
        # A higher revision: the same entry, updated where it stands (first_frame stays).
        for name in REVISED_FIELDS:
            setattr(existing, name, getattr(fresh, name))

    def _insert(self, entry: Entry) -> None:
        self._sessions.setdefault(entry.session, []).append(entry)
        # Anything new between two chunks ends the message they belong to.
        self._open.pop(entry.session, None)

    def _reset(self, session: str) -> None:
        self._sessions[session] = []
        self._open.pop(session, None)
        for store in (self._failures, self._tools):
            for key in [k for k in store if k[0] == session]:
                del store[key]
