"""The CLI's permission hints: `default_to_no` puts the reject option first; a
matched ask rule or `suppress_always_allow_rule` leaves out the "always" option; the answer
still reaches Claude."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp.schema import AllowedOutcome, PromptResponse, RequestPermissionResponse

from tests.support.shell_harness import agent_in_process


class OfferClient:
    """Records the options of every permission question and answers "Yes" (allow once)."""

    def __init__(self) -> None:
        self.offered: list[list[tuple[str, str, str]]] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        return None

    async def request_permission(
        self, options: Any, session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.offered.append([(o.option_id, o.name, o.kind) for o in options])
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id="allow")
        )


@pytest.mark.asyncio
async def test_the_clis_hints_shape_the_options(tmp_path: Path) -> None:
    client = OfferClient()
    async with agent_in_process(tmp_path, "permission_hints", client=client) as adapter:
        session = await adapter.new_session()
        answers = [await adapter.prompt(session, f"deploy {n}") for n in range(3)]
    yes, no = ("allow", "Yes", "allow_once"), ("reject", "No", "reject_once")
    always = (
        "allow_always",
        "Yes, and don't ask again for `./deploy.sh` this session",
        "allow_always",
    )
    assert client.offered == [
        [no, yes, always],  # default_to_no: reject first, the rest in their order
        [yes, no],  # a matched ask rule: no "always"
        [no, yes],  # suppress_always_allow_rule and default_to_no
    ]
    assert all(isinstance(a, PromptResponse) and a.stop_reason == "end_turn" for a in answers)
    assert adapter.agent_texts().count("Bash was allowed.") == 3
