"""Sign-in: `claude-acp login`, and the `authMethods` that let an editor run it.

Theory of operation: Claude signs in as Claude Code does, and the Claude Code that the adapter
runs is the one bundled inside the installed `claude-agent-sdk` (or `$CLAUDE_CODE_EXECUTABLE`),
so `claude-acp login [flags]` runs that CLI's `auth login [flags]` in the terminal; no other
Claude install is needed. A client that can run terminal commands for its user (ACP
`clientCapabilities.auth.terminal`, or the older `_meta["terminal-auth"]`) is offered the same
command as terminal auth methods; every client also gets the plain "sign in, then continue"
method. A client that runs a model gateway for its user (`clientCapabilities.auth._meta.gateway`)
is offered the reference adapter's `gateway` and `gateway-bedrock` methods too: their
`authenticate` carries the gateway (`_meta.gateway {baseUrl, headers}`), which every Claude
started after it routes through (adapter.agent.provider_requests).
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any

from acp.schema import AuthMethodAgent, ClientCapabilities, TerminalAuthMethod

from adapter.claude.executable import claude_executable

__all__ = [
    "AUTH_METHOD_ID",
    "GATEWAY_METHOD_IDS",
    "METHOD_IDS",
    "auth_methods",
    "claude_executable",
    "main",
]

AUTH_METHOD_ID = "claude-login"
# (id, name, description, flags for `claude auth login`)
_TERMINAL_METHODS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    (
        "claude-ai-login",
        "Sign in with Claude.ai",
        "Use a Claude Pro, Max, Team or Enterprise subscription",
        ("--claudeai",),
    ),
    (
        "console-login",
        "Sign in with the Anthropic Console",
        "Use API usage billing",
        ("--console",),
    ),
)
METHOD_IDS = frozenset({AUTH_METHOD_ID, *(m[0] for m in _TERMINAL_METHODS)})
# The reference's gateway methods, by the protocol their gateway speaks (names and words as
# there: docs/reference-adapter.md#providers).
_GATEWAY_METHODS = (("gateway", "anthropic"), ("gateway-bedrock", "bedrock"))
GATEWAY_METHOD_IDS = frozenset(m[0] for m in _GATEWAY_METHODS)


def _self_command() -> str:
    # The absolute path of this `claude-acp`, so an editor can run it without our PATH.
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else "claude-acp"
    found = shutil.which(argv0) if os.sep not in argv0 else argv0
    return os.path.abspath(found or argv0)


def _wants_terminal(caps: ClientCapabilities | None) -> tuple[bool, bool]:
    """(declares ACP terminal auth, declares the older `_meta["terminal-auth"]`)."""
    if caps is None:
        return False, False
    terminal = bool(caps.auth is not None and caps.auth.terminal)
    meta = caps.field_meta if isinstance(caps.field_meta, dict) else {}
    return terminal, bool(meta.get("terminal-auth"))


def _wants_gateway(caps: ClientCapabilities | None) -> bool:
    """The client declared `auth._meta.gateway: true`."""
    auth = caps.auth if caps is not None else None
    meta = auth.field_meta if auth is not None else None
    return isinstance(meta, dict) and meta.get("gateway") is True


def auth_methods(caps: ClientCapabilities | None) -> list[Any]:
    methods: list[Any] = [
        AuthMethodAgent(
            id=AUTH_METHOD_ID,
            name="Sign in to Claude",
            description=(
                "Run `claude-acp login` in a terminal (or set ANTHROPIC_API_KEY for the "
                "editor), then choose this to continue."
            ),
        )
    ]
    terminal, legacy = _wants_terminal(caps)
    for method_id, name, description, flags in _TERMINAL_METHODS:
        args = ["login", *flags]
        if terminal:
            methods.append(
                TerminalAuthMethod(
                    type="terminal", id=method_id, name=name, description=description, args=args
                )
            )
        elif legacy:
            label = {"command": _self_command(), "args": args, "label": name}
            methods.append(
                AuthMethodAgent(
                    id=method_id,
                    name=name,
                    description=description,
                    field_meta={"terminal-auth": label},
                )
            )
    if _wants_gateway(caps):
        for method_id, protocol in _GATEWAY_METHODS:
            methods.append(
                AuthMethodAgent(
                    id=method_id,
                    name="Custom model gateway",
                    description="Use a custom gateway to authenticate and access models",
                    field_meta={"gateway": {"protocol": protocol}},
                )
            )
    return methods


def main(args: list[str]) -> int:
    """`claude-acp login [flags]`: Claude Code's `auth login [flags]`, in this terminal."""
    executable = claude_executable()
    if executable is None:
        print("claude-acp: Claude Code was not found (reinstall claude-agent-sdk)", file=sys.stderr)
        return 1
    argv = [executable, "auth", "login", *args]
    try:
        os.execv(executable, argv)
    except OSError as exc:
        print(f"claude-acp: could not start Claude Code: {exc.strerror}", file=sys.stderr)
        return 1
    return 0  # pragma: no cover - execv does not return
