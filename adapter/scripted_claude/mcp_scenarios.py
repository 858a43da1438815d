"""Scenarios in which an MCP server asks the user (MCP elicitation) during Claude's tool call.

`mcp_elicit`: Claude calls the `deploy` server's `release` tool, and the server asks which
environment, with fields of every primitive shape (a choice, a boolean, a bounded integer, a
multi-select, free text) and one of a shape ACP's forms lack (an object). Turn 2 is a plain
reply, so a test can check the session goes on.

Standard library only: imported by the fake at start-up.
"""

from __future__ import annotations

from adapter.scripted_claude.steps import McpElicitation, Reply, Result, Scenario

__all__ = ["DEPLOY_FORM", "DEPLOY_MESSAGE", "MCP_SCENARIOS"]

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
)
