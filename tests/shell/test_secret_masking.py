"""docs/decisions.md#secrets in process: every credential shape is masked by `redact`, its
near misses are left alone, a private value of no known shape is masked too, and log lines are
masked, escaped onto one line and free of tracebacks below DEBUG (`adapter/app/log_masking.py`).
End to end, the hostile prose reaching neither a frame nor a log line: `tests/e2e/test_secrets.py`.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from adapter.app.log_masking import escape_controls, install_log_masking
from fsm import redact

SHAPES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ('Body was {"api_key": "plain value 1"} here.', "plain value 1", ("Body was", "here.")),
    ('Got {"client_secret":"s3cr\\"et"} back.', 's3cr\\"et', ("Got", "back.")),
    ('Sent {"password": "correct horse"}.', "correct horse", ("Sent",)),
    ("AWS said AKIAIOSFODNN7EXAMPLE is unknown.", "AKIAIOSFODNN7EXAMPLE", ("AWS said", "unknown.")),
    (
        "GitHub token ghp_16C7e42F292c6912E7710c838347Ae178B4a was revoked.",
        "16C7e42F292c6912E7710c838347Ae178B4a",
        ("GitHub token", "was revoked."),
    ),
    (
        "Used github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz now.",
        "11ABCDEFG0123456789",
        ("Used", "now."),
    ),
    (
        "Slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp failed.",
        "123456789012-1234567890123",
        ("Slack", "failed."),
    ),
    ("Header Basic dXNlcjpwYXNz was refused.", "dXNlcjpwYXNz", ("Header", "was refused.")),
    ("Env had SECRET_KEY=abcdef in it.", "abcdef", ("Env had", "in it.")),
    ("Query access_token=zzzyyyxxx&page=2 failed.", "zzzyyyxxx", ("Query", "page=2 failed.")),
    ("Fetched https://ghs_tok3nvalue@host.test/x ok.", "ghs_tok3nvalue", ("Fetched https://",)),
)


@pytest.mark.parametrize(("text", "secret", "kept"), SHAPES, ids=[s[1][:16] for s in SHAPES])
def test_each_shape_is_masked_and_its_words_kept(
    text: str, secret: str, kept: tuple[str, ...]
) -> None:
    masked = redact(text)
    assert secret not in masked, masked
    for words in kept:
        assert words in masked, (words, masked)


@pytest.mark.parametrize(
    "text",
    [
        "Basic authentication failed for this proxy.",
        "The max_tokens setting is 4096 for this model.",
        "Tokens: 1200 in, 300 out.",
        'Read {"name": "value"} from the config.',
        "Use AKIA-style key ids only in the console.",
    ],
)
def test_near_misses_are_left_alone(text: str) -> None:
    assert redact(text) == text


def test_a_masked_json_value_stays_a_json_string() -> None:
    # The mask replaces the quoted value whole: no stray backslash before its closing quote,
    # and masking a masked text again changes nothing.
    masked = redact('Body {"api_key": "plain value", "n": 1} here')
    assert masked == 'Body {"api_key": "***", "n": 1} here'
    assert redact(masked) == masked


def test_a_private_value_of_no_known_shape_is_masked() -> None:
    assert redact("key Zq8vLmNopRstUvw here", ("Zq8vLmNopRstUvw",)) == "key *** here"


# --- log lines --------------------------------------------------------------------------------


@pytest.fixture
def masked_log() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    before = logging.getLogRecordFactory()
    install_log_masking(lambda: ("Zq8vLmNopRstUvw",))
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("tests.secrets")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    yield logger, stream
    logger.removeHandler(handler)
    logging.setLogRecordFactory(before)


def test_log_lines_are_masked_and_one_line(masked_log: tuple[logging.Logger, io.StringIO]) -> None:
    logger, stream = masked_log
    logger.warning("session %s: key %s", "evil\nFORGED ERROR line\x00", "Zq8vLmNopRstUvw")
    logger.warning("token sk-ant-api03-abcdefghijklmnop and /home/alice/.env")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert "evil\\nFORGED ERROR line\\x00" in lines[0] and "Zq8vLmNopRstUvw" not in lines[0]
    assert "abcdefghijklmnop" not in lines[1] and "/home/alice" not in lines[1]


def test_warnings_carry_no_traceback_unless_debug(
    masked_log: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, stream = masked_log
    try:
        raise ValueError("secret sk-ant-api03-abcdefghijklmnop inside")
    except ValueError:
        logger.warning("bad input", exc_info=True)
        logger.error("a bug of ours", exc_info=True)
    text = stream.getvalue()
    first, rest = text.split("\n", 1)
    assert first == "bad input (ValueError)"
    assert "Traceback" in rest and "abcdefghijklmnop" not in text


def test_escape_controls_keeps_ordinary_text() -> None:
    assert escape_controls("plain · text ✓") == "plain · text ✓"
    assert escape_controls("a\r\nb\u2028") == "a\\r\\nb\\u2028"
