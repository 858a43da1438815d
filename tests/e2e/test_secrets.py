"""DECISIONS row 31 (issue 11): every credential shape is masked in every text the adapter
authors or forwards from an error, and in log lines; model prose of a successful answer is not.

`redact` for each shape; the log record factory; then end to end: the scripted Claude's
`hostile_error` prose (carrying the adapter's own `ANTHROPIC_API_KEY` value, of no known shape)
reaches neither a frame, in any client mode (legacy agent text included), nor a log line.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from acp.schema import PromptResponse

from adapter.app.log_masking import _MaskedRecord, escape_controls, install_log_masking
from fsm.records import redact
from tests.support.harness import spawn_adapter

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


def test_a_private_value_of_no_known_shape_is_masked() -> None:
    assert redact("key Zq8vLmNopRstUvw here", ("Zq8vLmNopRstUvw",)) == "key *** here"


# --- log lines --------------------------------------------------------------------------------


@pytest.fixture
def masked_log() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    before = logging.getLogRecordFactory()
    install_log_masking(("Zq8vLmNopRstUvw",))
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
    assert isinstance(
        logging.getLogRecordFactory()(  # the factory is restored after each test
            "x", logging.INFO, "f", 1, "m", None, None
        ),
        logging.LogRecord,
    )
    assert _MaskedRecord.__mro__[1] is logging.LogRecord


# --- end to end -------------------------------------------------------------------------------

API_KEY = "Zq8vLmNopRstUvwXy"  # no known shape: masked because it is the adapter's own key


@pytest.mark.e2e
@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False])
async def test_claude_error_prose_leaks_no_secret_to_any_frame_or_log_line(
    tmp_path: Path, capable: bool
) -> None:
    env = {"ANTHROPIC_API_KEY": API_KEY, "HOME": "/home/alice"}
    async with spawn_adapter(tmp_path, "hostile_error", capable=capable, env=env) as adapter:
        session = await adapter.new_session()
        failed = await adapter.prompt(session, "hello")
        ok = await adapter.prompt(session, "the password is hunter2-hostile, keep it")
    assert isinstance(ok, PromptResponse) and ok.stop_reason == "end_turn"
    # Legacy clients keep Claude's error prose as agent text: masked, words kept.
    if not capable:
        assert not isinstance(failed, PromptResponse)
        prose = [t for t in adapter.agent_texts() if "API Error: 500" in t]
        assert prose and "Please try again later." in prose[0]
        assert "with key ***" in prose[0]  # Claude did echo the key: it was masked
    frames = [json.dumps(f.message) for f in adapter.frames if f.direction == "incoming"]
    log = adapter.stderr()
    for secret in (API_KEY, "sk-ant-api03-Xq9vT2mB7nK4pL8sR1wE6yU3iO0aZ5cV", "/home/alice"):
        for frame in frames:
            if "Scripted reply to:" in frame:
                continue  # model prose of a successful answer (the user's own words) is verbatim
            assert secret not in frame, (secret, frame)
        assert secret not in log, secret
    # Model prose of a successful answer is not rewritten.
    assert "Scripted reply to: the password is hunter2-hostile, keep it" in adapter.agent_texts()
