"""`/remote-control`: continuing a session from claude.ai or the Claude mobile app, as the
reference adapter offers it (`parseRemoteControlCommand`, `runRemoteControlCommand`,
`isRemoteHumanMessage`: docs/reference-adapter.md#remote-control).

Theory of operation: a prompt that is exactly one text block `/remote-control [name]` or
`/remote-control off` (`remote_control_command`) is not a turn: the adapter asks Claude Code
with its `remote_control {enabled, name?}` control request (`remote_control_request`) and
answers with one agent message (`remote_control_reply`: the session's URL, which the user needs
to open it elsewhere, or Claude Code's reason it could not), then `end_turn`. It is refused
(-32600, `remote_control_refusal`) while Claude works or another such command is under way, so
the answer never lands inside a turn; a prompt sent meanwhile waits for it. The adapter offers
the command (`REMOTE_CONTROL_COMMAND`) and stands in for it only where Claude Code does not
offer a command of that name itself (`claude_code_offers`), so a user's own command of the name
is never shadowed.

Once Remote Control is on, a person may type in the other client; Claude Code echoes what they
typed (`--replay-user-messages`), and the editor is shown it as the user's message, live
(`remote_content`): a top-level `user` frame whose `origin.kind` is `human`, not synthetic, and
not one the adapter sent (its own prompts and steers are stamped human too), with Claude Code's
markers taken out as on load.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fsm.claude.transcript_entries import spoken_content
from fsm.records import redact

__all__ = [
    "REMOTE_CONTROL_COMMAND",
    "RemoteControl",
    "claude_code_offers",
    "remote_content",
    "remote_control_command",
    "remote_control_refusal",
    "remote_control_reply",
    "remote_control_request",
]

REMOTE_CONTROL = "remote-control"
# As the reference lists it in `available_commands_update` (Claude Code's entry shape).
REMOTE_CONTROL_COMMAND: dict[str, str] = {
    "name": REMOTE_CONTROL,
    "description": "Continue this session from claude.ai/code or the Claude mobile app; `off` "
    "disconnects",
    "argumentHint": "[session name | off]",
}
_COMMAND = re.compile(r"^/remote-control(?:\s+([\s\S]*))?$")
_REASON_LENGTH = 300


@dataclass(frozen=True, slots=True)
class RemoteControl:
    """`/remote-control`: connect (under `name`, if given) or disconnect."""

    enabled: bool
    name: str | None = None


def remote_control_command(text: str | None) -> RemoteControl | None:
    """The command a prompt is, given the text of its one text block (None: the prompt is not
    exactly one text block)."""
    if text is None:
        return None
    match = _COMMAND.match(text.strip())
    if match is None:
        return None
    argument = (match.group(1) or "").strip()
    if argument.lower() == "off":
        return RemoteControl(enabled=False)
    return RemoteControl(enabled=True, name=argument or None)


def claude_code_offers(
    commands: Iterable[object], terminal_only: frozenset[str], name: str
) -> bool:
    """Whether Claude Code offers a command `name` itself: one it lists (by name, as its
    initialize answer and `commands_changed` list them) and does not bind to its terminal."""
    if name in terminal_only:
        return False
    return any(isinstance(c, Mapping) and c.get("name") == name for c in commands)


def remote_control_request(command: RemoteControl) -> dict[str, Any]:
    """Claude Code's control request for the command (the TypeScript SDK's
    `enableRemoteControl(enabled, name)`)."""
    request: dict[str, Any] = {"subtype": "remote_control", "enabled": command.enabled}
    if command.enabled and command.name is not None:
        request["name"] = command.name
    return request


def remote_control_refusal(*, working: bool, changing: bool) -> str | None:
    """Why the command cannot run now (the reference's words, answered -32600), or None."""
    if working:
        return (
            "Remote Control can't be changed while Claude is working. Try again when the turn ends."
        )
    if changing:
        return "Remote Control is already being changed. Try again in a moment."
    return None


def _reason(error: str, private: tuple[str, ...]) -> str:
    line = " ".join(redact(error, private).split())
    if len(line) > _REASON_LENGTH:
        line = line[: _REASON_LENGTH - 1] + "\u2026"
    return line or "Claude Code gave no reason"


def remote_control_reply(
    command: RemoteControl,
    response: object,
    error: str | None,
    private: tuple[str, ...] = (),
) -> str:
    """The agent message that answers the command: Claude Code's `response`, or its `error`
    (its reason, masked, on one line)."""
    if not command.enabled:
        if error is not None:
            return f"Could not stop Remote Control: {_reason(error, private)}"
        return "Remote Control is off. Run /remote-control to reconnect."
    if error is not None:
        return f"Could not start Remote Control: {_reason(error, private)}"
    url = response.get("session_url") if isinstance(response, Mapping) else None
    if not isinstance(url, str) or not url.strip() or any(c.isspace() for c in url.strip()):
        return "Remote Control is active, but Claude Code did not return a session URL."
    return (
        "Remote Control is active. Continue this session from claude.ai/code or the Claude "
        f"mobile app:\n\n{url.strip()}\n\nRun /remote-control off to disconnect."
    )


def remote_content(frame: object, *, ours: bool) -> tuple[dict[str, Any], ...]:
    """What a person typed in another client of the session, as the editor shows it: its
    blocks with Claude Code's markers taken out (a text left empty goes), by the rule replay
    applies; () for any other frame, and for one the adapter sent (`ours`)."""
    if ours or not isinstance(frame, Mapping) or frame.get("type") != "user":
        return ()
    origin = frame.get("origin")
    if not isinstance(origin, Mapping) or origin.get("kind") != "human":
        return ()
    if frame.get("isReplay") is not True or frame.get("isSynthetic"):
        return ()
    if frame.get("parent_tool_use_id") is not None:
        return ()
    message = frame.get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return ()
    kept, _ = spoken_content(tuple(b for b in content if isinstance(b, dict)))
    shown = (b for b in kept if b.get("type") in ("text", "image"))
    return tuple(b for b in shown if b.get("type") != "text" or str(b.get("text", "")).strip())
