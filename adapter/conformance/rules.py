"""The checker's rules: one name and one sentence each, in the order `--help` lists them.

Each rule is something a wire log can show about the sessionFailure extension of
claude-agent-acp (its negotiation, record, identity, carrier and title rules) and this
project's rulings where that extension is silent, or about JSON-RPC 2.0 itself.
"""

from __future__ import annotations

__all__ = ["RULES"]

RULES: dict[str, str] = {
    # The log and JSON-RPC 2.0.
    "unparseable": "a log line that is not a readable, directed frame",
    "not-jsonrpc": "a frame that is not a JSON-RPC 2.0 request, notification or response",
    "unknown-response": "a response to a request id never sent",
    "duplicate-response": "a request answered more than once",
    "unanswered-prompt": "a session/prompt with no answer by the end of the log",
    # Negotiation.
    "not-advertised": "an initialize answer whose _meta.jetbrains.air does not offer "
    "sessionFailure at version 1",
    "advertised-to-non-air": "an initialize answer with _meta.jetbrains for a client that did "
    "not declare _meta.jetbrains.air",
    "not-negotiated": "a record sent to a client that did not opt in to sessionFailure",
    "agent-error-surface": "an agent_error update to a client that did not opt in to "
    "agentError, or one sent while replaying a session/load",
    # Where a record rides.
    "record-carrier": "a record anywhere but a session_info_update or a session/prompt result",
    "air-version": "the _meta.jetbrains.air object holding a record has a version other than 1",
    "air-extra-key": "the _meta.jetbrains.air object holding a record has keys besides version "
    "and sessionFailure",
    "record-stop-reason": "a prompt response carrying a record whose stopReason is not end_turn "
    "(refusals and cancellations are never records)",
    "warning-on-prompt": "a warning on a prompt response: a warning never ends a turn",
    "turn-error-carrier": "a turn's error (<turnId>:error, severity error) on a "
    "session_info_update while that turn's prompt is unanswered: it belongs on the prompt "
    "response",
    # The record itself.
    "record-field": "a required field missing or ill-typed, or an empty details",
    "record-extra-key": "a record key outside id/revision/category/severity/title/details/actions",
    "record-actions": "an action outside retry/login/new_session, or the same action twice",
    "warning-actions": "a warning that carries actions",
    "title-too-long": "a title over 256 characters (longer text keeps its first line or "
    "sentence as the title and the rest as details)",
    "title-paragraphs": "a title of several paragraphs, or a title with details that is not a "
    "single line",
    "title-bare-code": "a title that is a bare code such as error_max_turns, not words",
    "title-leak": "a title or details holding a credential, a private home path, a stack trace "
    "or an exception string",
    "record-details": "details that repeat the title",
    # Identity and revisions.
    "revision-backwards": "a record whose revision is lower than one already sent for its id",
    "revision-conflict": "a revision repeated with different content",
    "turn-id": "a prompt response's record whose id is not <turnId>:error, or whose id another "
    "prompt's response already used",
    "id-counter": "a new <sessionId>:session-error or :notice id that names another session, or "
    "whose counter does not rise within its runtime epoch",
    "notice-reused": "a notice id revised in a later turn than the one it was first sent in "
    "(a later occurrence takes a new id)",
    # The transcript.
    "title-as-agent-text": "a record's title (with its details) also sent as agent message text "
    "in the same turn: Claude's words are shown once, as the record",
    "error-leak": "a JSON-RPC error or an agent_error message from the agent holding a "
    "credential, a private home path or a stack trace",
}
