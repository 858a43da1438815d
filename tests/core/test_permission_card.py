"""The tool call a permission request shows (`fsm.claude.permission_card`): which of the card's
fields it carries for each client, and what Claude Code's request adds."""

from __future__ import annotations

from typing import Any

from fsm import AirClient, PermissionCard, air_client, permission_card

FULL = ("toolCallId", "title", "kind", "status", "rawInput", "locations", "content")
SLIM = ("toolCallId", "title", "rawInput")
SERVER = {"name": "computer-use", "source": "sdk"}


def test_a_plain_request_is_the_whole_card_with_nothing_added() -> None:
    assert permission_card(tool_name="Bash", card_paths=[], has_content=True) == PermissionCard(
        fields=FULL
    )


def test_the_blocked_path_is_one_more_location_unless_the_card_has_it() -> None:
    card = permission_card(
        tool_name="Bash", card_paths=[], has_content=True, blocked_path="/etc/hosts"
    )
    assert card.extra_location == "/etc/hosts" and card.fields == FULL
    held = permission_card(
        tool_name="Read", card_paths=["/etc/hosts"], has_content=False, blocked_path="/etc/hosts"
    )
    assert held.extra_location is None


def test_a_blocked_path_is_one_line_of_bounded_text_or_nothing() -> None:
    def extra(value: object) -> str | None:
        return permission_card(
            tool_name="Bash", card_paths=[], has_content=True, blocked_path=value
        ).extra_location

    assert extra("  /tmp/a\x07b  ") == "/tmp/ab"  # control characters dropped, trimmed
    assert extra("/" + "a" * 4_095) == "/" + "a" * 4_095
    assert extra("/" + "a" * 4_096) is None  # too long: not used
    assert extra("   ") is None
    assert extra(7) is None


def test_a_computer_use_tool_is_titled_by_its_display_name_and_shows_its_input() -> None:
    card = permission_card(
        tool_name="mcp__computer-use__screenshot",
        card_paths=[],
        has_content=False,
        display_name="Take a\n  screenshot",
    )
    assert card.title == "Take a screenshot" and card.input_as_json
    # A card with content of its own keeps it.
    shown = permission_card(
        tool_name="mcp__computer-use__click", card_paths=[], has_content=True, display_name="Click"
    )
    assert shown.title == "Click" and not shown.input_as_json
    # A display name too long, blank or of another type leaves the card's title.
    for name in ("x" * 161, " ", None, ["Click"]):
        plain = permission_card(
            tool_name="mcp__computer-use__click", card_paths=[], has_content=True, display_name=name
        )
        assert plain.title is None


def test_a_card_titled_by_its_bare_tool_name_takes_the_requests_title() -> None:
    def title(card_title: object, request_title: object, tool: str = "WebFetch") -> Any:
        return permission_card(
            tool_name=tool,
            card_paths=[],
            has_content=True,
            card_title=card_title,
            request_title=request_title,
        ).title

    assert title("WebFetch", "Fetch\nexample.com") == "Fetch example.com"  # as a line
    # A card with a title of its own keeps it; a request with no title changes nothing.
    assert title("Fetch https://example.com", "Fetch example.com") is None
    for missing in (None, "", 7):
        assert title("WebFetch", missing) is None
    # A computer-use tool's display name wins over the request's title.
    computer = permission_card(
        tool_name="mcp__computer-use__click",
        card_paths=[],
        has_content=True,
        card_title="mcp__computer-use__click",
        request_title="Claude wants to click",
        display_name="Click",
    )
    assert computer.title == "Click"
    assert title("mcp__computer-use__click", "Click it", tool="mcp__computer-use__click") == (
        "Click it"
    )


def test_another_tools_display_name_changes_nothing() -> None:
    card = permission_card(
        tool_name="mcp__files__read", card_paths=[], has_content=False, display_name="Read file"
    )
    assert card == PermissionCard(fields=FULL)


def test_a_display_name_shows_no_control_character() -> None:
    card = permission_card(
        tool_name="mcp__computer-use__type",
        card_paths=[],
        has_content=True,
        display_name="Type \u202etext",
    )
    assert card.title == "Type \ufffdtext"


def test_claude_code_meta_names_the_tool_with_a_parent_or_a_server() -> None:
    def meta(**facts: Any) -> object:
        return permission_card(tool_name="Bash", card_paths=[], has_content=True, **facts).meta

    assert meta() is None  # neither: no `_meta`, as the reference sends it
    assert meta(parent_tool_use_id="toolu_agent") == {
        "claudeCode": {"toolName": "Bash", "parentToolUseId": "toolu_agent"}
    }
    assert meta(mcp_server=SERVER) == {"claudeCode": {"toolName": "Bash", "mcpServer": SERVER}}
    # Only the server's name and source, and only as text.
    assert meta(mcp_server={"name": "db", "source": 3, "url": "https://x"}) == {
        "claudeCode": {"toolName": "Bash", "mcpServer": {"name": "db"}}
    }
    assert meta(mcp_server="db") is None
    assert meta(mcp_server={"url": "https://x"}) is None


def test_air_gets_its_share_and_only_the_server_in_its_meta() -> None:
    def card(**facts: Any) -> PermissionCard:
        return permission_card(
            tool_name="Bash", card_paths=[], has_content=False, slim=True, **facts
        )

    # The verdict travels with the share: the shell adds no tool name, kind or plan to it.
    assert card() == PermissionCard(fields=SLIM, slim=True)
    # It has the parent from the card; the server is new.
    assert card(parent_tool_use_id="toolu_agent") == PermissionCard(fields=SLIM, slim=True)
    assert card(mcp_server=SERVER).meta == {"claudeCode": {"mcpServer": SERVER}}
    # The blocked path brings the locations with it.
    blocked = card(blocked_path="/etc/hosts")
    assert blocked.fields == (*SLIM, "locations") and blocked.extra_location == "/etc/hosts"


def test_air_is_told_a_computer_use_title_but_gets_no_json_copy() -> None:
    card = permission_card(
        tool_name="mcp__computer-use__screenshot",
        card_paths=[],
        has_content=False,
        display_name="Take a screenshot",
        slim=True,
    )
    assert card == PermissionCard(fields=SLIM, title="Take a screenshot", slim=True)


def test_every_air_client_and_only_one_gets_the_slim_card() -> None:
    assert air_client({"jetbrains": {"air": {}}}).slim_permission_card
    assert not air_client(None).slim_permission_card
    assert not AirClient().slim_permission_card
