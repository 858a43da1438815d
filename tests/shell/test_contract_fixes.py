"""The contract fixes the core makes, each in the client modes it concerns, in process: the
agent, the real SDK and the scripted Claude playing a script written here
(`agent_in_process`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp.schema import PromptResponse

from adapter.scripted_claude import TEXTS
from adapter.scripted_claude.steps import (
    AssistantError,
    ModelRefusalFallback,
    RawFrame,
    Reply,
    Result,
    Scenario,
    Synthetic,
    Text,
)
from tests.support.harness import Adapter
from tests.support.shell_harness import agent_in_process

AGENT_ERROR_ONLY = {"agentError": {"version": 1}}
RATE = TEXTS["rate_limit"]
OVERLOADED = TEXTS["overloaded"]
TOKENS = TEXTS["max_output_tokens"]
USAGE = TEXTS["usage_limit"]


# The scripted Claude's turns these tests play, besides the shipped scenarios.
def _failed(kind: str, text: str, status: int) -> tuple[AssistantError, Result]:
    return (
        AssistantError(error=kind, text=text, api_error_status=status),
        Result(
            is_error=True,
            result=text,
            api_error_status=status,
            terminal_reason="api_error",
            stop_reason="stop_sequence",
        ),
    )


_FALLBACK = ModelRefusalFallback(
    original_model="claude-opus-4-5",
    fallback_model="claude-sonnet-4-5",
    content=TEXTS["model_fallback"],
    api_refusal_category="cyber",
)
MINE = [
    # Deviation 1: a 429 failure after the turn's result, while no prompt runs.
    Scenario(
        name="between_turns",
        description="",
        turns=((Reply(), Result(), *_failed("rate_limit", TEXTS["rate_limit"], 429)),),
    ),
    # Deviation 3: Claude recovers within the turn after max_output_tokens.
    Scenario(
        name="recovers_in_turn",
        description="",
        turns=(
            (
                AssistantError(error="max_output_tokens", text=TEXTS["max_output_tokens"]),
                Text(text="Continuing where I stopped."),
                Result(),
            ),
        ),
    ),
    # Deviation 3: an error superseded by a different terminal failure in the same turn.
    Scenario(
        name="superseded",
        description="",
        turns=(
            (
                AssistantError(error="overloaded", text=TEXTS["overloaded"], api_error_status=529),
                *_failed("rate_limit", TEXTS["rate_limit"], 429),
            ),
        ),
    ),
    # Deviation 4: a synthetic usage-limit text, then a fixed-subtype result.
    Scenario(
        name="budget_after_usage_text",
        description="",
        turns=(
            (
                Synthetic(text=TEXTS["usage_limit"]),
                Result(
                    subtype="error_max_budget_usd",
                    is_error=True,
                    errors=("budget reached",),
                    terminal_reason="budget_exhausted",
                    stop_reason=None,
                ),
            ),
        ),
    ),
    # Deviations 6 and 7: a model fallback in each of two turns.
    Scenario(
        name="fallback_twice",
        description="",
        turns=((_FALLBACK, Reply(), Result()), (_FALLBACK, Reply(), Result())),
    ),
    # Deviation 7: a refusal whose explanation only the raw frame's stop_details carries.
    Scenario(
        name="bare_refusal",
        description="",
        turns=(
            (
                RawFrame(
                    frame={
                        "type": "assistant",
                        "parent_tool_use_id": None,
                        "session_id": "x",
                        "message": {
                            "id": "m1",
                            "type": "message",
                            "role": "assistant",
                            "model": "claude-sonnet-4-5",
                            "content": [],
                            "stop_reason": "refusal",
                            "stop_details": {
                                "type": "refusal",
                                "category": "cyber",
                                "explanation": "I can't help with that request.",
                            },
                            "usage": {"input_tokens": 1, "output_tokens": 1},
                        },
                    }
                ),
                Result(stop_reason="refusal"),
            ),
        ),
    ),
    # docs/decisions.md#refusal-explanation: the explanation only in a model_refusal_no_fallback
    # frame before it.
    Scenario(
        name="refusal_no_fallback",
        description="",
        turns=(
            (
                RawFrame(
                    frame={
                        "type": "system",
                        "subtype": "model_refusal_no_fallback",
                        "session_id": "x",
                        "uuid": "u1",
                        "original_model": "claude-sonnet-4-5",
                        "api_refusal_category": "cyber",
                        "api_refusal_explanation": "This request looks like malware development.",
                    }
                ),
                RawFrame(
                    frame={
                        "type": "assistant",
                        "parent_tool_use_id": None,
                        "session_id": "x",
                        "message": {
                            "id": "m2",
                            "type": "message",
                            "role": "assistant",
                            "model": "claude-sonnet-4-5",
                            "content": [],
                            "stop_reason": "refusal",
                            "stop_details": {"type": "refusal", "category": "cyber"},
                            "usage": {"input_tokens": 1, "output_tokens": 1},
                        },
                    }
                ),
                Result(stop_reason="refusal"),
            ),
        ),
    ),
    # docs/decisions.md#refusal-explanation: the explanation only in that frame, and no refusal
    # message after it.
    Scenario(
        name="refusal_frame_alone",
        description="",
        turns=(
            (
                RawFrame(
                    frame={
                        "type": "system",
                        "subtype": "model_refusal_no_fallback",
                        "session_id": "x",
                        "uuid": "u2",
                        "original_model": "claude-sonnet-4-5",
                        "api_refusal_category": "cyber",
                        "api_refusal_explanation": "This request looks like malware development.",
                    }
                ),
                Result(stop_reason="refusal"),
            ),
        ),
    ),
]


async def _run(
    tmp_path: Path, scenario: str, prompts: int = 1, **kwargs: Any
) -> tuple[Adapter, list[PromptResponse | RequestError]]:
    answers: list[PromptResponse | RequestError] = []
    kwargs.setdefault("capable", True)  # opted in to sessionFailure unless a test says not
    async with agent_in_process(tmp_path, scenario=scenario, scenarios=MINE, **kwargs) as adapter:
        session = await adapter.new_session()
        for n in range(prompts):
            answers.append(await adapter.prompt(session, f"prompt {n}"))
        if scenario == "between_turns":
            await _until(lambda: adapter.records() or RATE in adapter.agent_texts(), adapter)
    return adapter, answers


async def _until(condition: Any, adapter: Adapter) -> None:
    import asyncio

    from tests.support.harness import TIMEOUT

    async with asyncio.timeout(TIMEOUT):
        while not condition():
            await asyncio.sleep(0.02)


@pytest.mark.asyncio
async def test_failure_between_turns_capable_is_its_own_category_without_prose(
    tmp_path: Path,
) -> None:
    adapter, [answer] = await _run(tmp_path, "between_turns")
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    [(carrier, record)] = adapter.records()
    # docs/decisions.md#capable-clients and #failures-between-turns: a 429 is `limit`,
    # session-scoped, and its prose is not also agent text.
    assert carrier == "session_info_update" and ":session-error:" in record["id"]
    assert (record["category"], record["severity"], record["title"]) == ("limit", "error", RATE)
    assert RATE not in adapter.agent_texts()


@pytest.mark.asyncio
async def test_failure_between_turns_legacy_keeps_the_prose(tmp_path: Path) -> None:
    adapter, [answer] = await _run(tmp_path, "between_turns", capable=False)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    assert adapter.records() == [] and RATE in adapter.agent_texts()


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_error_prose_recovered_within_the_turn_is_kept(tmp_path: Path, capable: bool) -> None:
    adapter, [answer] = await _run(tmp_path, "recovers_in_turn", capable=capable)
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "end_turn"
    # docs/decisions.md#error-prose-without-record: no record, and the error text stays in its
    # place, before what followed it.
    assert adapter.records() == []
    texts = adapter.agent_texts()
    assert texts.index(TOKENS) < texts.index("Continuing where I stopped.")


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_superseded_error_prose_is_kept(tmp_path: Path, capable: bool) -> None:
    adapter, [answer] = await _run(tmp_path, "superseded", capable=capable)
    texts = adapter.agent_texts()
    # docs/decisions.md#error-prose-without-record: the first error became no record, so its words
    # reach the client as text.
    assert OVERLOADED in texts
    if capable:
        assert isinstance(answer, PromptResponse)
        [(carrier, record)] = adapter.records()
        assert (carrier, record["title"], record["category"]) == ("prompt_response", RATE, "limit")
        assert RATE not in texts
    else:
        assert isinstance(answer, RequestError) and answer.code == -32603
        assert RATE in texts


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_claudes_error_text_names_a_fixed_subtype_failure(
    tmp_path: Path, capable: bool
) -> None:
    adapter, [answer] = await _run(tmp_path, "budget_after_usage_text", capable=capable)
    # docs/decisions.md#title-source-order: the top-level assistant error text wins over the
    # result's `errors`.
    if capable:
        [(_, record)] = adapter.records()
        assert record["title"] == USAGE and "budget reached" not in str(record)
        assert record["category"] == "limit"
    else:
        # docs/decisions.md#legacy-error-text-once: Claude's words are agent text, once; the
        # JSON-RPC message names only the kind.
        assert isinstance(answer, RequestError)
        texts = "".join(adapter.agent_texts())
        assert texts.count(USAGE) == 1 and "budget reached" not in texts
        assert USAGE not in str(answer) and "budget reached" not in str(answer)
        assert str(answer).startswith("Internal error: ")


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["capable", "legacy", "agent_error_only"])
async def test_model_fallbacks_in_two_turns(tmp_path: Path, mode: str) -> None:
    kwargs: dict[str, Any] = {"capable": mode == "capable"}
    if mode == "agent_error_only":
        kwargs["client_meta"] = AGENT_ERROR_ONLY
    adapter, answers = await _run(tmp_path, "fallback_twice", prompts=2, **kwargs)
    assert all(isinstance(a, PromptResponse) for a in answers)
    notes = [t for t in adapter.agent_texts() if t.startswith("**Model fallback:**")]
    if mode == "capable":
        # docs/decisions.md#notice-identity: two turns, two occurrences: two ids, each revision 1.
        records = [r for _, r in adapter.records()]
        assert [(r["category"], r["revision"]) for r in records] == [("unknown", 1)] * 2
        assert records[0]["id"] != records[1]["id"]
        assert notes == []
    else:
        # docs/decisions.md#agent-error-only-clients: an agentError-only client reads the notice as
        # a legacy client does.
        assert len(notes) == 2 and adapter.records() == []
        assert adapter.updates("agent_error") == []


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_refusal_explanation_from_stop_details_reaches_the_client(
    tmp_path: Path, capable: bool
) -> None:
    adapter, [answer] = await _run(tmp_path, "bare_refusal", capable=capable)
    # docs/decisions.md#refusal-explanation: the SDK drops stop_details; the explanation still
    # arrives, before `refusal`.
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "refusal"
    assert adapter.agent_texts() == ["I can't help with that request."]
    assert adapter.records() == []


@pytest.mark.asyncio
@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
@pytest.mark.parametrize("scenario", ["refusal_no_fallback", "refusal_frame_alone"])
async def test_refusal_explanation_from_the_no_fallback_frame_reaches_the_client(
    tmp_path: Path, capable: bool, scenario: str
) -> None:
    adapter, [answer] = await _run(tmp_path, scenario, capable=capable)
    # docs/decisions.md#refusal-explanation: only the system frame before the refusal carried it; it
    # is not lost.
    assert isinstance(answer, PromptResponse) and answer.stop_reason == "refusal"
    assert adapter.agent_texts() == ["This request looks like malware development."]
    assert adapter.records() == []
