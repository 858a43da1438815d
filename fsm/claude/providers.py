"""Which model provider Claude Code talks to, as the client sets it: ACP's `providers/list`,
`providers/set`, `providers/disable`, and the `gateway` / `gateway-bedrock` sign-in.

Theory of operation: as in the reference adapter (docs/reference-adapter.md#providers), there is
one provider, `main`, owned by the client once it is set: `providers/set` replaces its whole
configuration (`apiType` of `anthropic`, `bedrock` or `vertex`, an absolute http(s) `baseUrl`,
the full `headers`), `providers/disable` gives the routing back to Claude Code's own, and a
`gateway` sign-in stands in for it while none is set. A provider is not a setting of the running
Claude: it is the environment a Claude process starts with (`provider_env`), and the
programmatic settings tier beside it so that a user's or project's settings cannot route
elsewhere (`routed_settings`). So it applies to every Claude started after it is set; a live
session's next prompt starts a fresh one (`CredentialsChanged`, docs/decisions.md#provider-change).
`ProviderRoutes` decides which route wins and whether a change moves anything (the very same
route restarts nothing); the shell applies what it says.

Bad input is answered -32602 with a message that names the field and never repeats a value the
client sent (a header's value or a URL may be a credential): docs/decisions.md#provider-requests.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "PROVIDER_ID",
    "PROVIDER_TOKEN_PLACEHOLDER",
    "PROVIDER_TYPES",
    "BadProviderRequest",
    "Provider",
    "ProviderRoutes",
    "RouteChange",
    "gateway_provider",
    "provider_env",
    "provider_listing",
    "provider_request",
    "provider_secrets",
    "provider_to_disable",
    "routed_settings",
    "settings_file_refusal",
    "settings_path",
    "shown_base_url",
]

# The one provider the adapter has, and the protocols it can route Claude Code through.
PROVIDER_ID = "main"
PROVIDER_TYPES = ("anthropic", "bedrock", "vertex")
# The bearer token Claude Code is given while a provider is set, so that it skips its own
# sign-in; the provider's headers (an `authorization` of the client's) replace it at the gateway.
PROVIDER_TOKEN_PLACEHOLDER = "acp-proxy"
DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com"
DEFAULT_BEDROCK_BASE_URL = "https://bedrock-runtime.amazonaws.com"
DEFAULT_VERTEX_BASE_URL = "https://aiplatform.googleapis.com"
GATEWAY_METHODS = {"gateway": "anthropic", "gateway-bedrock": "bedrock"}

# Claude Code's routing variables, each emptied when a provider is set, so that none of the
# user's own (a Bedrock switch, an API key) outranks it.
_RESET_ROUTING = {
    "ANTHROPIC_BASE_URL": "",
    "ANTHROPIC_BEDROCK_BASE_URL": "",
    "ANTHROPIC_VERTEX_BASE_URL": "",
    "CLAUDE_CODE_USE_BEDROCK": "0",
    "CLAUDE_CODE_USE_VERTEX": "0",
    "ANTHROPIC_VERTEX_PROJECT_ID": "",
    "CLOUD_ML_REGION": "",
    "AWS_REGION": "",
    "ANTHROPIC_API_KEY": "",
    "ANTHROPIC_AUTH_TOKEN": "",
    "CLAUDE_CODE_OAUTH_TOKEN": "",
}
# The shortest header value masked (as `adapter.claude.runtime_settings.private_values` does).
_SECRET_LENGTH = 8
# What `routed_settings` leaves to the environment when its tier goes on the command line:
# values that may be credentials.
_OFF_THE_COMMAND_LINE = frozenset({"ANTHROPIC_CUSTOM_HEADERS"})
# A header's name: an HTTP token (RFC 9110), so that `name: value` lines stay lines.
_TOKEN_CHARS = frozenset(
    "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Provider:
    """The client's provider: where Claude Code sends its requests, and with which headers."""

    api_type: str
    base_url: str
    headers: tuple[tuple[str, str], ...] = ()
    vertex_project: str = ""
    vertex_region: str = ""


