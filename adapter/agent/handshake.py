"""What `initialize` answers: the capabilities advertised, and what the client's declared.

Kept out of `acp_agent.py` so the agent stays a list of requests; nothing here is stateful.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from importlib.metadata import PackageNotFoundError, version

from acp import PROTOCOL_VERSION
from acp.schema import (
    AgentAuthCapabilities,
    AgentCapabilities,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    LogoutCapabilities,
    McpCapabilities,
    ProvidersCapabilities,
    SessionAdditionalDirectoriesCapabilities,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionDeleteCapabilities,
    SessionForkCapabilities,
    SessionListCapabilities,
    SessionResumeCapabilities,
)

from adapter.agent.raw_requests import RawCapabilities
from adapter.claude import login
from adapter.claude.prompt_content import PROMPT_CAPABILITIES
from fsm import AirClient, Dialects, advertisement, air_client, negotiate

__all__ = ["ClientDeclared", "client_declared", "initialize_response"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientDeclared:
    """What the agent keeps from the client's `initialize`."""

    dialects: Dialects
    terminal_output: bool  # Zed's terminal extension: Bash output as terminal `_meta`
    terminal_output_delta: bool = False  # ... its output as `terminal_output_delta` appends
    ask_by_form: bool  # the client declared `elicitation.form`
    boolean_options: bool = False  # ... `session.configOptions.boolean`
    ask_by_url: bool = False  # ... `elicitation.url`
    plan_updates: bool = False  # ... `plan` (`plan_update`s)
    air: AirClient = field(default_factory=AirClient)  # JetBrains AIR: is it, what it declared


def client_declared(
    client_capabilities: ClientCapabilities | None, raw: RawCapabilities
) -> ClientDeclared:
    meta = client_capabilities.field_meta if client_capabilities is not None else None
    dialects = replace(negotiate(meta), acp_notices=raw.notices, acp_compaction=raw.compaction)
    elicitation = client_capabilities.elicitation if client_capabilities is not None else None
    return ClientDeclared(
        dialects=dialects,
        # A client that takes output deltas takes terminals
        # (docs/reference-adapter.md#initialize-advertisement).
        terminal_output=isinstance(meta, dict)
        and (meta.get("terminal_output") is True or meta.get("terminal_output_delta") is True),
        terminal_output_delta=isinstance(meta, dict) and meta.get("terminal_output_delta") is True,
        ask_by_form=elicitation is not None and elicitation.form is not None,
        boolean_options=_boolean_options(client_capabilities),
        ask_by_url=elicitation is not None and elicitation.url is not None,
        # acp keeps `plan: {}` (an object; anything else fails its parse, so means no).
        plan_updates=client_capabilities is not None and client_capabilities.plan is not None,
        air=air_client(meta, subagents=raw.subagents),
    )


def _boolean_options(client_capabilities: ClientCapabilities | None) -> bool:
    session = client_capabilities.session if client_capabilities is not None else None
    config = session.config_options if session is not None else None
    return config is not None and config.boolean is not None


def _version() -> str:
    try:
        return version("claude-acp")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0"


def initialize_response(
    client_capabilities: ClientCapabilities | None, air: AirClient
) -> InitializeResponse:
    """`air`: what the client declared of JetBrains AIR (`_meta.jetbrains` goes to AIR only)."""
    return InitializeResponse(
        protocol_version=PROTOCOL_VERSION,
        agent_capabilities=AgentCapabilities(
            load_session=True,
            auth=AgentAuthCapabilities(logout=LogoutCapabilities()),
            prompt_capabilities=PROMPT_CAPABILITIES,
            mcp_capabilities=McpCapabilities(http=True, sse=True),
            # `providers/list|set|disable` (adapter.agent.provider_requests): to every client,
            # as the reference advertises them (docs/reference-adapter.md#providers).
            providers=ProvidersCapabilities(),
            session_capabilities=SessionCapabilities(
                list=SessionListCapabilities(),
                resume=SessionResumeCapabilities(),
                fork=SessionForkCapabilities(),
                close=SessionCloseCapabilities(),
                delete=SessionDeleteCapabilities(),
                additional_directories=SessionAdditionalDirectoriesCapabilities(),
            ),
            # Prompt queueing (a prompt sent while a turn runs goes to Claude at once), where
            # the reference advertises it (docs/reference-adapter.md#prompt-queueing);
            # `authStatus`, empty: "this agent pushes which sign-in Claude Code pays with"
            # (`_auth/status_update`, adapter.agent.auth_push).
            field_meta={"claudeCode": {"promptQueueing": True}, "authStatus": {}},
        ),
        auth_methods=login.auth_methods(client_capabilities),
        agent_info=Implementation(name="claude-acp", title="Claude", version=_version()),
        # `_session/steering` (adapter.agent.steering) in the response's own `_meta`, beside
        # `agentCapabilities`, where the steering extension's contract and the reference put it
        # (docs/reference-adapter.md#initialize-advertisement).
        field_meta={**(advertisement(air) or {}), "steering": {"supported": True}},
    )
