"""Notices: a model fallback, MCP server problems, auto mode and fast mode, in the form each
client understands.

Theory of operation: one `Notices` per session, the model of the small `NOTICE_MACHINE`, whose
table is the routing (docs/decisions.md#model-fallback, #acp-notices and #mcp-server-problems):

    model_fell_back [takes_warning_records]      / publish_fallback_record
    model_fell_back [takes_acp_notices]          / send_fallback_notice
    model_fell_back                              / send_fallback_text
    mcp_server_reported [is_an_unknown_shape, unknown_shape_was_logged]
    mcp_server_reported [is_an_unknown_shape]    / log_unknown_shape
    mcp_server_reported [is_a_problem, was_reported]
    mcp_server_reported [is_a_problem, signs_in_by_url]       / start_sign_in
    mcp_server_reported [is_a_problem, takes_warning_records] / publish_server_record
    mcp_server_reported [is_a_problem, takes_acp_notices]     / send_server_notice
    mcp_server_reported [is_a_problem]           / send_server_text
    mcp_server_reported                          (connected, pending, disabled: nothing)
    mcp_server_polled [signs_in_by_url, was_reported]
    mcp_server_polled [signs_in_by_url]          / start_sign_in
    mcp_server_polled                            (the rest waits for the turn's init frame)
    mcp_servers_reconnected [reconnected_a_sign_in_server] / forget_sign_ins, poll_mcp_servers
    mcp_servers_reconnected                      (none of the client's servers to sign in to)
    mcp_sign_in_ended [signed_in]                / log_sign_in
    mcp_sign_in_ended [takes_warning_records]    / log_sign_in, publish_server_record
    mcp_sign_in_ended [takes_acp_notices]        / log_sign_in, send_server_notice
    mcp_sign_in_ended                            / log_sign_in, send_server_text
    auto_mode_unavailable [auto_mode_was_told]
    auto_mode_unavailable [declared_acp_notices] / send_auto_mode_notice
    auto_mode_unavailable                        / send_auto_mode_text
    auto_mode_fell_back_at_start [auto_mode_was_told]
    auto_mode_fell_back_at_start                 / hold_auto_mode_notice
    prompt_requested [auto_mode_notice_held, declared_acp_notices] / send_auto_mode_notice
    prompt_requested [auto_mode_notice_held]     / send_auto_mode_text
    prompt_requested                             (nothing held: nothing)
    fast_mode_turned_off [declared_acp_notices]  / send_fast_off_notice
    fast_mode_turned_off                         / send_fast_off_text

A sessionFailure client gets a notice-namespace warning record; a client that declared
`session.notices` (and not sessionFailure) an ACP `notice`; any other the reference adapter's
bold agent text (docs/reference-adapter.md#notices). An MCP server is reported once per server
and state (`failed`, `needs-auth`), from Claude Code's `system/init` frames (one per turn, so a
later frame is a later status). A status of a shape the core does not know is logged once per
session and otherwise ignored; a server name that could be a path or a URL is left out of the
words. A server of the client's that needs sign-in, for a client that takes URL elicitation, is
signed in to instead (`fsm.claude.mcp_sign_in`, docs/decisions.md#mcp-sign-in), from the
`mcp_status` asked at the start (`mcp_server_polled`) or an init frame, whichever tells first; a
sign-in that ends without the server is told as the notice would have been. `/mcp reconnect` of
such a server (not being signed in to) lets it be signed in to again, as the reference's does
(docs/reference-adapter.md#mcp-sign-in): the core asks for a poll.

Auto mode and fast mode are told as the reference adapter tells them: an ACP `notice` for a
client that declared `session.notices` (a sessionFailure client too: neither has a record
form), else bold agent text. An `auto` the current model lacks becomes Accept edits and is told
once per session: at once when the client chose it, at the client's next `session/prompt` when
a new Claude process started in it (the transcript's or the settings' `auto`). Fast mode turned
off for a reason Claude Code names is told each time.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any

from fsm.claude import classify
from fsm.claude.mcp_sign_in import SIGNED_IN, sign_in_log
from fsm.effects import (
    Effect,
    LogNotice,
    PollMcpServers,
    PublishRecord,
    SendAgentText,
    SendNotice,
    SignInMcpServer,
)
from fsm.events import (
    FastModeTurnedOff,
    McpServersReconnected,
    McpServerStatus,
    McpSignInEnded,
    ModelFellBack,
)
from fsm.ledger import Ledger
from fsm.machine import build_machine, fire
from fsm.records import TITLE_LIMIT, redact
from fsm.vocabulary import FailureKind

__all__ = [
    "AUTO_MODE_UNAVAILABLE",
    "FAST_OFF_TITLE",
    "MCP_PROBLEMS",
    "MCP_STATUSES",
    "NOTICE_MACHINE",
    "TRANSITIONS",
    "NoticeState",
    "Notices",
    "plain_name",
    "server_words",
]


class NoticeState(Enum):
    ROUTING = "routing"  # the routing has no memory of its own: one state


# Claude Code's MCP server statuses; the last two are problems a user must hear of.
MCP_STATUSES = frozenset({"connected", "pending", "disabled", "failed", "needs-auth"})
MCP_PROBLEMS = {"failed": FailureKind.MCP_SERVER_FAILED, "needs-auth": FailureKind.MCP_NEEDS_AUTH}
# A name shown in a title: letters, digits and a few marks; never a path or a URL.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.@+-]{0,63}")

ROUTING = NoticeState.ROUTING
# A server whose problem is told: as Claude Code reported it, or after a sign-in that failed.
_Server = McpServerStatus | McpSignInEnded

# The reference adapter's words: (title, description, the bold text of a client without notices).
AUTO_MODE_UNAVAILABLE = (
    "Auto mode unavailable",
    "The selected model does not support Auto mode; using Accept edits instead.",
    "**Auto mode unavailable:** the selected model does not support Auto mode; "
    "using Accept edits instead.",
)
FAST_OFF_TITLE = "Fast mode turned off"


def _row(trigger: str, *before: str, when: list[str] | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {"trigger": trigger, "source": ROUTING, "dest": None}
    if before:
        row["before"] = list(before)
    if when:
        row["conditions"] = when
    return row


# fmt: off
TRANSITIONS: list[dict[str, Any]] = [
    # docs/decisions.md#model-fallback (a record), docs/decisions.md#acp-notices (an ACP notice),
    # else the reference's text.
    _row("model_fell_back", "publish_fallback_record", when=["takes_warning_records"]),
    _row("model_fell_back", "send_fallback_notice", when=["takes_acp_notices"]),
    _row("model_fell_back", "send_fallback_text"),
    # docs/decisions.md#mcp-server-problems: once per server and state; nonsense is logged once and
    # otherwise ignored.
    _row("mcp_server_reported", when=["is_an_unknown_shape", "unknown_shape_was_logged"]),
    _row("mcp_server_reported", "log_unknown_shape", when=["is_an_unknown_shape"]),
    _row("mcp_server_reported", when=["is_a_problem", "was_reported"]),
    # docs/decisions.md#mcp-sign-in: the client's server, a client that takes URL elicitation.
    _row("mcp_server_reported", "start_sign_in", when=["is_a_problem", "signs_in_by_url"]),
    _row("mcp_server_reported", "publish_server_record",
         when=["is_a_problem", "takes_warning_records"]),
    _row("mcp_server_reported", "send_server_notice", when=["is_a_problem", "takes_acp_notices"]),
    _row("mcp_server_reported", "send_server_text", when=["is_a_problem"]),
    _row("mcp_server_reported"),
    # Claude Code's `mcp_status` at the start: only a sign-in starts from it.
    _row("mcp_server_polled", when=["signs_in_by_url", "was_reported"]),
    _row("mcp_server_polled", "start_sign_in", when=["signs_in_by_url"]),
    _row("mcp_server_polled"),
    # `/mcp reconnect`: the client's servers it tried may be signed in to again.
    _row("mcp_servers_reconnected", "forget_sign_ins", "poll_mcp_servers",
         when=["reconnected_a_sign_in_server"]),
    _row("mcp_servers_reconnected"),
    # A sign-in that did not connect the server is told as its problem would have been.
    _row("mcp_sign_in_ended", "log_sign_in", when=["signed_in"]),
    _row("mcp_sign_in_ended", "log_sign_in", "publish_server_record",
         when=["takes_warning_records"]),
    _row("mcp_sign_in_ended", "log_sign_in", "send_server_notice", when=["takes_acp_notices"]),
    _row("mcp_sign_in_ended", "log_sign_in", "send_server_text"),
    # An `auto` the model lacks, as the reference tells it: once per session, a start-up one
    # at the client's next prompt.
    _row("auto_mode_unavailable", when=["auto_mode_was_told"]),
    _row("auto_mode_unavailable", "send_auto_mode_notice", when=["declared_acp_notices"]),
    _row("auto_mode_unavailable", "send_auto_mode_text"),
    _row("auto_mode_fell_back_at_start", when=["auto_mode_was_told"]),
    _row("auto_mode_fell_back_at_start", "hold_auto_mode_notice"),
    _row("prompt_requested", "send_auto_mode_notice",
         when=["auto_mode_notice_held", "declared_acp_notices"]),
    _row("prompt_requested", "send_auto_mode_text", when=["auto_mode_notice_held"]),
    _row("prompt_requested"),
    # Fast mode turned off for a reason Claude Code names: each time.
    _row("fast_mode_turned_off", "send_fast_off_notice", when=["declared_acp_notices"]),
    _row("fast_mode_turned_off", "send_fast_off_text"),
]
# fmt: on

NOTICE_MACHINE = build_machine(
    name="notices", states=NoticeState, transitions=TRANSITIONS, initial=ROUTING
)


def plain_name(name: str | None) -> str | None:
    """The server's name if it can be shown (it cannot be a path, a URL or a line break)."""
    return name if name and _PLAIN_NAME.fullmatch(name) else None


