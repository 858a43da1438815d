"""What Claude and its tools say cannot act on the client, in process (`agent_in_process`: a real
ACP client, the real SDK and the scripted Claude in this process): control characters and escape
sequences never reach a title, an option name, a plan entry or a record title, while a tool's
output keeps its bytes. What only a real process writes (bytes that are not UTF-8, tool input
nested deeper than a parser follows) is end to end: tests/e2e/test_hostile_text.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import PromptResponse

from adapter.scripted_claude.steps import AssistantError, Permission, Result, Scenario, ToolUse
from tests.support.harness import Adapter
from tests.support.shell_harness import agent_in_process

# A Bash command as an attacker would write it: a terminal title change (OSC 0 ... BEL), a
# clear screen (CSI 2J), a carriage return that hides what came before it, a NUL, and a C1 CSI.
HOSTILE = "echo \x1b]0;pwned\x07hi \x1b[2J\rrm -rf ~\x00 \x9b31m"
SHOWN = "echo ␛]0;pwned␇hi ␛[2J␍rm -rf ~␀ \ufffd31m"
# A card's title is one line with its whitespace collapsed: the carriage return is a space there.
SHOWN_TITLE = SHOWN.replace("␍", " ")
COLOURED = "\x1b[31mred\x1b[0m\x07"

_LIMIT = "API Error: Request rejected (429) " + HOSTILE
HOSTILE_TEXT = Scenario(
    name="hostile_text",
    description="",
    turns=(
        (
            Permission(tool_name="Bash", input={"command": HOSTILE}, result=COLOURED),
            ToolUse(
                name="TodoWrite",
                input={"todos": [{"content": HOSTILE, "status": "pending", "activeForm": HOSTILE}]},
                result="ok",
            ),
            AssistantError(error="rate_limit", text=_LIMIT, api_error_status=429),
            Result(
                is_error=True,
                result=_LIMIT,
                api_error_status=429,
                terminal_reason="api_error",
                stop_reason="stop_sequence",
            ),
        ),
    ),
)


def _controls(text: str) -> list[str]:
    """The C0 and C1 control characters in `text` (what a terminal would act on)."""
    return [c for c in text if ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0]


async def _run(tmp_path: Path, prompt: str) -> Adapter:
    async with agent_in_process(tmp_path, "hostile_text", scenarios=[HOSTILE_TEXT]) as adapter:
        session = await adapter.new_session()
        answer = await adapter.prompt(session, prompt)
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    return adapter


@pytest.mark.asyncio
async def test_titles_options_plans_and_records_show_control_characters_harmlessly(
    tmp_path: Path,
) -> None:
    adapter = await _run(tmp_path, "look \x1b]0;here\x07 please")
    [asked] = [m for m in adapter.incoming() if m.get("method") == "session/request_permission"]
    question: dict[str, Any] = asked["params"]
    names = [option["name"] for option in question["options"]]
    assert f"Yes, and don't ask again for `{SHOWN}` this session" in names
    # The card that opens as the call starts streaming (`rawInput: {}`) is titled with the
    # tool's name until its command is known; every title after that is the command, shown.
    cards = [u for u in adapter.updates() if u.get("kind") == "execute" and u.get("rawInput")]
    titles = [question["toolCall"]["title"], *(card["title"] for card in cards)]
    assert titles and set(titles) == {SHOWN_TITLE}, titles
    [plan] = adapter.updates("plan")
    assert [entry["content"] for entry in plan["entries"]] == [SHOWN]
    [(_, record)] = adapter.records()
    assert record["title"] == f"API Error: Request rejected (429) {SHOWN}"
    [named] = [u for u in adapter.updates("session_info_update") if "title" in u]
    assert named["title"] == "look ␛]0;here␇ please"
    for text in [*names, *titles, plan["entries"][0]["content"], record["title"], named["title"]]:
        assert _controls(text) == [], text
    # The tool's own output keeps its bytes (a console block renders its colours), and so does
    # the raw input the card carries as data.
    results = [
        block["content"]["text"]
        for update in adapter.updates("tool_call_update")
        for block in update.get("content") or []
        if block.get("type") == "content"
    ]
    assert any(COLOURED in text for text in results), results
    assert cards[0]["rawInput"] == {"command": HOSTILE}
