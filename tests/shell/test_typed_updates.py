"""A typed `session/update` (`ClientLink.send_update`: the command list, the pickers, the session's
info and failure records, the mode, the context meter) goes out as `acp`'s own `session_update`
would send it, without `acp`'s envelope model (docs/performance.md, "Work done ahead")."""

from __future__ import annotations

import json
from typing import Any

import pytest
from acp import schema
from acp.utils import serialize_params

from adapter.wire.client_link import ClientLink
from tests.support.recorded_output import NoTypedSends, RecordingWriter, guarded


def _updates() -> list[Any]:
    return [
        schema.AvailableCommandsUpdate(
            session_update="available_commands_update",
            available_commands=[
                schema.AvailableCommand(
                    name="review",
                    description="Review the change",
                    input=schema.AvailableCommandInput(
                        root=schema.UnstructuredCommandInput(hint="what to review")
                    ),
                )
            ],
        ),
        schema.CurrentModeUpdate(session_update="current_mode_update", current_mode_id="plan"),
        schema.SessionInfoUpdate(
            session_update="session_info_update",
            title="A title",
            field_meta={
                "jetbrains": {"air": {"sessionFailure": {"id": "t1:error", "revision": 2}}}
            },
        ),
        schema.AgentMessageChunk(
            session_update="agent_message_chunk",
            content=schema.TextContentBlock(type="text", text='caf\u00e9 "q"'),
        ),
        schema.UsageUpdate(session_update="usage_update", used=1200, size=200000),
        # The most sent of them: the pickers, a select with `_meta` (its own and an option's)
        # and a boolean switch.
        schema.ConfigOptionUpdate(
            session_update="config_option_update",
            config_options=[
                schema.SessionConfigOptionSelect(
                    type="select",
                    id="model",
                    name="Model",
                    category="model",
                    current_value="opus",
                    options=[
                        schema.SessionConfigSelectOption(
                            value="opus",
                            name="Opus",
                            description="Most capable",
                            field_meta={"claudeCode": {"contextWindow": 200000}},
                        ),
                        schema.SessionConfigSelectOption(value="sonnet", name="Sonnet"),
                    ],
                    field_meta={"jetbrains": {"air": {"hidden": False}}},
                ),
                schema.SessionConfigOptionBoolean(
                    type="boolean", id="ultracode", name="Ultracode", current_value=True
                ),
            ],
        ),
    ]


@pytest.mark.asyncio
async def test_a_typed_update_is_sent_as_acps_session_update_sends_it() -> None:
    writer = RecordingWriter()
    link = ClientLink()
    link.attach(NoTypedSends())
    link.attach_bulk(guarded(writer).send_session_updates)
    for update in _updates():
        assert await link.send_update("s1", update) is True
    sent = [json.loads(line) for data in writer.writes for line in data.splitlines()]
    expected = [
        serialize_params(schema.SessionNotification(session_id="s1", update=update))
        for update in _updates()
    ]
    assert [frame["params"] for frame in sent] == expected
    assert all(frame["method"] == "session/update" for frame in sent)


@pytest.mark.asyncio
async def test_a_typed_update_without_a_connection_is_not_sent() -> None:
    link = ClientLink()
    assert await link.send_update("s1", _updates()[0]) is False