@dataclass(frozen=True, slots=True)
class BadProviderRequest:
    """A `providers/*` request or a gateway sign-in to answer -32602 with `message`."""

    message: str


def is_base_url(value: object) -> bool:
    """An absolute http(s) URL with a host, as the reference's `isValidBaseUrl` takes one."""
    if not isinstance(value, str) or not value.strip():
        return False
    text = value.strip()
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return False
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


def _headers(value: object, field: str) -> tuple[tuple[str, str], ...] | BadProviderRequest:
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        return BadProviderRequest(f"`{field}` must be an object of header names to values.")
    found: list[tuple[str, str]] = []
    for name, text in value.items():
        if not isinstance(name, str) or not name or not set(name) <= _TOKEN_CHARS:
            return BadProviderRequest(f"`{field}` has a header name that is not an HTTP token.")
        if not isinstance(text, str) or "\n" in text or "\r" in text or "\0" in text:
            # The value is not repeated: it may be a credential.
            return BadProviderRequest(
                f"`{field}` header {name!r} must have a string value on one line."
            )
        found.append((name, text))
    return tuple(found)


def provider_request(params: object) -> Provider | BadProviderRequest:
    """`providers/set`'s params checked: the provider it sets, or why it is refused."""
    if not isinstance(params, Mapping):
        return BadProviderRequest("providers/set params must be an object.")
    if params.get("providerId") != PROVIDER_ID:
        return BadProviderRequest(f'Unknown providerId; expected "{PROVIDER_ID}".')
    api_type = params.get("apiType")
    if not isinstance(api_type, str) or api_type not in PROVIDER_TYPES:
        supported = ", ".join(PROVIDER_TYPES)
        return BadProviderRequest(f'Unsupported apiType for provider "main"; use {supported}.')
    if not is_base_url(params.get("baseUrl")):
        return BadProviderRequest("baseUrl must be a non-empty absolute http(s) URL.")
    headers = _headers(params.get("headers"), "headers")
    if isinstance(headers, BadProviderRequest):
        return headers
    project = region = ""
    if api_type == "vertex":
        # Vertex needs a project and a region, which the standard params cannot carry.
        meta = params.get("_meta")
        claude = meta.get("claudeCode") if isinstance(meta, Mapping) else None
        vertex = claude.get("vertex") if isinstance(claude, Mapping) else None
        given = vertex if isinstance(vertex, Mapping) else {}
        project_id, where = given.get("projectId"), given.get("region")
        if not (isinstance(project_id, str) and project_id.strip()) or not (
            isinstance(where, str) and where.strip()
        ):
            return BadProviderRequest(
                "vertex apiType requires non-empty `_meta.claudeCode.vertex.projectId` and "
                "`_meta.claudeCode.vertex.region`."
            )
        project, region = project_id, where
    base_url = str(params["baseUrl"]).strip()
    return Provider(
        api_type=api_type,
        base_url=base_url,
        headers=headers,
        vertex_project=project,
        vertex_region=region,
    )


def provider_to_disable(params: object) -> bool | BadProviderRequest:
    """`providers/disable`'s params checked: whether it disables `main` (any other id is a
    success that changes nothing, as in the reference)."""
    if not isinstance(params, Mapping):
        return BadProviderRequest("providers/disable params must be an object.")
    provider_id = params.get("providerId")
    if not isinstance(provider_id, str):
        return BadProviderRequest("providerId must be a string.")
    return provider_id == PROVIDER_ID


