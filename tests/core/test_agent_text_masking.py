"""Every agent text the core sends is masked by the core itself (docs/decisions.md#secrets), so the
shell passes `SendAgentText` on as it is: a refusal's explanation too, which the shell used to mask
a second time on its own."""

from __future__ import annotations

from fsm.effects import SendAgentText, SettlePrompt, StopReason
from fsm.events import AssistantMessageReceived, PromptSent, ResultReceived
from fsm.session import SessionCore

E = "epoch-1"
KEY = "Zq8vLmNopRstUvwXy"  # of no known shape: masked because it is one of the private values


def test_a_refusal_explanation_reaches_the_client_masked() -> None:
    core = SessionCore(session_id="s", epoch=E, capable=True, private=(KEY,))
    try:
        core.handle(PromptSent(turn_id="t1"))
        core.handle(
            AssistantMessageReceived(
                epoch=E,
                model="claude-sonnet-4-5",
                text="I can't help with that.",
                text_block_count=1,
                stop_reason="refusal",
                refusal_explanation=f"It quoted the key {KEY} and sk-ant-api03-abcdefghijklmnop.",
            )
        )
        effects = core.handle(
            ResultReceived(epoch=E, subtype="success", is_error=True, stop_reason="refusal")
        )
        [text] = [e.text for e in effects if isinstance(e, SendAgentText)]
        assert KEY not in text and "abcdefghijklmnop" not in text
        assert text.startswith("It quoted the key ***")
        assert effects[-1] == SettlePrompt(stop_reason=StopReason.REFUSAL)
    finally:
        core.close()
