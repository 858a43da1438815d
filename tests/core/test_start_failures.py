"""Claude Code's start-up failure results, as the error that answers the request that started
it (`fsm.claude.start_failures`): the reference's codes, Claude Code's own words, scrubbed."""

from __future__ import annotations

from typing import Any

import pytest

from fsm.claude.start_failures import MESSAGE_LIMIT, StartFailureKind, start_failure

PROXY = (
    'Invalid proxy URL in HTTPS_PROXY: "http://user:pw@" cannot be parsed as a URL.\n'
    'Proxy settings must be a complete URL including the scheme, e.g. "http://proxy.example.com'
    ':8080".\nFix or unset HTTPS_PROXY and restart Claude Code.'
)


def _result(reason: object, *errors: object, **extra: Any) -> dict[str, Any]:
    return {
        "type": "result",
        "subtype": "error_during_execution",
        "is_error": True,
        "errors": list(errors),
        "startup_failure_reason": reason,
        **extra,
    }


@pytest.mark.parametrize(
    ("reason", "kind"),
    [
        ("gateway_signin_required", StartFailureKind.SIGN_IN),
        ("org_pin_mismatch", StartFailureKind.SIGN_IN),
        ("org_config_refused", StartFailureKind.SIGN_IN),
        ("cwd_unavailable", StartFailureKind.FOLDER),
        ("proxy_invalid", StartFailureKind.OTHER),
        ("temp_dir_unusable", StartFailureKind.OTHER),
        ("a_reason_added_later", StartFailureKind.OTHER),
    ],
)
def test_the_reference_sorts_them_so(reason: str, kind: StartFailureKind) -> None:
    failure = start_failure(_result(reason, "Claude Code says why."))
    assert failure is not None
    assert (failure.kind, failure.reason) == (kind, reason)
    assert failure.message == "Claude Code says why."


def test_claude_codes_words_stay_and_what_they_quote_of_a_setting_goes() -> None:
    failure = start_failure(_result("proxy_invalid", PROXY))
    assert failure is not None
    assert failure.message == (
        'Invalid proxy URL in HTTPS_PROXY: "…" cannot be parsed as a URL. Proxy settings must be '
        'a complete URL including the scheme, e.g. "…". Fix or unset HTTPS_PROXY and restart '
        "Claude Code."
    )
    assert "pw" not in failure.message and "\n" not in failure.message


def test_secrets_private_values_and_userinfo_are_masked() -> None:
    said = (
        "Organization pin mismatch for sk-ant-api03-" + "a" * 40 + " in /home/alice/project "
        'with proxy "bob:hunter2@proxy.corp:8080"; token secret-value-123'
    )
    failure = start_failure(_result("org_pin_mismatch", said), private=("secret-value-123",))
    assert failure is not None
    for leak in ("sk-ant-api03", "alice", "hunter2", "secret-value-123"):
        assert leak not in failure.message, failure.message
    assert failure.message.startswith("Organization pin mismatch")


def test_several_errors_are_one_line() -> None:
    failure = start_failure(
        _result("cwd_unavailable", " The folder is gone. ", "", 7, "Open another.")
    )
    assert failure is not None and failure.message == "The folder is gone. Open another."


def test_a_long_message_is_bounded() -> None:
    failure = start_failure(_result("proxy_invalid", "word " * 5000))
    assert failure is not None
    assert len(failure.message) == MESSAGE_LIMIT and failure.message.endswith("…")


@pytest.mark.parametrize(
    "result",
    [
        _result(None, "no reason: an older Claude Code"),
        _result("", "an empty reason"),
        _result("Not A Reason!", "a reason of another shape"),
        _result("x" * 100, "a reason too long to be one"),
        _result("proxy_invalid"),  # nothing said
        _result("proxy_invalid", "   ", ""),
        _result("proxy_invalid", "words", type="assistant"),
        {"type": "result", "startup_failure_reason": "proxy_invalid", "errors": "not a list"},
        "a string",
        None,
    ],
)
def test_what_is_not_a_start_up_failure_result(result: object) -> None:
    assert start_failure(result) is None
