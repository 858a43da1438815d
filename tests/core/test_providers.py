"""The model provider's rules (`fsm/claude/providers.py`): which `providers/set`,
`providers/disable` and gateway sign-ins are taken, the environment and settings a routed Claude
starts with, which route wins and when live sessions move (`ProviderRoutes`), and
`providers/list`'s answer (docs/reference-adapter.md#providers, docs/decisions.md#provider-change,
docs/decisions.md#provider-requests)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fsm import (
    BadProviderRequest,
    Provider,
    ProviderRoutes,
    gateway_provider,
    provider_env,
    provider_listing,
    provider_request,
    provider_secrets,
    provider_to_disable,
    routed_settings,
    settings_file_refusal,
    settings_path,
    shown_base_url,
)

SECRET = "sk-made-up-secret-0123456789"
BASE = {"providerId": "main", "apiType": "anthropic", "baseUrl": "http://127.0.0.1:9/v1"}


def test_a_good_request_is_the_provider_it_sets() -> None:
    provider = provider_request({**BASE, "headers": {"authorization": f"Bearer {SECRET}"}})
    assert provider == Provider(
        api_type="anthropic",
        base_url="http://127.0.0.1:9/v1",
        headers=(("authorization", f"Bearer {SECRET}"),),
    )


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ([BASE], "must be an object"),
        ({**BASE, "providerId": "other"}, 'expected "main"'),
        ({**BASE, "apiType": "openai"}, "Unsupported apiType"),
        ({**BASE, "apiType": {"custom": SECRET}}, "Unsupported apiType"),
        ({**BASE, "baseUrl": ""}, "baseUrl must be"),
        ({**BASE, "baseUrl": f"ftp://u:{SECRET}@127.0.0.1/"}, "baseUrl must be"),
        ({**BASE, "baseUrl": f"127.0.0.1/{SECRET}"}, "baseUrl must be"),
        ({**BASE, "baseUrl": f"http://127.0.0.1:99999/{SECRET}"}, "baseUrl must be"),
        ({**BASE, "baseUrl": f"http://127.0.0.1/ {SECRET}"}, "baseUrl must be"),
        ({**BASE, "baseUrl": "http:///nohost"}, "baseUrl must be"),
        ({**BASE, "headers": [SECRET]}, "must be an object"),
        ({**BASE, "headers": {"x-key": f"{SECRET}\nx-other: 1"}}, "on one line"),
        ({**BASE, "headers": {"x-key": 5}}, "on one line"),
        ({**BASE, "headers": {"x key": SECRET}}, "not an HTTP token"),
        ({**BASE, "headers": {"x:key": SECRET}}, "not an HTTP token"),
        ({**BASE, "apiType": "vertex"}, "vertex apiType requires"),
        (
            {**BASE, "apiType": "vertex", "_meta": {"claudeCode": {"vertex": {"projectId": "p"}}}},
            "vertex apiType requires",
        ),
    ],
)
def test_bad_requests_are_refused_naming_the_field_never_the_value(params: Any, words: str) -> None:
    refused = provider_request(params)
    assert isinstance(refused, BadProviderRequest)
    assert words in refused.message
    assert SECRET not in refused.message


def test_vertex_takes_its_project_and_region_from_meta() -> None:
    meta = {"claudeCode": {"vertex": {"projectId": "proj", "region": "europe-west1"}}}
    provider = provider_request({**BASE, "apiType": "vertex", "_meta": meta})
    assert isinstance(provider, Provider)
    assert (provider.vertex_project, provider.vertex_region) == ("proj", "europe-west1")


def test_disable_takes_main_and_any_other_id_changes_nothing() -> None:
    assert provider_to_disable({"providerId": "main"}) is True
    assert provider_to_disable({"providerId": "other"}) is False
    assert isinstance(provider_to_disable({"providerId": 3}), BadProviderRequest)
    assert isinstance(provider_to_disable("main"), BadProviderRequest)


def test_a_gateway_sign_in_is_a_provider_of_its_methods_protocol() -> None:
    meta = {"gateway": {"baseUrl": "http://127.0.0.1:9", "headers": {"x-key": SECRET}}}
    assert gateway_provider("gateway", meta) == Provider(
        api_type="anthropic", base_url="http://127.0.0.1:9", headers=(("x-key", SECRET),)
    )
    bedrock = gateway_provider("gateway-bedrock", meta)
    assert isinstance(bedrock, Provider) and bedrock.api_type == "bedrock"
    # No payload: a probe, nothing set.
    assert gateway_provider("gateway", {}) is None
    bad = gateway_provider("gateway", {"gateway": {"baseUrl": f"file:///{SECRET}"}})
    assert isinstance(bad, BadProviderRequest) and SECRET not in bad.message
    bad_headers = gateway_provider(
        "gateway", {"gateway": {"baseUrl": "http://127.0.0.1", "headers": SECRET}}
    )
    assert isinstance(bad_headers, BadProviderRequest) and SECRET not in bad_headers.message


def test_the_anthropic_route_is_the_references_environment() -> None:
    provider = Provider(
        api_type="anthropic",
        base_url="http://127.0.0.1:9/v1",
        headers=(("authorization", "Bearer t"), ("x-team", "a")),
    )
    env = provider_env(provider)
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9/v1"
    assert env["ANTHROPIC_CUSTOM_HEADERS"] == "authorization: Bearer t\nx-team: a"
    assert env["ANTHROPIC_AUTH_TOKEN"] == "acp-proxy"
    # The user's own routing and keys cannot outrank it.
    assert env["ANTHROPIC_API_KEY"] == "" and env["CLAUDE_CODE_OAUTH_TOKEN"] == ""
    assert env["CLAUDE_CODE_USE_BEDROCK"] == "0" and env["CLAUDE_CODE_USE_VERTEX"] == "0"


def test_bedrock_and_vertex_routes() -> None:
    bedrock = provider_env(Provider(api_type="bedrock", base_url="http://127.0.0.1:9"))
    assert bedrock["CLAUDE_CODE_USE_BEDROCK"] == "1"
    assert bedrock["ANTHROPIC_BEDROCK_BASE_URL"] == "http://127.0.0.1:9"
    assert bedrock["AWS_BEARER_TOKEN_BEDROCK"] == "acp-proxy"
    assert bedrock["ANTHROPIC_BASE_URL"] == ""
    vertex = Provider(
        api_type="vertex",
        base_url="https://aiplatform.googleapis.com",
        vertex_project="p",
        vertex_region="r",
    )
    env = provider_env(vertex)
    assert env["CLAUDE_CODE_USE_VERTEX"] == "1"
    assert (env["ANTHROPIC_VERTEX_PROJECT_ID"], env["CLOUD_ML_REGION"]) == ("p", "r")
    # The default endpoint stays unset; a custom one is named.
    assert env["ANTHROPIC_VERTEX_BASE_URL"] == ""
    custom = provider_env(
        Provider(api_type="vertex", base_url="http://127.0.0.1:9", vertex_project="p")
    )
    assert custom["ANTHROPIC_VERTEX_BASE_URL"] == "http://127.0.0.1:9"


def test_the_settings_tier_carries_the_route_over_the_clients_settings() -> None:
    env = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "ANTHROPIC_CUSTOM_HEADERS": f"k: {SECRET}"}
    mine = json.dumps({"model": "opus", "env": {"A": "1", "ANTHROPIC_BASE_URL": "elsewhere"}})
    tier = routed_settings(mine, env)
    assert tier is not None
    assert json.loads(tier) == {
        "model": "opus",
        "apiKeyHelper": "",
        "env": {"A": "1", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"},
    }
    # The headers stay in the environment: `--settings` is on the command line.
    assert SECRET not in tier
    assert json.loads(routed_settings(None, env) or "") == {
        "apiKeyHelper": "",
        "env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"},
    }
    # A file's path stays the client's.
    assert routed_settings("/home/u/settings.json", env) is None


@pytest.mark.parametrize("api_type", ["anthropic", "bedrock", "vertex"])
def test_a_base_urls_credentials_stay_off_the_command_line_tier(api_type: str) -> None:
    """docs/decisions.md#provider-requests: the tier for Claude Code's command line names the
    route's host and path, never its user part, query or fragment; the private file's tier
    carries the URL as set."""
    url = f"http://someone:{SECRET}@127.0.0.1:9/v1?key={SECRET}&region=eu#{SECRET}"
    env = provider_env(Provider(api_type=api_type, base_url=url, vertex_project="p"))
    [name] = [k for k, v in env.items() if k.endswith("BASE_URL") and v]
    tier = routed_settings({"env": {name: "elsewhere"}}, env)
    assert tier is not None and SECRET not in tier
    assert json.loads(tier)["env"][name] == "http://127.0.0.1:9/v1"
    assert json.loads(routed_settings(None, env, private_file=True) or "")["env"][name] == url


@pytest.mark.parametrize(
    ("problem", "what"),
    [
        ("missing", "is missing"),
        ("not-regular", "is not a regular file"),
        ("unreadable", "cannot be read"),
        ("not-json", "is not JSON"),
        ("not-object", "does not hold a JSON object"),
        ("not-written", "could not be written"),
    ],
)
def test_a_routed_claude_refuses_a_settings_file_it_cannot_use(problem: str, what: str) -> None:
    """docs/decisions.md#provider-settings-file: every problem with the client's settings file
    refuses a routed Claude's start, in words naming the kind of problem and nothing else."""
    words = settings_file_refusal(problem)
    assert words.startswith(f"Claude Code was not started: the client's settings file {what}")
    assert ("temporary folder is writable" in words) == (problem == "not-written")


