"""Which sign-in Claude Code pays with, and when the connection is told (`fsm.AuthReports`,
`_auth/status_update`): the reference's `auth-status.js` table and push rules."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fsm import AuthReports, api_key_helper, identity_from_account, identity_from_cli


def _cli(**answer: Any) -> str:
    return json.dumps(answer)


@pytest.mark.parametrize(
    ("answer", "wire"),
    [
        (
            {"loggedIn": True, "subscriptionType": "max", "email": "a@b.c", "orgName": "Org"},
            {
                "kind": "account",
                "label": "Claude Max",
                "account": {"plan": "max", "email": "a@b.c", "organization": "Org"},
            },
        ),
        (
            {"loggedIn": True, "subscriptionType": "Claude Team"},
            {"kind": "account", "label": "Claude Team", "account": {"plan": "Claude Team"}},
        ),
        # An API key outranks a stored subscription.
        (
            {"loggedIn": True, "apiKeySource": "ANTHROPIC_API_KEY", "subscriptionType": "max"},
            {"kind": "api_key", "label": "Anthropic API key", "detail": "ANTHROPIC_API_KEY"},
        ),
        # A key from the environment counts though `loggedIn` (claude.ai's) is false.
        (
            {"loggedIn": False, "apiKeySource": "apiKeyHelper"},
            {"kind": "api_key", "label": "Anthropic API key", "detail": "API key helper"},
        ),
        ({"loggedIn": False}, {"kind": "none", "label": "Not logged in"}),
        # A backend of its own decides before `loggedIn`.
        (
            {"loggedIn": False, "apiProvider": "bedrock"},
            {"kind": "external", "label": "AWS Bedrock"},
        ),
        (
            {"loggedIn": False, "apiProvider": "someday"},
            {"kind": "external", "label": "someday"},
        ),
        (
            {"loggedIn": True, "apiProvider": "gateway"},
            {"kind": "gateway", "label": "Custom model gateway"},
        ),
    ],
)
def test_the_cli_answer_maps_as_the_reference_maps_it(
    answer: dict[str, Any], wire: dict[str, Any]
) -> None:
    identity = identity_from_cli(_cli(**answer))
    assert identity is not None
    assert identity.wire() == wire


@pytest.mark.parametrize("stdout", ["", "not json", "[]", '{"loggedIn": "yes"}', "{}"])
def test_an_answer_not_understood_says_nothing(stdout: str) -> None:
    assert identity_from_cli(stdout) is None


def test_jetbrains_air_s_gateway_helper_is_named() -> None:
    answer = _cli(loggedIn=False, apiKeySource="apiKeyHelper")
    identity = identity_from_cli(answer, "/opt/air/central proxy start --print-key")
    assert identity is not None
    assert identity.wire() == {"kind": "gateway", "label": "JetBrains Air Gateway"}
    other = identity_from_cli(answer, "/usr/bin/print-key")
    assert other is not None and other.kind == "api_key"


def test_control_characters_never_reach_the_client() -> None:
    identity = identity_from_cli(_cli(loggedIn=True, subscriptionType="max", email="a\x1b[2J@b.c"))
    assert identity is not None and identity.email is not None
    assert "\x1b" not in identity.email


def test_an_account_without_an_identity_signal_says_nothing() -> None:
    assert identity_from_account({"apiProvider": "firstParty"}) is None
    assert identity_from_account(None) is None
    identity = identity_from_account(
        {
            "apiProvider": "firstParty",
            "subscriptionType": "pro",
            "email": "a@b.c",
            "organization": "O",
        }
    )
    assert identity is not None
    assert identity.wire()["account"] == {"plan": "pro", "email": "a@b.c", "organization": "O"}


def test_only_a_change_is_pushed() -> None:
    reports = AuthReports()
    signed_in = identity_from_cli(_cli(loggedIn=True, subscriptionType="max", email="a@b.c"))
    first = reports.read(signed_in, reports.epoch)
    assert first == {
        "authStatus": {
            "kind": "account",
            "label": "Claude Max",
            "account": {"plan": "max", "email": "a@b.c"},
        }
    }
    assert reports.read(signed_in, reports.epoch) is None
    assert reports.read(None, reports.epoch) is None  # cannot say: silence, never "none"


def test_a_richer_read_of_the_same_login_is_pushed_and_kept() -> None:
    reports = AuthReports()
    account = identity_from_account(
        {"subscriptionType": "max", "email": "a@b.c", "organization": "O"}
    )
    reports.read(account, reports.epoch)
    poorer = identity_from_cli(_cli(loggedIn=True, subscriptionType="max", email="a@b.c"))
    # The CLI names no organization: the one known is kept, and nothing new is told.
    assert reports.read(poorer, reports.epoch) is None
    other = identity_from_cli(_cli(loggedIn=True, subscriptionType="max", email="x@y.z"))
    pushed = reports.read(other, reports.epoch)
    assert pushed is not None
    assert pushed["authStatus"]["account"] == {"plan": "max", "email": "x@y.z"}


def test_a_read_begun_before_a_sign_in_or_out_is_dropped() -> None:
    reports = AuthReports()
    begun = reports.epoch
    reports.changed()
    stale = identity_from_cli(_cli(loggedIn=True, subscriptionType="max"))
    assert reports.read(stale, begun) is None
    assert reports.current is None


def test_a_read_begun_in_another_folder_or_with_another_key_helper_is_dropped() -> None:
    """As the reference's `useAuthStatusSettings`: a session's folder, or the `apiKeyHelper`
    its settings name (read again at each prompt), differing from the last read's moves the
    epoch and wants a read of its own; the same context keeps both."""
    reports = AuthReports()
    assert reports.reading_in("/work/a", None) is False  # the first context: nothing to drop
    begun = reports.epoch
    assert reports.reading_in("/work/a", None) is False and reports.epoch == begun
    assert reports.reading_in("/work/b", None) is True  # another session's folder
    stale = identity_from_cli(_cli(loggedIn=True, subscriptionType="max"))
    assert reports.read(stale, begun) is None and reports.current is None
    here = reports.epoch
    assert reports.reading_in("/work/b", "/bin/key") is True  # its settings name a helper now
    assert reports.epoch == here + 1
    assert reports.reading_in("/work/b", None) is True  # and no longer
    assert reports.read(stale, reports.epoch) is not None  # a read begun in it counts


def test_a_read_wanted_joins_one_under_way_only_while_it_counts() -> None:
    reports = AuthReports()
    begun = reports.epoch
    assert reports.joins(begun) and not reports.joins(None)  # none under way: its own
    reports.reading_in("/work/a", None)
    reports.reading_in("/work/b", None)  # moved since it began: a read of its own
    assert not reports.joins(begun) and reports.joins(reports.epoch)
    reports.changed()  # a sign-out since
    assert not reports.joins(begun + 1)


def test_after_a_sign_out_a_read_that_cannot_say_is_not_logged_in() -> None:
    reports = AuthReports()
    reports.read(identity_from_cli(_cli(loggedIn=True, subscriptionType="max")), reports.epoch)
    reports.changed()
    assert reports.signed_out(None, reports.epoch) == {
        "authStatus": {"kind": "none", "label": "Not logged in"}
    }
    # A key in the environment survives a sign-out.
    key = identity_from_cli(_cli(loggedIn=False, apiKeySource="ANTHROPIC_API_KEY"))
    pushed = reports.signed_out(key, reports.epoch)
    assert pushed is not None and pushed["authStatus"]["kind"] == "api_key"


def test_a_gateway_sign_in_is_the_identity_until_it_goes() -> None:
    reports = AuthReports()
    account = identity_from_cli(_cli(loggedIn=True, subscriptionType="max", email="a@b.c"))
    reports.read(account, reports.epoch)
    begun = reports.epoch
    pushed = reports.gateway_signed_in("https://user:pw@gw.example:8443/v1?key=k")
    # Its host alone: never the path, the query or the user part.
    assert pushed == {
        "authStatus": {
            "kind": "gateway",
            "label": "Custom model gateway",
            "detail": "gw.example:8443",
        }
    }
    # Meanwhile no read counts, the CLI's or a session's, nor one begun before it.
    assert reports.read(account, reports.epoch) is None
    assert reports.read(account, reports.epoch, session_account=True) is None
    assert reports.read(account, begun) is None
    # The same gateway again is no news; once it goes, a read begun after counts again.
    assert reports.gateway_signed_in("https://gw.example:8443/other") is None
    reports.routing(gateway=False, provider_set=False)
    assert reports.read(account, reports.epoch) is not None


def test_while_a_provider_routes_only_the_clis_reads_count() -> None:
    reports = AuthReports()
    reports.routing(gateway=False, provider_set=True)
    routed = identity_from_account({"apiProvider": "gateway"})
    assert reports.read(routed, reports.epoch, session_account=True) is None
    key = identity_from_cli(_cli(loggedIn=False, apiKeySource="ANTHROPIC_API_KEY"))
    assert reports.read(key, reports.epoch) is not None
    reports.routing(gateway=False, provider_set=False)
    assert reports.read(routed, reports.epoch, session_account=True) is not None


@pytest.mark.parametrize(
    ("tiers", "helper"),
    [
        ([], None),
        ([{}, {"model": "x"}], None),
        ([{"apiKeyHelper": "user-helper"}, {}, {}], "user-helper"),
        # A later tier (project, then local) wins over an earlier one.
        ([{"apiKeyHelper": "user"}, {"apiKeyHelper": "project"}, {}], "project"),
        (
            [{"apiKeyHelper": "user"}, {"apiKeyHelper": "project"}, {"apiKeyHelper": "local"}],
            "local",
        ),
        # An empty or non-string entry names none, so an earlier tier's stands.
        ([{"apiKeyHelper": "user"}, {"apiKeyHelper": ""}, {"apiKeyHelper": 3}], "user"),
        ([{"apiKeyHelper": None}], None),
    ],
)
def test_the_api_key_helper_is_the_last_tiers_that_names_one(
    tiers: list[dict[str, Any]], helper: str | None
) -> None:
    assert api_key_helper(tiers) == helper
