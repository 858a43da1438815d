"""The shell at its seams, in-process: a fake client link and a fake Claude runtime, an injected
clock, no subprocess and no sleep.

Each test pins one promise the shell keeps by performing the core's effects faithfully: a
session update whose send failed is not counted as delivered; one interrupt per cancelled turn
and a Claude that ignores it is stopped when the core's deadline passes (the timer wakes on the
injected clock, not after real seconds); the stall watchdog runs on the same clock; an
exception in our own code fails the turn as `internal_error` and breaks the session
(docs/decisions.md#internal-faults). A few translation and settings rules that the end-to-end suite
cannot see are pinned too.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from acp import RequestError
from acp.schema import PromptResponse, TextContentBlock
from claude_agent_sdk import AssistantMessage, SystemMessage, TextBlock

from adapter.claude.runtime_settings import RuntimeSettings, private_values
from adapter.claude.translate import event_for
from fsm import (
    TITLE_LIMIT,
    BackgroundTaskSettled,
    BackgroundTaskStarted,
    RefusalExplained,
    ResultReceived,
    redact,
    shape_title,
)
from tests.support.shell_harness import (
    EPOCH,
    WAIT,
    FakeLink,
    answer_of,
    prompt_in_background,
    result_message,
    retry_message,
    session_with_fakes,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_failed_send_is_not_counted_as_delivered() -> None:
    async with session_with_fakes() as (session, link, runtime, _), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg)
        # The retry warning's session_info_update cannot be sent ...
        link.failing = True
        await session.claude.on_message(retry_message(), {}, EPOCH)
        link.failing = False
        assert link.records() == []
        # ... so the turn's error is revision 1 of its id: the client never saw a revision 1.
        await session.claude.on_message(
            result_message(is_error=True, text="API Error: 500"), {}, EPOCH
        )
        answer = await answer_of(box)
        assert isinstance(answer, PromptResponse) and answer.field_meta is not None
        record = answer.field_meta["jetbrains"]["air"]["sessionFailure"]
        assert (record["revision"], record["severity"]) == (1, "error")


async def test_a_claude_ignoring_the_interrupt_is_stopped_after_the_grace_period() -> None:
    async with (
        session_with_fakes() as (session, _, runtime, clock),
        anyio.create_task_group() as tg,
    ):
        box = await prompt_in_background(session, runtime, tg)
        # The client cancels three times: one interrupt.
        for _ in range(3):
            await session.cancel()
        with anyio.fail_after(WAIT):
            while runtime.interrupts < 1:
                await anyio.sleep(0)
        assert runtime.interrupts == 1 and not runtime.closed.is_set()
        # Claude says nothing; the injected clock passes the grace period and the timer wakes.
        clock.now += 10.5
        session._rearm.set()
        with anyio.fail_after(WAIT):
            await runtime.closed.wait()
        assert runtime.interrupts == 1
        # Its process ending settles the turn as cancelled.
        from fsm import StreamEnded

        await session.feed(StreamEnded(epoch=EPOCH))
        answer = await answer_of(box)
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "cancelled"


async def test_the_stall_watchdog_runs_on_the_cores_deadline() -> None:
    fakes = session_with_fakes(stall=5)
    async with fakes as (session, link, runtime, clock), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg)
        assert session.core.next_deadline() == clock.now + 5
        clock.now += 6
        session._rearm.set()
        with anyio.fail_after(WAIT):
            while not link.records():
                await anyio.sleep(0)
        [warning] = link.records()
        assert (warning["category"], warning["severity"]) == ("connection", "warning")
        assert warning["title"].startswith("Claude has not responded for 6 seconds")
        # Claude speaks: the next deadline counts from its frame.
        await session.claude.on_message(retry_message(), {}, EPOCH)
        assert session.core.next_deadline() == clock.now + 5
        await session.claude.on_message(result_message(), {}, EPOCH)
        assert isinstance(await answer_of(box), PromptResponse)


@pytest.mark.parametrize("capable", [True, False], ids=["capable", "legacy"])
async def test_an_internal_fault_fails_the_turn_and_breaks_the_session(
    capable: bool, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    fakes = session_with_fakes(capable=capable)
    async with fakes as (session, _, runtime, _c), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg)
        real = session.core.handle

        def broken(event: Any) -> Any:
            if isinstance(event, ResultReceived):
                raise RuntimeError("a bug of ours")
            return real(event)

        monkeypatch.setattr(session.core, "handle", broken)
        await session.claude.on_message(result_message(), {}, EPOCH)
        answer = await answer_of(box)
        monkeypatch.setattr(session.core, "handle", real)
        # docs/decisions.md#internal-faults: internal_error (service, retry), never "connection
        # lost"; traceback logged.
        if capable:
            assert isinstance(answer, PromptResponse)
            record = answer.field_meta["jetbrains"]["air"]["sessionFailure"]  # type: ignore[index]
            assert (record["category"], record["actions"]) == ("service", ["retry"])
        else:
            assert isinstance(answer, RequestError) and answer.code == -32603
            assert answer.data == {"errorKind": "internal_error"}
        assert "a bug of ours" in caplog.text and "Traceback" in caplog.text
        # The session is broken for good: the next prompt is refused at once.
        assert session.core.broken
        with pytest.raises(RequestError) as refused:
            await session.prompt([TextContentBlock(type="text", text="again")])
        assert refused.value.code == -32603


def _texts(link: FakeLink) -> list[str]:
    return [
        u.content.text if hasattr(u, "content") else u["content"]["text"]
        for u in link.sent
        if getattr(u, "session_update", None) == "agent_message_chunk"
        or (isinstance(u, dict) and u.get("sessionUpdate") == "agent_message_chunk")
    ]


async def test_a_legacy_client_reads_claudes_failure_words_once() -> None:
    # docs/decisions.md#legacy-error-text-once: Claude's error message is agent text as it came;
    # the JSON-RPC error that answers the prompt names the kind, not the words again.
    words = "API Error: 529 Overloaded. Please try again later."
    fakes = session_with_fakes(capable=False)
    async with fakes as (session, link, runtime, _c), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg)
        failure = AssistantMessage(
            content=[TextBlock(text=words)], model="<synthetic>", error="server_error"
        )
        await session.claude.on_message(failure, {}, EPOCH)
        await session.claude.on_message(result_message(is_error=True, text=words), {}, EPOCH)
        answer = await answer_of(box)
        assert isinstance(answer, RequestError) and answer.code == -32603
        assert str(answer) == "Internal error: The model provider reported an error."
        assert answer.data == {"errorKind": "server_error"}
        assert "".join(_texts(link)).count(words) == 1, _texts(link)


async def test_a_legacy_client_reads_a_results_words_as_agent_text() -> None:
    # Words only the result carries reached no one yet: agent text, on a line of their own after
    # the answer so far, then the short error.
    fakes = session_with_fakes(capable=False)
    async with fakes as (session, link, runtime, _c), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg)
        answer_so_far = AssistantMessage(content=[TextBlock(text="Reading.")], model="claude-x")
        await session.claude.on_message(answer_so_far, {}, EPOCH)
        limit = result_message(
            is_error=True,
            text=None,
            subtype="error_max_budget_usd",
            errors=["Reached maximum budget ($5)"],
        )
        await session.claude.on_message(limit, {}, EPOCH)
        answer = await answer_of(box)
        assert isinstance(answer, RequestError) and answer.code == -32603
        assert str(answer) == "Internal error: This Claude session reached its configured budget."
        assert "".join(_texts(link)) == "Reading.\nReached maximum budget ($5)\n"


def test_refusal_explanation_comes_from_the_raw_frame() -> None:
    from adapter.claude.translate import refusal_explanation

    frame = {
        "type": "assistant",
        "message": {"stop_details": {"type": "refusal", "explanation": "Not this one."}},
    }
    assert refusal_explanation(frame) == "Not this one."
    assert refusal_explanation({"type": "assistant", "message": {}}) is None


@pytest.mark.parametrize(
    ("said", "event"),
    [
        ("Declined.", RefusalExplained(epoch=EPOCH, explanation="Declined.")),
        ("  ", None),
        (None, None),
    ],
)
def test_the_no_fallback_frame_tells_the_core_its_explanation(
    said: str | None, event: RefusalExplained | None
) -> None:
    # docs/decisions.md#refusal-explanation: perhaps the only place Claude Code says why; the
    # core keeps it for the refusal that follows.
    no_fallback = SystemMessage(
        subtype="model_refusal_no_fallback",
        data={
            "type": "system",
            "subtype": "model_refusal_no_fallback",
            "api_refusal_explanation": said,
        },
    )
    assert event_for(no_fallback, EPOCH) == event


async def test_the_refusal_explanation_reaches_the_client_before_refusal() -> None:
    async with session_with_fakes() as (session, link, runtime, _), anyio.create_task_group() as tg:
        box = await prompt_in_background(session, runtime, tg)
        message = AssistantMessage(content=[], model="claude-x", stop_reason="refusal")
        raw = {"type": "assistant", "message": {"stop_details": {"explanation": "I can't."}}}
        await session.claude.on_message(message, raw, EPOCH)
        refusal = result_message(text=None, stop_reason="refusal")
        await session.claude.on_message(refusal, {}, EPOCH)
        answer = await answer_of(box)
        assert isinstance(answer, PromptResponse) and answer.stop_reason == "refusal"
        texts = [
            u.content.text
            for u in link.sent
            if getattr(u, "session_update", "") == "agent_message_chunk"
        ]
        assert texts == ["I can't."]


# --- rules the end-to-end suite cannot isolate --------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "kind"),
    [
        ({"kind": "task-notification"}, "task-notification"),
        ({"kind": "user"}, "user"),
        ({"kind": 7}, None),
        ({"kind": ["peer"]}, None),
        ("peer", None),
        (None, None),
    ],
)
def test_a_results_origin_kind_is_passed_on_as_read(origin: object, kind: str | None) -> None:
    # Whether that origin is a user's turn is the core's rule (`fsm.is_autonomous_origin`).
    message = result_message()
    if origin is not None:
        object.__setattr__(message, "origin", origin)
    event = event_for(message, EPOCH)
    assert isinstance(event, ResultReceived) and event.origin_kind == kind


@pytest.mark.parametrize(
    ("first", "rest", "prompts"),
    [
        ("n1", ["n1", "t2"], {"n1", "t2"}),
        ("t1", None, {"t1"}),
        (None, ["t2", 7, ""], {"t2"}),
        (None, "t2", set()),
    ],
)
def test_a_result_names_the_prompts_its_cycle_took_up(
    first: object, rest: object, prompts: set[str]
) -> None:
    message = result_message()
    object.__setattr__(message, "user_message_uuid", first)
    object.__setattr__(message, "user_message_uuids", rest)
    event = event_for(message, EPOCH)
    assert isinstance(event, ResultReceived) and event.prompts == prompts


@pytest.mark.parametrize(
    ("fields", "subagent", "backgrounded"),
    [
        ({"subagent_type": "general-purpose", "is_backgrounded": True}, True, True),
        ({"subagent_type": "general-purpose", "is_backgrounded": False}, True, False),
        ({"task_type": "local_agent"}, True, False),  # an older CLI names no placement
        ({"task_type": "local_bash", "is_backgrounded": "yes"}, False, False),
    ],
)
def test_a_task_start_says_whether_the_task_runs_in_the_background(
    fields: dict[str, Any], subagent: bool, backgrounded: bool
) -> None:
    # A background subagent's end wakes Claude for a follow-up (docs/decisions.md#turns-that-wait).
    message = SystemMessage(subtype="task_started", data={"task_id": "a1", **fields})
    event = event_for(message, EPOCH)
    assert isinstance(event, BackgroundTaskStarted)
    assert (event.subagent, event.backgrounded) == (subagent, backgrounded)


@pytest.mark.parametrize(
    ("patch", "moved"),
    [
        ({"is_backgrounded": True}, True),
        ({"is_backgrounded": True, "status": "running"}, True),
        ({"is_backgrounded": False}, False),
        ({"is_backgrounded": "yes"}, False),
        ({"status": "running"}, False),
    ],
)
def test_a_task_moved_to_the_background_is_said_to_the_core(
    patch: dict[str, Any], moved: bool
) -> None:
    # The bundled CLI's `task_updated` when a foreground task goes to the background (a steer,
    # or the user): the reference marks its live task backgrounded.
    message = SystemMessage(subtype="task_updated", data={"task_id": "a1", "patch": patch})
    event = event_for(message, EPOCH)
    if moved:
        assert isinstance(event, BackgroundTaskStarted)
        assert (event.task_id, event.backgrounded, event.moved) == ("a1", True, True)
    else:
        assert event is None
    # A final status ends the task, moved or not.
    ended = {"task_id": "a1", "patch": {**patch, "status": "completed"}}
    assert isinstance(
        event_for(SystemMessage(subtype="task_updated", data=ended), EPOCH), BackgroundTaskSettled
    )


def test_secret_named_environment_values_are_masked() -> None:
    environ = {
        "HOME": "/home/alice",
        "MY_SERVICE_TOKEN": "tok-1234567890",
        "ANTHROPIC_API_KEY": "not-an-sk-shaped-key",
        "DB_PASSWORD": "hunter2hunter2",
        "EDITOR": "vim-is-the-best-editor",
    }
    private = private_values(environ)
    for secret in ("tok-1234567890", "not-an-sk-shaped-key", "hunter2hunter2", "/home/alice"):
        assert secret in private
    assert "vim-is-the-best-editor" not in private
    assert redact("token tok-1234567890 failed", private) == "token *** failed"


@pytest.mark.parametrize(
    ("length", "split"), [(TITLE_LIMIT - 1, False), (TITLE_LIMIT, False), (TITLE_LIMIT + 1, True)]
)
def test_the_title_limit_is_exactly_256_characters(length: int, split: bool) -> None:
    assert TITLE_LIMIT == 256
    text = "x" * length
    title, details = shape_title(text)
    assert (details is not None) is split
    assert len(title) <= TITLE_LIMIT
    if not split:
        assert title == text


@pytest.mark.parametrize("scheme", ["Basic", "Bearer"])
def test_authorization_credentials_never_leak(scheme: str) -> None:
    secret = "dXNlcjpzM2NyZXQtcGFzc3dvcmQ="
    masked = redact(f"401 from proxy: Authorization: {scheme} {secret}")
    assert secret not in masked and "***" in masked


@pytest.mark.parametrize("length", [TITLE_LIMIT, TITLE_LIMIT + 1])
def test_title_limit_keeps_a_first_line_of_exactly_256_characters_whole(length: int) -> None:
    # docs/decisions.md#details with several paragraphs: the first line is the title when it fits
    # (<= 256).
    line = "y" * length
    title, details = shape_title(f"{line}\n\nMore follows.")
    if length <= TITLE_LIMIT:
        assert (title, details) == (line, "More follows.")
    else:
        assert len(title) <= TITLE_LIMIT and title.endswith("\u2026")
        assert details is not None and details.endswith("More follows.")


async def test_the_reader_tells_our_faults_from_claudes_transport() -> None:
    from adapter.claude.claude_runtime import ClaudeRuntime

    async def allow(*_: object) -> Any:
        raise AssertionError("no permission asked here")

    runtime = ClaudeRuntime(
        settings=RuntimeSettings(), cwd="/", session_id="s", resume=False, can_use_tool=allow
    )
    heard: list[str] = []

    async def on_end() -> None:
        heard.append("end")

    async def on_lost() -> None:
        heard.append("lost")

    async def frames(fail: bool) -> Any:
        yield result_message(), {}
        if fail:
            raise ConnectionResetError("Claude's pipe broke")

    async def ours(message: Any, raw: Any) -> None:
        raise KeyError("a bug of ours")

    async def fine(message: Any, raw: Any) -> None:
        heard.append("message")

    # Our on_message raising is not Claude's failure: it propagates; nobody hears "lost".
    runtime._messages = lambda: frames(fail=False)  # type: ignore[method-assign]
    with pytest.raises(KeyError):
        await runtime._read(ours, on_end, on_lost)
    assert heard == []
    # The SDK raising while reading is Claude's transport: "lost", once.
    runtime._messages = lambda: frames(fail=True)  # type: ignore[method-assign]
    await runtime._read(fine, on_end, on_lost)
    assert heard == ["message", "lost"]