def test_the_listing_says_the_route_in_use() -> None:
    def current(listing: dict[str, Any]) -> dict[str, str]:
        [entry] = listing["providers"]
        assert entry["providerId"] == "main" and entry["required"] is False
        assert entry["supported"] == ["anthropic", "bedrock", "vertex"]
        return dict(entry["current"])

    assert current(provider_listing(None, {})) == {
        "apiType": "anthropic",
        "baseUrl": "https://api.anthropic.com",
    }
    assert current(provider_listing(None, {"ANTHROPIC_BASE_URL": "http://127.0.0.1:8"})) == {
        "apiType": "anthropic",
        "baseUrl": "http://127.0.0.1:8",
    }
    assert current(provider_listing(None, {"CLAUDE_CODE_USE_BEDROCK": "1"}))["apiType"] == "bedrock"
    assert current(provider_listing(None, {"CLAUDE_CODE_USE_VERTEX": "1"}))["apiType"] == "vertex"
    chosen = Provider(api_type="bedrock", base_url="http://127.0.0.1:9")
    assert current(provider_listing(chosen, {"ANTHROPIC_BASE_URL": "x"})) == {
        "apiType": "bedrock",
        "baseUrl": "http://127.0.0.1:9",
    }


def test_a_routes_header_values_are_its_secrets() -> None:
    provider = Provider(
        api_type="anthropic",
        base_url="http://127.0.0.1:9",
        headers=(("authorization", f"Bearer {SECRET}"), ("x-team", "short"), ("x-key", SECRET)),
    )
    assert provider_secrets(provider_env(provider)) == (f"Bearer {SECRET}", SECRET)
    assert provider_secrets({}) == ()