def gateway_provider(method_id: str, meta: object) -> Provider | BadProviderRequest | None:
    """A `gateway` / `gateway-bedrock` sign-in's `_meta.gateway {baseUrl, headers}`: the
    provider it stands for, or None when the call carries none (a probe: ok, nothing set)."""
    gateway = meta.get("gateway") if isinstance(meta, Mapping) else None
    if gateway is None:
        return None
    if not isinstance(gateway, Mapping) or not is_base_url(gateway.get("baseUrl")):
        return BadProviderRequest(
            "`_meta.gateway.baseUrl` must be a non-empty absolute http(s) URL."
        )
    headers = _headers(gateway.get("headers"), "_meta.gateway.headers")
    if isinstance(headers, BadProviderRequest):
        return headers
    return Provider(
        api_type=GATEWAY_METHODS.get(method_id, "anthropic"),
        base_url=str(gateway["baseUrl"]).strip(),
        headers=headers,
    )


def provider_env(provider: Provider) -> dict[str, str]:
    """The environment a Claude process starts with to route through `provider`: the
    reference's `createEnvForProvider`."""
    headers = "\n".join(f"{name}: {value}" for name, value in provider.headers)
    if provider.api_type == "bedrock":
        return {
            **_RESET_ROUTING,
            "CLAUDE_CODE_USE_BEDROCK": "1",
            "AWS_BEARER_TOKEN_BEDROCK": PROVIDER_TOKEN_PLACEHOLDER,
            "ANTHROPIC_BEDROCK_BASE_URL": provider.base_url,
            "ANTHROPIC_CUSTOM_HEADERS": headers,
        }
    if provider.api_type == "vertex":
        # The default endpoint stays unset: naming it marks a custom deployment in Claude Code.
        custom = provider.base_url.rstrip("/") != DEFAULT_VERTEX_BASE_URL
        return {
            **_RESET_ROUTING,
            "CLAUDE_CODE_USE_VERTEX": "1",
            **({"ANTHROPIC_VERTEX_BASE_URL": provider.base_url} if custom else {}),
            "ANTHROPIC_VERTEX_PROJECT_ID": provider.vertex_project,
            "CLOUD_ML_REGION": provider.vertex_region,
            "ANTHROPIC_CUSTOM_HEADERS": headers,
        }
    return {
        **_RESET_ROUTING,
        "ANTHROPIC_BASE_URL": provider.base_url,
        "ANTHROPIC_CUSTOM_HEADERS": headers,
        "ANTHROPIC_AUTH_TOKEN": PROVIDER_TOKEN_PLACEHOLDER,
    }


def settings_path(client_settings: object) -> str | None:
    """The file the client's settings name, when they are a path rather than an object or its
    JSON text: any string but one in braces, as the SDK and Claude Code tell them apart."""
    if not isinstance(client_settings, str):
        return None
    text = client_settings.strip()
    if not text or (text.startswith("{") and text.endswith("}")):
        return None
    return client_settings


# What can keep a client's settings file from a routed Claude, as the shell finds it, and how the
# refusal says it (docs/decisions.md#provider-settings-file): the kind of problem only, never the
# path (the client's, maybe private) nor anything of the file or the route.
_SETTINGS_FILE_PROBLEMS = {
    "missing": "is missing",
    "not-regular": "is not a regular file",
    "unreadable": "cannot be read",
    "not-json": "is not JSON",
    "not-object": "does not hold a JSON object",
}


def settings_file_refusal(problem: str) -> str:
    """Why a Claude routed through the client's provider was not started when the client's
    settings file (`_meta.claudeCode.options.settings` naming a file) has `problem`: one of
    `missing`, `not-regular`, `unreadable`, `not-json`, `not-object`, or `not-written` (its
    private copy with the route could not be written). Every one refuses the start: passed to
    Claude Code as named, that file's `env` (or a user's or project's `env.ANTHROPIC_BASE_URL`)
    would outrank the route, and the route's headers, in the environment, could go to another
    URL (docs/decisions.md#provider-settings-file). With no route the file is never read here:
    Claude Code gets it as named and judges it as it does."""
    if problem == "not-written":
        return (
            "Claude Code was not started: the client's settings file could not be written, "
            "with the provider's route, to a private temporary file; check that the temporary "
            "folder is writable."
        )
    what = _SETTINGS_FILE_PROBLEMS.get(problem, "cannot be used")
    return (
        f"Claude Code was not started: the client's settings file {what}; while a model "
        "provider is set, that file must be a readable file holding a JSON object, so that the "
        "provider's route can be merged into it."
    )


