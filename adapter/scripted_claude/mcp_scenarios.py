"""Scenarios in which an MCP server asks the user (MCP elicitation) during Claude's tool call.

`mcp_elicit`: Claude calls the `deploy` server's `release` tool, and the server asks which
environment, with fields of every primitive shape (a choice, a boolean, a bounded integer, a
multi-select, free text) and one of a shape ACP's forms lack (an object). Turn 2 is a plain
reply, so a test can check the session goes on.

`mcp_elicit_url`: the `tracker` server's `sign_in` tool asks the user to sign in on a page
(`mode: "url"`, its `elicitation_id` `tracker-sign-in-7`); once accepted the server confirms
(`elicitation_complete`). `mcp_elicit_url_no_id`: the same without an id (and so no
confirmation); `mcp_elicit_url_no_url`: a URL request that lacks its URL;
`mcp_elicit_url_confirmed`: the server confirms the sign-in whatever it heard.

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

from adapter.scripted_claude.steps import McpElicitation, Reply, Result, Scenario

__all__ = [
    "DEPLOY_FORM",
    "DEPLOY_MESSAGE",
    "MCP_SCENARIOS",
    "SIGN_IN_ID",
    "SIGN_IN_MESSAGE",
    "SIGN_IN_URL",
]

DEPLOY_MESSAGE = "Where should the release go?"

DEPLOY_FORM: dict[str, object] = {
    "type": "object",
    "properties": {
        "environment": {
            "type": "string",
            "title": "Environment",
            "enum": ["staging", "production"],
        },
        "notify": {"type": "boolean", "title": "Tell the team", "default": True},
        "replicas": {"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 5},
        "regions": {
            "type": "array",
            "title": "Regions",
            "items": {"anyOf": [{"const": "eu", "title": "Europe"}, {"const": "us"}]},
        },
        "note": {"type": "string", "description": "Anything the release notes should say"},
        "window": {"type": "object", "properties": {"from": {"type": "string"}}},
    },
    "required": ["environment"],
}

SIGN_IN_MESSAGE = "Sign in to the tracker so that Claude can read your tickets."
# Private by nature (a one-time state in it): it may reach the client's form and nowhere else.
SIGN_IN_URL = "https://tracker.example/oauth/authorize?client=acp&state=one-time-4f9c2e"
SIGN_IN_ID = "tracker-sign-in-7"


def _sign_in(
    name: str, description: str, url: str | None, ident: str | None, anyway: bool = False
) -> Scenario:
    return Scenario(
        name=name,
        description=description,
        turns=(
            (
                McpElicitation(
                    server="tracker",
                    tool="sign_in",
                    message=SIGN_IN_MESSAGE,
                    requested_schema={},
                    mode="url",
                    url=url,
                    elicitation_id=ident,
                    confirms_anyway=anyway,
                ),
                Result(),
            ),
            (Reply(), Result()),
        ),
    )


MCP_SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        name="mcp_elicit",
        description="Claude calls an MCP tool whose server asks the user (MCP elicitation), "
        "then says what the server heard.",
        turns=(
            (
                McpElicitation(
                    server="deploy",
                    tool="release",
                    message=DEPLOY_MESSAGE,
                    requested_schema=DEPLOY_FORM,
                ),
                Result(),
            ),
            (Reply(), Result()),
        ),
    ),
    _sign_in(
        "mcp_elicit_url",
        "Claude calls an MCP tool whose server asks the user to sign in on a page (URL "
        "elicitation), which it then confirms done; Claude says what the server heard.",
        SIGN_IN_URL,
        SIGN_IN_ID,
    ),
    _sign_in(
        "mcp_elicit_url_no_id",
        "As mcp_elicit_url, but the server's request has no elicitation id.",
        SIGN_IN_URL,
        None,
    ),
    _sign_in(
        "mcp_elicit_url_no_url",
        "As mcp_elicit_url, but the server's URL request lacks its URL.",
        None,
        SIGN_IN_ID,
    ),
    _sign_in(
        "mcp_elicit_url_confirmed",
        "As mcp_elicit_url, but the server confirms the sign-in whatever it heard.",
        SIGN_IN_URL,
        SIGN_IN_ID,
        anyway=True,
    ),
)
