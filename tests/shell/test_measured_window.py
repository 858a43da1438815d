"""The context window Claude Code measures (`get_context_usage`), in the shell: asked beside the
session when its models are known and after each model change; the meter shows it until a
result reports one; an answer for a model the session no longer runs, or one that says nothing,
changes nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from adapter.controls.pickers import SessionConfig
from adapter.controls.session_controls import SessionControls
from adapter.scripted_claude.handshake import MODELS
from adapter.view.usage import UsageMeter
from tests.support.shell_harness import FakeLink

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_the_meter_shows_the_measured_window_until_a_result_reports_one() -> None:
    meter = UsageMeter()
    meter.model_chosen(None)
    assert meter.size == 200_000
    meter.window_measured(1_000_000)
    assert meter.size == 1_000_000
    meter.saw_result({"input_tokens": 1}, {"m": {"contextWindow": 500_000}}, 0.0, for_turn=True)
    assert meter.size == 500_000
    meter.model_chosen(1_000_000)  # another model: what was measured was the old one's
    assert (meter.measured_window, meter.size) == (0, 1_000_000)
    meter.window_measured(200_000)  # measured beats the name's promise
    assert meter.size == 200_000


class _Runtime:
    def __init__(self, answers: list[Any]) -> None:
        self.answers = answers
        self.asked = 0

    async def context_usage(self) -> Any:
        self.asked += 1
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def set_model(self, model: str) -> None:
        pass


async def _no_report(event: Any) -> None:
    raise AssertionError(event)


def _controls(runtime: _Runtime) -> tuple[SessionControls, list[int], list[Any]]:
    config = SessionConfig.initial({}, None)
    config.adopt({"models": [dict(m) for m in MODELS]})
    controls = SessionControls(session_id="s", link=FakeLink(), config=config)
    controls.bind(lambda: runtime, _no_report)  # type: ignore[arg-type,return-value]
    measured: list[int] = []
    controls.window_measured = measured.append
    pending: list[Callable[[], Awaitable[None]]] = []
    controls.run_beside_with(pending.append)
    return controls, measured, pending


async def test_a_model_change_is_measured_beside_the_session() -> None:
    runtime = _Runtime([{"rawMaxTokens": 1_000_000}])
    controls, measured, pending = _controls(runtime)
    await controls.set_option("model", "opus")
    assert runtime.asked == 0 and len(pending) == 1  # not awaited by the switch
    await pending.pop()()
    assert measured == [1_000_000]


async def test_a_stale_silent_or_failed_answer_changes_nothing() -> None:
    runtime = _Runtime([{"rawMaxTokens": 1_000_000}, {"maxTokens": 5}, OSError("gone")])
    controls, measured, pending = _controls(runtime)
    await controls.set_option("model", "opus")
    await controls.set_option("model", "haiku")
    first, second = pending
    await first()  # answered for opus, the session runs haiku now
    await second()  # says no raw window
    await controls.set_option("model", "opus")
    await pending[-1]()  # Claude Code could not answer
    assert measured == [] and runtime.asked == 3
