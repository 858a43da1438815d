"""A `/rename` typed in the chat, in the live view (docs/decisions.md#live-session-names): the
turn's end reads the name Claude Code stored and shows it; the command's own text never names
the session, no generated title is asked for after it, and a name that cannot be read or is
the same sends nothing."""

from __future__ import annotations

from typing import Any

import pytest
from acp.schema import TextContentBlock

from adapter.session.live_view import LiveView
from tests.support.shell_harness import FakeLink

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _titles(link: FakeLink) -> list[str]:
    return [
        u["title"]
        for u in link.sent
        if isinstance(u, dict) and u.get("sessionUpdate") == "session_info_update"
    ]


def _view() -> tuple[LiveView, FakeLink, list[str]]:
    link = FakeLink()
    view = LiveView(link, "s", "/", terminal_output=False, titled=False)
    reads: list[str] = []
    view.read_titles_with(lambda: reads.append("read"))
    asked: list[str] = []
    view.ask_titles_with(asked.append)
    return view, link, reads


def _prompt(view: LiveView, text: str) -> None:
    view.prompted([TextContentBlock(type="text", text=text)])


async def _stored(title: Any) -> Any:
    return title


async def test_a_rename_names_the_session_once_its_turn_is_over() -> None:
    view, link, reads = _view()
    _prompt(view, "please fix the flaky login test")
    await view.turn_settled()
    assert _titles(link) == ["please fix the flaky login test"] and reads == []
    _prompt(view, "/rename Login work")
    assert view.title_request() is None
    await view.turn_settled()
    assert reads == ["read"]
    await view.read_title(lambda: _stored("Login\nwork"))
    await view.read_title(lambda: _stored("Login work"))  # the same name: nothing more
    assert _titles(link) == ["please fix the flaky login test", "Login work"]
    # Later prompts ask Claude Code for no title: the user's name stands.
    _prompt(view, "and now update the docs as well")
    assert view.title_request() is None
    await view.turn_settled()
    assert reads == ["read"]


async def test_a_first_prompt_that_renames_is_no_first_line() -> None:
    view, link, reads = _view()
    _prompt(view, "/rename Login work")
    await view.turn_settled()
    assert _titles(link) == [] and reads == ["read"]
    await view.read_title(lambda: _stored(None))  # Claude Code stored none (it refused)
    assert _titles(link) == []


async def test_a_stored_title_that_cannot_be_read_sends_nothing() -> None:
    view, link, _ = _view()

    async def broken() -> str | None:
        raise OSError("gone")

    _prompt(view, "/rename Login work")
    await view.turn_settled()
    await view.read_title(broken)
    assert _titles(link) == []


@pytest.mark.parametrize(
    ("stored", "shown"),
    [("", None), ("  \n\t ", None), ("x" * 10_240, "x" * 255 + "\u2026")],
    ids=["empty", "blank", "10KB"],
)
async def test_a_stored_name_that_is_empty_or_10_kb_is_shown_safely(
    stored: str, shown: str | None
) -> None:
    """Bad input: Claude Code stored an empty name (nothing is sent, the first line stays) or
    a 10 KB one (shown cut to the list's length, with an ellipsis)."""
    view, link, reads = _view()
    _prompt(view, "please fix the flaky login test")
    await view.turn_settled()
    _prompt(view, "/rename whatever")
    await view.turn_settled()
    assert reads == ["read"]
    await view.read_title(lambda: _stored(stored))
    want = ["please fix the flaky login test"] + ([shown] if shown is not None else [])
    assert _titles(link) == want
