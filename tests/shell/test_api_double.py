"""The Messages API double of the real-Claude-Code tier (`tests/real_claude/api_double.py`), checked
with a plain HTTP client, no CLI: the streamed event order, the plain JSON message, the error
bodies and headers, the request record, and the tripwire that keeps the tier on loopback. That
the bundled CLI really goes through that tripwire is shown in `tests/real_claude/test_double.py`.
"""

from __future__ import annotations

import http.client
import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.real_claude.api_double import (
    Answer,
    MessagesApiDouble,
    ToolUse,
    rate_limited,
    subscription_limit,
)


@pytest.fixture
def double() -> Iterator[MessagesApiDouble]:
    with MessagesApiDouble() as api:
        yield api
        assert api.escapes == [] and api.pending == 0


def _post(double: MessagesApiDouble, body: dict[str, Any]) -> http.client.HTTPResponse:
    host, port = double.base_url[len("http://") :].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request("POST", "/v1/messages", json.dumps(body), {"content-type": "application/json"})
    return conn.getresponse()


def _events(raw: str) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for chunk in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        found.append((lines["event"], json.loads(lines["data"])))
    return found


def test_streamed_reply_follows_the_real_event_order(double: MessagesApiDouble) -> None:
    double.script(ToolUse("Read", {"file_path": "/x"}, id="toolu_1", text="Let me look."))
    response = _post(double, {"model": "m", "stream": True, "messages": []})
    assert response.status == 200
    assert response.getheader("content-type", "").startswith("text/event-stream")
    events = _events(response.read().decode())
    names = [name for name, _ in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    letters = {"content_block_start": "S", "content_block_delta": "D", "content_block_stop": "T"}
    blocks = "".join(letters[n] for n in names if n in letters)
    assert re.fullmatch("(SD+T){2}", blocks), blocks  # a text block, then the tool_use block
    assert all(data["type"] == name for name, data in events)
    text = "".join(
        d["delta"]["text"] for n, d in events if d.get("delta", {}).get("type") == "text_delta"
    )
    assert text == "Let me look."
    partial = "".join(
        d["delta"]["partial_json"]
        for n, d in events
        if d.get("delta", {}).get("type") == "input_json_delta"
    )
    assert json.loads(partial) == {"file_path": "/x"}
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"
    assert double.messages()[0].body == {"model": "m", "stream": True, "messages": []}


def test_plain_reply_is_one_json_message(double: MessagesApiDouble) -> None:
    double.script(Answer("Plain."))
    response = _post(double, {"model": "m", "stream": False, "messages": []})
    message = json.loads(response.read())
    assert response.status == 200
    assert message["type"] == "message" and message["role"] == "assistant"
    assert message["content"] == [{"type": "text", "text": "Plain."}]
    assert message["stop_reason"] == "end_turn"


def test_errors_have_the_real_body_and_headers(double: MessagesApiDouble) -> None:
    double.script(rate_limited(retry_after=7), subscription_limit(1_900_000_000))
    first = _post(double, {"model": "m", "stream": True})
    body = json.loads(first.read())
    assert first.status == 429 and first.getheader("retry-after") == "7"
    assert first.getheader("request-id", "").startswith("req_")
    assert body["type"] == "error" and body["error"]["type"] == "rate_limit_error"
    second = _post(double, {"model": "m"})
    second.read()
    assert second.getheader("anthropic-ratelimit-unified-status") == "rejected"
    assert second.getheader("anthropic-ratelimit-unified-reset") == "1900000000"
    # Nothing left: the next request is refused loudly and recorded as unscripted.
    third = _post(double, {"model": "m"})
    assert third.status == 400
    assert "nothing scripted" in json.loads(third.read())["error"]["message"]
    assert len(double.unscripted) == 1
    double.reset()  # the test's own leftovers are not the CLI's


def test_a_token_count_is_refused_and_never_taken_for_the_conversation(
    double: MessagesApiDouble,
) -> None:
    # Claude Code counts its context's tokens on its own (a client's context-usage question):
    # refused, so it estimates; the script is kept for the conversation.
    double.script(Answer("Kept."))
    host, port = double.base_url[len("http://") :].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    body = json.dumps({"model": "m", "messages": []})
    conn.request("POST", "/v1/messages/count_tokens?beta=true", body)
    assert conn.getresponse().status == 400
    [counted] = double.requests
    assert counted.is_count and not counted.is_messages and not counted.is_title
    assert double.pending == 1
    response = _post(double, {"model": "m", "stream": False, "messages": []})
    assert json.loads(response.read())["content"] == [{"type": "text", "text": "Kept."}]
    double.reset()  # the refused count is the test's own, not the CLI's


def test_tripwire_records_what_tries_to_leave_loopback() -> None:
    with MessagesApiDouble() as own:
        proxy = urllib.request.ProxyHandler({"http": own.tripwire_url})
        opener = urllib.request.build_opener(proxy)
        with pytest.raises(urllib.error.HTTPError):
            opener.open("http://statsig.anthropic.com/v1/initialize", timeout=30)
        assert own.escapes == ["GET http://statsig.anthropic.com/v1/initialize HTTP/1.1"]
