"""A client that opened its session with `_meta.claudeCode.emitRawSDKMessages` gets Claude
Code's messages as Claude wrote them, `_claude/sdkMessage {sessionId, message}`, before the
usual updates they make; one that did not gets none (`fsm.claude.raw_messages` picks which)."""

from __future__ import annotations

from typing import Any

import pytest
from acp import RequestError
from claude_agent_sdk import SystemMessage

from adapter.claude import client_options
from adapter.claude.client_options import ClientOptions
from adapter.controls.pickers import SessionConfig
from adapter.controls.session_controls import SessionControls
from fsm import raw_message_choice
from tests.support.shell_harness import EPOCH, FakeLink, session_with_fakes

pytestmark = pytest.mark.anyio

STATUS = {"type": "system", "subtype": "status", "status": None, "session_id": "c", "uuid": "u1"}
INIT = {"type": "system", "subtype": "init", "session_id": "c", "uuid": "u2", "tools": []}


def _controls(raw: object) -> Any:
    def build(link: FakeLink) -> SessionControls:
        options = ClientOptions(raw_messages=raw_message_choice(raw))
        config = SessionConfig.initial({}, None)
        return SessionControls(session_id="s", link=link, config=config, client_options=options)

    return build


async def _say(session: Any, frame: dict[str, Any]) -> None:
    message = SystemMessage(subtype=frame["subtype"], data=frame)
    await session.claude.on_message(message, frame, EPOCH)


@pytest.mark.parametrize(
    ("raw", "sent"),
    [
        (True, [STATUS, INIT]),
        ([{"type": "system", "subtype": "init"}], [INIT]),
        (None, []),
    ],
)
async def test_the_messages_asked_for_go_out_raw(raw: object, sent: list[Any]) -> None:
    async with session_with_fakes(controls=_controls(raw)) as (session, link, _, _):
        await _say(session, STATUS)
        await _say(session, INIT)
    assert link.notified == [("_claude/sdkMessage", {"sessionId": "s", "message": f}) for f in sent]


def test_the_choice_is_read_beside_the_options_and_refused_when_malformed() -> None:
    assert client_options.parse({"emitRawSDKMessages": True}).raw_messages.everything
    both = client_options.parse({"emitRawSDKMessages": [{"type": "result"}], "options": {}})
    assert both.raw_messages.sends({"type": "result"})
    assert client_options.parse({"options": {}}).raw_messages.wanted is False
    with pytest.raises(RequestError) as refused:
        client_options.parse({"emitRawSDKMessages": "all"})
    assert refused.value.code == -32602
    assert "_meta.claudeCode.emitRawSDKMessages" in str(refused.value.data)
