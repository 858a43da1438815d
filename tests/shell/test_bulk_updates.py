"""A replay's bulk (`GuardedTransport.send_session_updates`, through `ClientLink`): each update is
one whole `session/update` frame, in order, in one write; a closed output is an error the link
reports as False, never a frame half sent or a replay that believes it was delivered."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapter.wire.client_link import ClientLink
from tests.support.recorded_output import NoTypedSends, RecordingWriter, guarded

UPDATES = [
    {
        "sessionUpdate": "user_message_chunk",
        "content": {"type": "text", "text": "caf\u00e9 \u2028"},
    },
    {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": 'a "q" \\ n'}},
    {"sessionUpdate": "tool_call", "toolCallId": "t1", "rawInput": {"n": 2**70}},
]


@pytest.mark.asyncio
async def test_updates_go_out_as_whole_frames_in_order_in_one_write() -> None:
    writer = RecordingWriter()
    link = ClientLink()
    link.attach(NoTypedSends())
    link.attach_bulk(guarded(writer).send_session_updates)
    assert await link.send_raw_updates('s"1', UPDATES) is True
    assert len(writer.writes) == 1
    lines = writer.writes[0].split(b"\n")
    assert lines[-1] == b""  # every frame ends its line
    frames = [json.loads(line) for line in lines[:-1]]
    assert frames == [
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": 's"1', "update": u}}
        for u in UPDATES
    ]


@pytest.mark.asyncio
async def test_a_closed_output_is_reported_and_nothing_is_written() -> None:
    writer = RecordingWriter(closing=True)
    link = ClientLink()
    link.attach(NoTypedSends())
    link.attach_bulk(guarded(writer).send_session_updates)
    assert await link.send_raw_updates("s1", UPDATES) is False
    assert writer.writes == []


@pytest.mark.asyncio
async def test_the_link_without_a_connection_sends_nothing() -> None:
    writer = RecordingWriter()
    link = ClientLink()
    link.attach_bulk(guarded(writer).send_session_updates)
    assert await link.send_raw_updates("s1", UPDATES) is False
    assert writer.writes == []


def _frames(writer: RecordingWriter) -> list[Any]:
    return [
        json.loads(line)["params"]["update"]
        for data in writer.writes
        for line in data.split(b"\n")
        if line
    ]


OPENED = {"sessionUpdate": "tool_call", "toolCallId": "t1", "_meta": {"claudeCode": {"a": 1}}}
REPEATED = {
    "sessionUpdate": "tool_call_update",
    "toolCallId": "t1",
    "_meta": {"claudeCode": {"a": 1}},
}
CHANGED = {
    "sessionUpdate": "tool_call_update",
    "toolCallId": "t1",
    "_meta": {"claudeCode": {"a": 2}},
}


@pytest.mark.asyncio
async def test_every_way_out_passes_the_changed_meta_filter_once_it_is_on() -> None:
    # `filter_meta(True)`: a JetBrains AIR client. An update left with nothing is not written,
    # and that is no failure.
    writer = RecordingWriter()
    link = ClientLink()
    link.attach(NoTypedSends())
    link.attach_bulk(guarded(writer).send_session_updates)
    link.filter_meta(True)
    assert await link.send_raw_updates("s1", [OPENED, REPEATED]) is True
    assert await link.send_raw_update("s1", REPEATED) is True
    assert await link.send_raw_updates("s1", [REPEATED]) is True
    assert await link.send_raw_update("s1", CHANGED) is True
    assert _frames(writer) == [OPENED, CHANGED]
    # Turned off (a second `initialize`, not AIR's), every key goes again; turned on again,
    # the filter remembers what it held, as the reference's one filter per connection does:
    # the repeat is dropped.
    link.filter_meta(False)
    assert await link.send_raw_update("s1", CHANGED) is True
    assert _frames(writer) == [OPENED, CHANGED, CHANGED]
    link.filter_meta(True)
    assert await link.send_raw_update("s1", CHANGED) is True
    assert _frames(writer) == [OPENED, CHANGED, CHANGED]


@pytest.mark.asyncio
async def test_a_plain_client_gets_every_key_and_a_chunk_never_meets_the_filter() -> None:
    writer = RecordingWriter()
    link = ClientLink()
    link.attach(NoTypedSends())
    link.attach_bulk(guarded(writer).send_session_updates)
    assert await link.send_raw_updates("s1", [OPENED, REPEATED, REPEATED]) is True
    assert _frames(writer) == [OPENED, REPEATED, REPEATED]
    link.filter_meta(True)
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}
    assert await link.send_chunk("s1", chunk) is True
    assert _frames(writer)[-1] == chunk