def server_words(name: str | None, status: str) -> tuple[str, str, str]:
    """(record title, notice title, description) for a server's problem: the record's title is
    docs/decisions.md#mcp-server-problems', the notice's and the description the reference
    adapter's."""
    shown = f'MCP server "{name}"' if plain_name(name) else "An MCP server"
    if status == "failed":
        title = f"{shown} failed to start"
        return title, title, "Its tools are unavailable in this session. Run /mcp for the error."
    title = f"{shown} needs authentication"
    return (
        f"{title} \u00b7 run /mcp",
        title,
        "Its tools are unavailable until the server is authenticated.",
    )


class Notices:
    """The session's notice routing. `records`: warnings are records (sessionFailure);
    `acp_notices`: warnings are ACP notices (the client declared `session.notices`, and not
    sessionFailure); `declared_acp_notices`: the client declared `session.notices` (whatever
    else it declared: auto mode and fast mode have no record form). `live_turn` names the live
    turn (a fallback notice's id is reused only within one turn,
    docs/decisions.md#notice-identity)."""

    state: NoticeState

    def __init__(
        self,
        *,
        ledger: Ledger,
        records: bool,
        acp_notices: bool,
        private: tuple[str, ...],
        live_turn: Any,
        declared_acp_notices: bool = False,
        sign_in_servers: frozenset[str] = frozenset(),
    ) -> None:
        self.ledger, self.records, self.acp_notices = ledger, records, acp_notices
        # The client's MCP servers signed in to when they need it (`fsm.claude.mcp_sign_in`).
        self.sign_in_servers = sign_in_servers
        self.signing_in: set[str] = set()  # sign-ins under way, by server
        self.declared_notices = declared_acp_notices
        self.private = private
        self._live_turn = live_turn
        self.effects: list[Effect] = []
        self.reported: set[tuple[str, str]] = set()
        self.logged_unknown_shape = False
        self.told_auto_mode = False  # the auto-mode notice went out (once per session)
        self.holding_auto_mode = False  # a start-up auto-mode notice waits for a prompt
        NOTICE_MACHINE.add_model(self, initial=ROUTING)

    def detach(self) -> None:
        NOTICE_MACHINE.remove_model(self)

    def fire(self, trigger: str, arg: Any) -> list[Effect]:
        self.effects = []
        fire(NOTICE_MACHINE, self, trigger, arg)
        effects, self.effects = self.effects, []
        return effects

    def fell_back(self, event: ModelFellBack) -> list[Effect]:
        return self.fire("model_fell_back", event)

    def servers_reported(self, servers: tuple[McpServerStatus, ...]) -> list[Effect]:
        return [effect for server in servers for effect in self.fire("mcp_server_reported", server)]

    def servers_polled(self, servers: tuple[McpServerStatus, ...]) -> list[Effect]:
        return [effect for server in servers for effect in self.fire("mcp_server_polled", server)]

    # --- guards ----------------------------------------------------------------------------

    def takes_warning_records(self, *_: Any) -> bool:
        return self.records

    def takes_acp_notices(self, *_: Any) -> bool:
        return self.acp_notices

    def declared_acp_notices(self, *_: Any) -> bool:
        return self.declared_notices

    def is_an_unknown_shape(self, server: McpServerStatus) -> bool:
        return not server.name or server.status not in MCP_STATUSES

    def unknown_shape_was_logged(self, *_: Any) -> bool:
        return self.logged_unknown_shape

    def is_a_problem(self, server: McpServerStatus) -> bool:
        return server.status in MCP_PROBLEMS

    def was_reported(self, server: McpServerStatus) -> bool:
        return (server.name or "", server.status or "") in self.reported

    def signs_in_by_url(self, server: McpServerStatus) -> bool:
        return server.status == "needs-auth" and server.name in self.sign_in_servers

    def reconnected_a_sign_in_server(self, event: McpServersReconnected) -> bool:
        return any(self._may_sign_in_again(name) for name in event.names)

    def _may_sign_in_again(self, name: str) -> bool:
        return name in self.sign_in_servers and name not in self.signing_in

    def signed_in(self, ended: McpSignInEnded) -> bool:
        return ended.outcome in SIGNED_IN

    def auto_mode_was_told(self, *_: Any) -> bool:
        return self.told_auto_mode

    def auto_mode_notice_held(self, *_: Any) -> bool:
        return self.holding_auto_mode

    # --- the model fallback -----------------------------------------------------------------

    def _fallback_text(self, event: ModelFellBack) -> str:
        text = classify.model_fallback_text(
            original_model=event.original_model,
            fallback_model=event.fallback_model,
            refusal_category=event.refusal_category,
            explanation=event.explanation,
            direction=event.direction,
            scope=event.scope,
        )
        return redact(text, self.private)

    def publish_fallback_record(self, event: ModelFellBack) -> None:
        record = self.ledger.propose_notice(self._fallback_text(event), turn_id=self._live_turn())
        self.effects.append(PublishRecord(record=record))

    def send_fallback_notice(self, event: ModelFellBack) -> None:
        # The reference's split: the summary is the title unless too long, the explanation
        # (or the whole text) the description.
        summary, _, explanation = self._fallback_text(event).partition("\n\n")
        if len(summary) > TITLE_LIMIT:
            summary, explanation = "Model fallback", f"{summary}\n\n{explanation}".strip()
        notice = SendNotice(severity="warning", title=summary, description=explanation or None)
        self.effects.append(notice)

    def send_fallback_text(self, event: ModelFellBack) -> None:
        # Legacy and agentError-only clients read it in the transcript.
        self.effects.append(SendAgentText(text=f"**Model fallback:** {self._fallback_text(event)}"))

    # --- MCP servers ------------------------------------------------------------------------

    def log_unknown_shape(self, *_: Any) -> None:
        # Not the value itself: a malformed status may hold anything, paths and tokens too.
        self.logged_unknown_shape = True
        self.effects.append(LogNotice(message="ignored an MCP server status of an unknown shape"))

    def _words(self, server: _Server) -> tuple[str, str, str]:
        assert server.status is not None  # `is_a_problem` holds
        self.reported.add((server.name or "", server.status))
        record_title, title, description = server_words(server.name, server.status)
        return (
            redact(record_title, self.private),
            redact(title, self.private),
            description,
        )

    def start_sign_in(self, server: McpServerStatus) -> None:
        assert server.name is not None and server.status is not None  # `signs_in_by_url`
        self.reported.add((server.name, server.status))  # once per server and state
        self.signing_in.add(server.name)
        self.effects.append(SignInMcpServer(name=server.name))

    def forget_sign_ins(self, event: McpServersReconnected) -> None:
        for name in event.names:
            if self._may_sign_in_again(name):
                self.reported.discard((name, "needs-auth"))

    def poll_mcp_servers(self, *_: Any) -> None:
        self.effects.append(PollMcpServers())

    def log_sign_in(self, ended: McpSignInEnded) -> None:
        self.signing_in.discard(ended.name)
        shown = redact(plain_name(ended.name) or "", self.private) or None
        self.effects.append(LogNotice(message=sign_in_log(shown, ended.outcome)))

    def publish_server_record(self, server: _Server) -> None:
        record_title, _, _ = self._words(server)
        assert server.status is not None
        kind = MCP_PROBLEMS[server.status]
        record = self.ledger.propose_notice(record_title, turn_id=None, kind=kind)
        self.effects.append(PublishRecord(record=record))

    def send_server_notice(self, server: _Server) -> None:
        _, title, description = self._words(server)
        severity = "warning" if server.status == "failed" else "info"
        self.effects.append(SendNotice(severity=severity, title=title, description=description))

    def send_server_text(self, server: _Server) -> None:
        _, title, description = self._words(server)
        server_name = redact(plain_name(server.name) or "", self.private)
        meta = {"claudeCode": {"kind": "mcpServerStatus", "server": server_name,
                               "status": server.status}}  # fmt: skip
        self.effects.append(SendAgentText(text=f"**{title}:** {description}", meta=meta))

    # --- auto mode and fast mode ------------------------------------------------------------

    def hold_auto_mode_notice(self, *_: Any) -> None:
        self.holding_auto_mode = True

    def _auto_mode_told(self) -> tuple[str, str, str]:
        self.told_auto_mode, self.holding_auto_mode = True, False
        return AUTO_MODE_UNAVAILABLE

    def send_auto_mode_notice(self, *_: Any) -> None:
        title, description, _text = self._auto_mode_told()
        self.effects.append(SendNotice(severity="warning", title=title, description=description))

    def send_auto_mode_text(self, *_: Any) -> None:
        _title, _description, text = self._auto_mode_told()
        self.effects.append(SendAgentText(text=text))

    def send_fast_off_notice(self, event: FastModeTurnedOff) -> None:
        explanation = redact(event.explanation, self.private)
        description = f"{explanation[0].upper()}{explanation[1:]}."
        notice = SendNotice(severity="warning", title=FAST_OFF_TITLE, description=description)
        self.effects.append(notice)

    def send_fast_off_text(self, event: FastModeTurnedOff) -> None:
        explanation = redact(event.explanation, self.private)
        self.effects.append(SendAgentText(text=f"**{FAST_OFF_TITLE}:** {explanation}."))