def routed_settings(
    client_settings: object, env: Mapping[str, str], *, private_file: bool = False
) -> str | None:
    """The `--settings` a routed Claude starts with: the client's settings (an object, its
    JSON text, or the object read from the file they name) with the provider's environment on
    top and no `apiKeyHelper`, since Claude Code applies settings' `env` after its own
    environment, so that no user's or project's settings route elsewhere. The route's headers
    replace the client's own there too. `private_file`: the tier goes to a file only this user
    can read (docs/decisions.md#provider-requests), so it carries the headers; else it is for
    Claude Code's command line, which every local user can read, and they stay out of it (the
    environment carries them), as do the base URL's user part, query and fragment (either may
    be a credential; the URL still pins where the headers go). None when the client's settings
    are a file's path (the shell reads it: docs/decisions.md#provider-settings-file) or no JSON
    object."""
    given: object = client_settings
    if isinstance(client_settings, str):
        try:
            given = json.loads(client_settings)
        except ValueError:
            return None
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        return None
    theirs = given.get("env")
    kept = {
        k: v
        for k, v in (theirs if isinstance(theirs, Mapping) else {}).items()
        if k not in _OFF_THE_COMMAND_LINE
    }
    routing = {
        k: v if private_file or k not in _BASE_URLS else _bare_url(v)
        for k, v in env.items()
        if private_file or k not in _OFF_THE_COMMAND_LINE
    }
    return json.dumps({**given, "apiKeyHelper": "", "env": {**kept, **routing}})


def _bare_url(url: str) -> str:
    """A base URL without its user part, query and fragment (`http://u:p@h/v1?k=v` ->
    `http://h/v1`): what of it may go on a command line."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    netloc = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=netloc, query="", fragment="").geturl()


def _url_parts(url: str) -> tuple[str, list[str]]:
    """A base URL's user part (`user:password`, as written) and its query's values."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "", []
    userinfo = parts.netloc.rpartition("@")[0]
    values = [pair.partition("=")[2] for pair in parts.query.split("&") if "=" in pair]
    return userinfo, values


def shown_base_url(url: str) -> str:
    """A base URL as it may be shown: its user part and each query value `***` (either may be a
    credential: docs/decisions.md#provider-requests)."""
    userinfo, values = _url_parts(url)
    if not userinfo and not any(values):
        return url
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    query = "&".join(
        f"{pair.partition('=')[0]}=***" if "=" in pair else pair for pair in parts.query.split("&")
    )
    shown = parts._replace(netloc=f"***@{netloc}" if userinfo else netloc, query=query)
    return shown.geturl()


_BASE_URLS = ("ANTHROPIC_BASE_URL", "ANTHROPIC_BEDROCK_BASE_URL", "ANTHROPIC_VERTEX_BASE_URL")


def provider_secrets(routing: Mapping[str, str]) -> tuple[str, ...]:
    """What of a route may be a credential, to mask wherever text reaches a client or the log:
    its headers' values (`ANTHROPIC_CUSTOM_HEADERS`), each and the credential after its scheme
    (`Bearer <token>`), and its base URL's user part and query values, as written; those of at
    least 8 characters, as the environment's secrets are."""
    candidates: list[str] = []
    for line in routing.get("ANTHROPIC_CUSTOM_HEADERS", "").split("\n"):
        value = line.partition(":")[2].strip()
        scheme, _, credential = value.partition(" ")
        candidates += [value, credential.strip() if scheme and credential else ""]
    for name in _BASE_URLS:
        userinfo, values = _url_parts(routing.get(name, ""))
        user, _, password = userinfo.partition(":")
        candidates += [userinfo, user, password, *values]
    found: list[str] = []
    for text in candidates:
        if len(text) >= _SECRET_LENGTH and text not in found:
            found.append(text)
    return tuple(found)


