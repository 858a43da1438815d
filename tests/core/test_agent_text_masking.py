"""Every agent text the core sends is masked by the core itself (docs/decisions.md#secrets), so the
shell passes `SendAgentText` on as it is: a refusal's explanation too, which the shell used to mask
a second time on its own. Forwarded messages carry the core's word on masking too
(`ForwardAssistantMessage.mask`)."""

from __future__ import annotations

from typing import Any

from fsm import CredentialsChanged, PromptEchoed
from fsm.claude.synthetic_messages import is_error_prose
from fsm.effects import ForwardAssistantMessage, SendAgentText, SettlePrompt, StopReason
from fsm.events import AssistantMessageReceived, PromptSent, ResultReceived
from fsm.session import SessionCore

E = "epoch-1"
KEY = "Zq8vLmNopRstUvwXy"  # of no known shape: masked because it is one of the private values
HEADER = "Gw7pQrStUvWxYz01"  # a provider's header value, of no known shape


def _refused(core: SessionCore, turn: str, explanation: str) -> list[Any]:
    """A prompt's turn that Claude refuses with `explanation`: the effects of its result."""
    core.handle(PromptSent(turn_id=turn))
    core.handle(PromptEchoed(epoch=core.epoch, turn_id=turn))
    core.handle(
        AssistantMessageReceived(
            epoch=E,
            model="claude-sonnet-4-5",
            text="I can't help with that.",
            text_block_count=1,
            stop_reason="refusal",
            refusal_explanation=explanation,
        )
    )
    return core.handle(
        ResultReceived(epoch=E, subtype="success", is_error=True, stop_reason="refusal")
    )


def test_a_refusal_explanation_reaches_the_client_masked() -> None:
    core = SessionCore(session_id="s", epoch=E, capable=True, private=(KEY,))
    try:
        effects = _refused(
            core, "t1", f"It quoted the key {KEY} and sk-ant-api03-abcdefghijklmnop."
        )
        [text] = [e.text for e in effects if isinstance(e, SendAgentText)]
        assert KEY not in text and "abcdefghijklmnop" not in text
        assert text.startswith("It quoted the key ***")
        assert effects[-1] == SettlePrompt(stop_reason=StopReason.REFUSAL, turn_id="t1")
    finally:
        core.close()


def test_the_core_says_which_forwarded_messages_are_masked() -> None:
    # docs/decisions.md#secrets: Claude's error prose (an API error, a notice Claude Code
    # composed) is masked like any error text; the model's own answer is the user's content.
    legacy = SessionCore(session_id="s", epoch=E, capable=False, private=(KEY,))

    def said(
        model: str, error: str | None = None, top_level: bool = True
    ) -> AssistantMessageReceived:
        return AssistantMessageReceived(
            epoch=E, model=model, text="text", text_block_count=1, error=error, top_level=top_level
        )

    try:
        # Between turns, then within one; a legacy client reads the prose in the transcript.
        assert legacy.handle(said("<synthetic>", error="server_error"))[0] == (
            ForwardAssistantMessage(mask=True)
        )
        legacy.handle(PromptSent(turn_id="t1"))
        legacy.handle(PromptEchoed(epoch=legacy.epoch, turn_id="t1"))
        assert legacy.handle(said("claude-sonnet-4-5")) == [ForwardAssistantMessage(mask=False)]
        assert legacy.handle(said("<synthetic>")) == [ForwardAssistantMessage(mask=True)]
        subagent = said("claude-sonnet-4-5", error="overloaded", top_level=False)
        assert legacy.handle(subagent) == [ForwardAssistantMessage(mask=True)]
        assert legacy.handle(said("claude-sonnet-4-5", error="overloaded")) == [
            ForwardAssistantMessage(mask=True)
        ]
    finally:
        legacy.close()
    assert is_error_prose("<synthetic>", None) and is_error_prose("claude-x", "rate_limit")
    assert not is_error_prose("claude-x", None) and not is_error_prose(None, None)


def test_a_providers_header_values_are_masked_from_its_change_on() -> None:
    # docs/decisions.md#provider-requests: `CredentialsChanged.private` adds them to the values
    # the session started with; None keeps them as they were; an empty tuple drops them.
    def explained(core: SessionCore, turn: str) -> str:
        effects = _refused(core, turn, f"The gateway said {HEADER} for {KEY}.")
        [text] = [e.text for e in effects if isinstance(e, SendAgentText)]
        return text

    core = SessionCore(session_id="s", epoch=E, capable=True, private=(KEY,))
    try:
        assert HEADER in explained(core, "t1")
        core.handle(CredentialsChanged(private=(HEADER,)))
        masked = explained(core, "t2")
        assert HEADER not in masked and KEY not in masked
        core.handle(CredentialsChanged())
        assert HEADER not in explained(core, "t3")
        core.handle(CredentialsChanged(private=()))
        unmasked = explained(core, "t4")
        assert HEADER in unmasked and KEY not in unmasked
    finally:
        core.close()
