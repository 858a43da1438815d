"""`/remote-control` in the shell (`adapter.controls.remote_control_switch`): Claude Code asked,
one agent message, refused while Claude works or another change runs, the next prompt held
back meanwhile; the command offered where Claude Code does not offer it; and a message typed in
another client shown live as the user's (`fsm.claude.remote_control`). In process, on fakes."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from acp import RequestError
from acp.schema import TextContentBlock
from claude_agent_sdk import UserMessage

from adapter.controls.pickers import SessionConfig
from adapter.controls.remote_control_switch import RemoteControlSwitch
from adapter.controls.session_controls import SessionControls
from tests.support.shell_harness import EPOCH, FakeLink, session_with_fakes

pytestmark = pytest.mark.anyio

URL = "https://claude.ai/code/session_01abc"


class Query:
    def __init__(self, answer: Any, gate: anyio.Event | None = None) -> None:
        self.answer, self.gate = answer, gate
        self.requests: list[dict[str, Any]] = []

    async def _send_control_request(self, request: dict[str, Any]) -> Any:
        self.requests.append(request)
        if self.gate is not None:
            await self.gate.wait()
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


class Claude:
    def __init__(self, answer: Any, gate: anyio.Event | None = None) -> None:
        self._query = Query(answer, gate)


def _text(text: str) -> list[Any]:
    return [TextContentBlock(type="text", text=text)]


def _said(link: FakeLink) -> list[str]:
    return [u["content"]["text"] for u in link.sent if isinstance(u, dict)]


async def test_the_command_asks_claude_code_and_answers_with_its_address() -> None:
    link = FakeLink()
    switch = RemoteControlSwitch(session_id="s", link=link)
    claude = Claude({"session_url": URL, "environment_id": "e"})
    assert await switch.run(_text("/remote-control laptop"), claude, working=False)
    assert claude._query.requests == [
        {"subtype": "remote_control", "enabled": True, "name": "laptop"}
    ]
    (text,) = _said(link)
    assert URL in text and text.startswith("Remote Control is active.")
    assert await switch.run(_text("/remote-control off"), Claude({}), working=False)
    assert _said(link)[-1] == "Remote Control is off. Run /remote-control to reconnect."


async def test_claude_codes_refusal_is_the_answer() -> None:
    link = FakeLink()
    switch = RemoteControlSwitch(session_id="s", link=link)
    refused = Claude(Exception("Remote Control cannot be enabled from inside a remote session"))
    assert await switch.run(_text("/remote-control"), refused, working=False)
    assert _said(link) == [
        "Could not start Remote Control: Remote Control cannot be enabled from inside a remote "
        "session"
    ]


@pytest.mark.parametrize("blocks", [_text("hello"), _text("/remote-controlled"), []])
async def test_any_other_prompt_is_not_the_command(blocks: list[Any]) -> None:
    link = FakeLink()
    claude = Claude({})
    assert not await RemoteControlSwitch(session_id="s", link=link).run(
        blocks, claude, working=False
    )
    assert claude._query.requests == [] and link.sent == []


async def test_refused_while_claude_works() -> None:
    claude = Claude({})
    switch = RemoteControlSwitch(session_id="s", link=FakeLink())
    with pytest.raises(RequestError) as refused:
        await switch.run(_text("/remote-control"), claude, working=True)
    assert refused.value.code == -32600 and claude._query.requests == []


async def test_one_change_at_a_time_and_the_next_prompt_waits_for_it() -> None:
    link = FakeLink()
    gate = anyio.Event()
    switch = RemoteControlSwitch(session_id="s", link=link)
    order: list[str] = []
    async with anyio.create_task_group() as tg:
        change = switch.run(
            _text("/remote-control"), Claude({"session_url": URL}, gate), working=False
        )
        tg.start_soon(lambda: change)
        with anyio.fail_after(10):
            while switch._changing is None:
                await anyio.sleep(0)
        with pytest.raises(RequestError) as refused:
            await switch.run(_text("/remote-control off"), Claude({}), working=False)
        assert "already being changed" in str(refused.value)

        async def next_prompt() -> None:
            await switch.settled()
            order.append("prompt")

        tg.start_soon(next_prompt)
        await anyio.sleep(0)
        assert order == []
        gate.set()
    assert order == ["prompt"] and len(_said(link)) == 1
    await switch.settled()  # nothing under way: at once


def _controls(listed: list[Any]) -> SessionControls:
    controls = SessionControls(
        session_id="s", link=FakeLink(), config=SessionConfig.initial({}, None)
    )
    controls._listed = listed
    return controls


def test_offered_unless_claude_code_offers_it_itself() -> None:
    ours = _controls([{"name": "review", "description": "Review"}])
    assert ours.stands_in_for_remote_control()
    assert [c.name for c in ours._offered()][-1] == "remote-control"
    theirs = _controls([{"name": "remote-control", "description": "Claude Code's own"}])
    assert not theirs.stands_in_for_remote_control()
    (entry,) = [c for c in theirs._offered() if c.name == "remote-control"]
    assert entry.description == "Claude Code's own"
    theirs._terminal_only = frozenset({"remote-control"})  # bound to its terminal: ours again
    assert theirs.stands_in_for_remote_control()
    (entry,) = [c for c in theirs._offered() if c.name == "remote-control"]
    assert "claude.ai/code" in entry.description


async def test_a_message_typed_elsewhere_is_shown_as_the_users() -> None:
    async with session_with_fakes() as (session, link, runtime, _):
        await runtime.send({"type": "user", "uuid": "ours"})  # a prompt the adapter sent
        for stamp, text in (
            ("ours", "the adapter's own"),
            ("theirs", "typed <system-reminder>x</system-reminder>on a phone"),
        ):
            raw = {
                "type": "user",
                "uuid": stamp,
                "isReplay": True,
                "origin": {"kind": "human"},
                "parent_tool_use_id": None,
                "message": {"role": "user", "content": text},
            }
            await session.claude.on_message(UserMessage(content=text, uuid=stamp), raw, EPOCH)
    chunks = [
        u
        for u in link.sent
        if isinstance(u, dict) and u.get("sessionUpdate") == "user_message_chunk"
    ]
    assert chunks == [
        {
            "sessionUpdate": "user_message_chunk",
            "content": {"type": "text", "text": "typed on a phone"},
        }
    ]