@dataclass(frozen=True, slots=True, kw_only=True)
class RouteChange:
    """What a change made of the connection's route (`ProviderRoutes`)."""

    # The environment every Claude starts with from now on (empty: Claude Code's own routing).
    routing: Mapping[str, str]
    # The route differs from the one before: every live session's next prompt starts a fresh
    # Claude (docs/decisions.md#provider-change); the very same route restarts nothing.
    changed: bool
    # The header values of every provider set so far, masked for good
    # (docs/decisions.md#provider-requests), and the ones this change added.
    private: tuple[str, ...]
    added: tuple[str, ...]
    # What routes now, for the `authStatus` told (`AuthReports.routing`).
    gateway: bool
    provider_set: bool


class ProviderRoutes:
    """The connection's route: the provider set (`providers/set`) wins; else the gateway signed
    in with; else none. Each request in, the route and whether it changed out."""

    def __init__(self) -> None:
        self._chosen: Provider | None = None  # `providers/set`
        self._gateway: Provider | None = None  # a `gateway` / `gateway-bedrock` sign-in
        self._routing: dict[str, str] = {}
        self._private: tuple[str, ...] = ()

    @property
    def current(self) -> Provider | None:
        """The provider that routes (for `providers/list`), None while none does."""
        return self._chosen or self._gateway

    @property
    def routing(self) -> dict[str, str]:
        """The environment every Claude starts with now (empty: Claude Code's own routing)."""
        return dict(self._routing)

    @property
    def private(self) -> tuple[str, ...]:
        """The header values of every provider set so far."""
        return self._private

    def set(self, provider: Provider) -> RouteChange:
        self._chosen = provider
        return self._moved()

    def disable(self) -> RouteChange:
        self._chosen = None
        return self._moved()

    def sign_in(self, gateway: Provider) -> RouteChange:
        self._gateway = gateway
        return self._moved()

    def sign_out(self) -> RouteChange:
        """`logout`: the provider set and the gateway signed in with go too."""
        self._chosen = self._gateway = None
        return self._moved()

    def stale(self, started_with: Mapping[str, str] | None) -> bool:
        """Whether a Claude that started with the route `started_with` (None: none) routes
        elsewhere than the connection does now: its session's next prompt starts a fresh one."""
        return dict(started_with or {}) != self._routing

    def _moved(self) -> RouteChange:
        current = self.current
        routing = provider_env(current) if current is not None else {}
        changed = routing != self._routing
        self._routing = routing
        added = tuple(v for v in provider_secrets(routing) if v not in self._private)
        self._private = (*self._private, *added)
        return RouteChange(
            routing=dict(routing),
            changed=changed,
            private=self._private,
            added=added,
            gateway=self._gateway is not None,
            provider_set=self._chosen is not None,
        )


def provider_listing(current: Provider | None, environ: Mapping[str, str]) -> dict[str, Any]:
    """`providers/list`'s result: `main`, with the provider set (or the gateway signed in with),
    else the routing Claude Code would take from `environ` by itself."""
    if current is not None:
        api_type, base_url = current.api_type, current.base_url
    elif environ.get("CLAUDE_CODE_USE_BEDROCK"):
        api_type = "bedrock"
        base_url = environ.get("ANTHROPIC_BEDROCK_BASE_URL") or DEFAULT_BEDROCK_BASE_URL
    elif environ.get("CLAUDE_CODE_USE_VERTEX"):
        api_type = "vertex"
        base_url = environ.get("ANTHROPIC_VERTEX_BASE_URL") or DEFAULT_VERTEX_BASE_URL
    else:
        api_type = "anthropic"
        base_url = environ.get("ANTHROPIC_BASE_URL") or DEFAULT_ANTHROPIC_BASE_URL
    return {
        "providers": [
            {
                "providerId": PROVIDER_ID,
                "supported": list(PROVIDER_TYPES),
                "required": False,
                "current": {"apiType": api_type, "baseUrl": shown_base_url(base_url)},
            }
        ]
    }