def test_a_settings_file_is_told_from_settings_text_as_claude_code_tells_it() -> None:
    assert settings_path("mine.json") == "mine.json"
    assert settings_path("/home/u/settings.json") == "/home/u/settings.json"
    assert settings_path(' {"model": "opus"} ') is None  # JSON text in braces
    assert settings_path({"model": "opus"}) is None
    assert settings_path(None) is None and settings_path("  ") is None
    # The object read from such a file takes the route as the client's object does.
    env = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    tier = json.loads(routed_settings({"model": "opus"}, env) or "")
    assert tier["model"] == "opus" and tier["env"] == env


def _provider(url: str, api_type: str = "anthropic", key: str = "") -> Provider:
    headers = (("x-key", key),) if key else ()
    return Provider(api_type=api_type, base_url=url, headers=headers)


def test_the_provider_set_wins_over_the_gateway_and_a_sign_out_ends_both() -> None:
    routes = ProviderRoutes()
    chosen, gateway = _provider("http://set.test"), _provider("http://gw.test", "bedrock")
    signed = routes.sign_in(gateway)
    assert signed.changed and (signed.gateway, signed.provider_set) == (True, False)
    assert signed.routing == provider_env(gateway) and routes.current == gateway
    picked = routes.set(chosen)
    assert picked.changed and picked.routing == provider_env(chosen)
    assert (picked.gateway, picked.provider_set) == (True, True)
    # A gateway signed in with while a provider is set waits behind it: nothing moves.
    again = routes.sign_in(_provider("http://other-gw.test"))
    assert not again.changed and routes.current == chosen
    back = routes.disable()
    assert back.changed and routes.current == _provider("http://other-gw.test")
    out = routes.sign_out()
    assert out.changed and out.routing == {} and routes.current is None
    assert (out.gateway, out.provider_set) == (False, False)
    assert not routes.sign_out().changed  # nothing routed: nothing moves


