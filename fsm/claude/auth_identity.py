"""Which sign-in Claude Code pays with, as the `authStatus` extension tells a client.

Theory of operation (docs/reference-adapter.md#auth-status): the agent advertises an empty
`agentCapabilities._meta.authStatus` ("this agent pushes its identity") and pushes the
connection-wide notification `_auth/status_update {authStatus}` to every client (one that does
not know the method drops it). The client never asks. The identity is read from two sources:
Claude Code's `claude auth status --json` (`identity_from_cli`) and the `account` of its
initialize answer (`identity_from_account`, richer: it can name the organization). Both map
through one table (`_mapped`): a non-Anthropic backend decides first, then an API key (it
outranks a stored subscription login, as in Claude Code's own precedence), then a subscription,
else "not logged in". A read that cannot say is `None`: silence, never "not logged in".

`AuthReports` is the connection's memory: the identity last pushed and an epoch. A sign-in or a
sign-out (`changed`) bumps the epoch, so a read that began before it is dropped, and so does a
move to another reading context (`reading_in`: another session's folder, or an `apiKeyHelper`
its settings name now and did not, or the other way round), as the reference's
`useAuthStatusSettings` does; a read of the
same login keeps the fields it lacks (`_merged`); a push goes out only when what would be shown
changed. The email and names are Claude Code's words about the user: shown on one line
(`visible`), never logged.

A route the client owns changes what counts, as in the reference
(docs/reference-adapter.md#providers): after a gateway sign-in (`gateway_signed_in`) the gateway
is the identity, `gateway` with its host, and no read counts until it goes (`routing`); while a
provider the client set routes (`providers/set`), a session's account describes that route, not
the sign-in, so only the CLI's reads count.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from fsm.visible_text import visible

__all__ = [
    "AUTH_STATUS_METHOD",
    "AuthIdentity",
    "AuthReports",
    "api_key_helper",
    "identity_from_account",
    "identity_from_cli",
]

# The notification, agent to client; fire and forget.
AUTH_STATUS_METHOD = "_auth/status_update"

_API_KEY_SOURCES = {
    "apiKeyHelper": "API key helper",
    "env": "env",
    "ANTHROPIC_API_KEY": "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN": "ANTHROPIC_AUTH_TOKEN",
}
# Display names of the backends whose credentials live outside Claude Code.
_EXTERNAL = {
    "bedrock": "AWS Bedrock",
    "vertex": "Google Vertex AI",
    "foundry": "Azure AI Foundry",
    "anthropicAws": "Anthropic on AWS",
    "anthropicGoogleCloud": "Anthropic on Google Cloud",
    "mantle": "Mantle",
}
_FIELD_LENGTH = 256


@dataclass(frozen=True, slots=True, kw_only=True)
class AuthIdentity:
    """One report: `kind` is "account", "api_key", "gateway", "external" or "none"."""

    kind: str
    label: str
    detail: str | None = None
    plan: str | None = None  # an account's: the vendor's word, as Claude Code says it
    email: str | None = None
    organization: str | None = None

    def wire(self) -> dict[str, Any]:
        """The `authStatus` payload."""
        payload: dict[str, Any] = {"kind": self.kind, "label": self.label}
        if self.detail is not None:
            payload["detail"] = self.detail
        if self.plan is not None:
            account: dict[str, str] = {"plan": self.plan}
            if self.email is not None:
                account["email"] = self.email
            if self.organization is not None:
                account["organization"] = self.organization
            payload["account"] = account
        return payload


NOT_LOGGED_IN = AuthIdentity(kind="none", label="Not logged in")


def _text(value: object) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    return visible(value.strip())[:_FIELD_LENGTH]


def _plan_label(plan: str) -> str:
    """The plan named with exactly one "Claude" ("max" and "Claude Max" both read "Claude
    Max"); each word title-cased, one with capitals already kept."""
    titled = re.sub(r"\S+", lambda word: word[0][:1].upper() + word[0][1:], plan)
    return titled if re.match(r"(?i)claude(\s|$)", plan) else f"Claude {titled}"


def _mapped(
    *,
    provider: object,
    subscription: object,
    key_source: object,
    email: object,
    organization: object,
    api_key_helper: str | None,
) -> AuthIdentity:
    provider_name = _text(provider)
    if provider_name == "gateway":
        return AuthIdentity(kind="gateway", label="Custom model gateway")
    if provider_name is not None and provider_name != "firstParty":
        return AuthIdentity(kind="external", label=_EXTERNAL.get(provider_name, provider_name))
    source = _text(key_source)
    if source is not None:
        helper = api_key_helper or ""
        if (
            source == "apiKeyHelper"
            and re.search(r"(?i)\bcentral\b", helper)
            and re.search(r"(?i)\bproxy\s+start\b", helper)
        ):
            return AuthIdentity(kind="gateway", label="JetBrains Air Gateway")
        return AuthIdentity(
            kind="api_key", label="Anthropic API key", detail=_API_KEY_SOURCES.get(source)
        )
    plan = _text(subscription)
    if plan is not None:
        return AuthIdentity(
            kind="account",
            label=_plan_label(plan),
            plan=plan,
            email=_text(email),
            organization=_text(organization),
        )
    return NOT_LOGGED_IN


def api_key_helper(tiers: Sequence[Mapping[str, Any]]) -> str | None:
    """The `apiKeyHelper` Claude Code would run with the settings `tiers` (lowest first, each a
    settings file's object): the last tier that names one (a non-empty string) wins, as a later
    tier wins in Claude Code; None when none names one."""
    for tier in reversed(tiers):
        named = tier.get("apiKeyHelper")
        if isinstance(named, str) and named:
            return named
    return None


def identity_from_cli(stdout: str, api_key_helper: str | None = None) -> AuthIdentity | None:
    """What `claude auth status --json` printed (exit status 1 when signed out prints it too);
    None when it is not the JSON object it prints. `loggedIn` is about the claude.ai login
    only: a non-Anthropic backend decides before it."""
    try:
        answer = json.loads(stdout)
    except ValueError:
        return None
    if not isinstance(answer, dict) or not isinstance(answer.get("loggedIn"), bool):
        return None
    provider = answer.get("apiProvider")
    external = isinstance(provider, str) and provider not in ("", "firstParty")
    if not external and not answer["loggedIn"] and not answer.get("apiKeySource"):
        return NOT_LOGGED_IN
    return _mapped(
        provider=provider,
        subscription=answer.get("subscriptionType"),
        key_source=answer.get("apiKeySource"),
        email=answer.get("email"),
        organization=answer.get("orgName"),
        api_key_helper=api_key_helper,
    )


def identity_from_account(
    account: Mapping[str, Any] | None, api_key_helper: str | None = None
) -> AuthIdentity | None:
    """The `account` of Claude Code's initialize answer; None when it says nothing of the
    identity (Claude Code always names `apiProvider`, and with only a key helper nothing else:
    that is "no information", never "not logged in")."""
    if not isinstance(account, Mapping):
        return None
    provider = account.get("apiProvider")
    if not (
        account.get("apiKeySource")
        or account.get("subscriptionType")
        or (provider and provider != "firstParty")
    ):
        return None
    return _mapped(
        provider=provider,
        subscription=account.get("subscriptionType"),
        key_source=account.get("apiKeySource"),
        email=account.get("email"),
        organization=account.get("organization"),
        api_key_helper=api_key_helper,
    )


def _same_login(a: AuthIdentity, b: AuthIdentity) -> bool:
    if a.kind != b.kind:
        return False
    if a.kind == "api_key":
        return a.detail == b.detail
    if a.kind == "account":
        return (a.email or "") == (b.email or "")
    return True


def _merged(previous: AuthIdentity | None, new: AuthIdentity) -> AuthIdentity:
    """A read of the same login keeps what it lacks (the CLI names no organization); another
    login replaces the old one whole."""
    if previous is None or not _same_login(previous, new):
        return new
    return replace(
        new,
        detail=new.detail if new.detail is not None else previous.detail,
        plan=new.plan if new.plan is not None else previous.plan,
        email=new.email if new.email is not None else previous.email,
        organization=new.organization if new.organization is not None else previous.organization,
    )


class AuthReports:
    """The connection's `authStatus`: what was pushed last, and which reads still count."""

    def __init__(self) -> None:
        self.current: AuthIdentity | None = None
        self.epoch = 0
        # A gateway sign-in's identity, while it routes: no read counts meanwhile.
        self.gateway: AuthIdentity | None = None
        # A provider the client set routes: a session's account describes that route.
        self.provider_set = False
        # Where reads are made: a session's folder and the `apiKeyHelper` its settings name.
        self.context: tuple[str, str | None] | None = None

    def changed(self) -> None:
        """A sign-in or sign-out happened: reads begun before it describe a world gone."""
        self.epoch += 1

    def reading_in(self, folder: str, helper: str | None) -> bool:
        """Reads are made in `folder` from now, whose settings name `helper` (a session's folder
        as its prompt is read for or its Claude names its account; the settings read again each
        time). Where either differs from the context read in before, a read begun before
        describes another context and no longer counts (the epoch moves: True), and a read
        in this one is wanted. The first context moves nothing: no read was made in
        another."""
        moved = self.context is not None and self.context != (folder, helper)
        self.context = (folder, helper)
        if moved:
            self.changed()
        return moved

    def joins(self, begun: int | None) -> bool:
        """Whether a read wanted now joins the read under way, begun at `begun` (None: none
        is), rather than begin its own: only one begun since the last sign-in, sign-out or
        move of context, whose answer still counts."""
        return begun == self.epoch

    def read(
        self, identity: AuthIdentity | None, epoch: int, *, session_account: bool = False
    ) -> dict[str, Any] | None:
        """A read begun at `epoch` says `identity` (None: it could not say); `session_account`:
        it is a session's account, not the CLI's read. The payload to push, or None when there
        is nothing new to tell."""
        if identity is None or epoch != self.epoch or self.gateway is not None:
            return None
        if session_account and self.provider_set:
            return None
        merged = _merged(self.current, identity)
        if merged == self.current:
            return None
        self.current = merged
        return {"authStatus": merged.wire()}

    def gateway_signed_in(self, base_url: str) -> dict[str, Any] | None:
        """A gateway sign-in at `base_url`: the identity from now on, named by its host (never
        its path, query or user part); the payload to push, if it is news."""
        self.changed()
        try:
            host = urlsplit(base_url).netloc.rpartition("@")[2]
        except ValueError:
            host = ""
        self.gateway = AuthIdentity(
            kind="gateway", label="Custom model gateway", detail=_text(host)
        )
        if self.gateway == self.current:
            return None
        self.current = self.gateway
        return {"authStatus": self.current.wire()}

    def routing(self, *, gateway: bool, provider_set: bool) -> None:
        """What routes now: a gateway sign-in still (else its identity goes, and reads count
        again from a read begun after this), a provider the client set."""
        if self.gateway is not None and not gateway:
            self.gateway = None
            self.changed()
        self.provider_set = provider_set

    def signed_out(self, identity: AuthIdentity | None, epoch: int) -> dict[str, Any] | None:
        """After a sign-out, a read that could not say drops the stale identity: "not logged
        in" (an API key in the environment survives a sign-out, so a read is asked first)."""
        return self.read(NOT_LOGGED_IN if identity is None else identity, epoch)