def test_the_very_same_route_moves_nothing() -> None:
    routes = ProviderRoutes()
    assert not routes.disable().changed  # none set: Claude Code's own routing stays
    assert routes.set(_provider("http://set.test")).changed
    assert not routes.set(_provider("http://set.test")).changed
    # The same route from the gateway once the provider set is disabled: nothing moves either.
    routes.sign_in(_provider("http://set.test"))
    assert not routes.disable().changed


def test_a_claude_started_on_another_route_is_stale() -> None:
    routes = ProviderRoutes()
    assert not routes.stale(None) and not routes.stale({})
    now = routes.set(_provider("http://set.test")).routing
    assert routes.stale(None)
    assert not routes.stale(dict(now))
    assert routes.stale(provider_env(_provider("http://elsewhere.test")))


def test_header_values_once_set_stay_private() -> None:
    routes = ProviderRoutes()
    first = routes.set(_provider("http://set.test", key=SECRET))
    assert (first.private, first.added) == ((SECRET,), (SECRET,))
    other = "another-made-up-key-42"
    second = routes.set(_provider("http://set.test", key=other))
    assert (second.private, second.added) == ((SECRET, other), (other,))
    gone = routes.disable()
    assert (gone.private, gone.added) == ((SECRET, other), ())
    assert routes.set(_provider("http://set.test", key=SECRET)).added == ()
    assert routes.private == (SECRET, other)


def test_the_routes_headers_win_in_the_settings_tier_and_ride_in_it_only_when_private() -> None:
    env = provider_env(
        Provider(api_type="anthropic", base_url="http://gw.test", headers=(("x-key", SECRET),))
    )
    theirs = {"env": {"ANTHROPIC_CUSTOM_HEADERS": "x-key: the-clients-own", "MINE": "1"}}
    public = json.loads(routed_settings(theirs, env) or "{}")
    # On the command line: no header at all, so that the environment's (the route's) apply.
    assert "ANTHROPIC_CUSTOM_HEADERS" not in public["env"] and public["env"]["MINE"] == "1"
    private = json.loads(routed_settings(theirs, env, private_file=True) or "{}")
    assert private["env"]["ANTHROPIC_CUSTOM_HEADERS"] == f"x-key: {SECRET}"
    assert private["env"]["ANTHROPIC_BASE_URL"] == "http://gw.test"


def test_a_base_urls_user_part_and_query_values_are_masked_when_shown() -> None:
    url = "https://someone:pw-made-up-0123456789@gw.test:8443/v1?key=q-made-up-0123456789&a"
    assert shown_base_url(url) == "https://***@gw.test:8443/v1?key=***&a"
    assert shown_base_url("http://127.0.0.1:9/v1") == "http://127.0.0.1:9/v1"
    routing = provider_env(Provider(api_type="bedrock", base_url=url))
    secrets = provider_secrets(routing)
    assert "pw-made-up-0123456789" in secrets and "q-made-up-0123456789" in secrets
    assert "someone:pw-made-up-0123456789" in secrets
    assert "someone" not in secrets  # shorter than a secret: masking it would mask prose
    listed = provider_listing(None, {"ANTHROPIC_BASE_URL": url})
    assert listed["providers"][0]["current"]["baseUrl"] == shown_base_url(url)
