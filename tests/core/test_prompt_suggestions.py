"""The prompt Claude Code predicts after a turn (`fsm.air.prompt_suggestions`): the first after a
result counts, a blank one clears, a client prompt spends it, AIR alone is told (the
reference's `publishPromptSuggestion`)."""

from __future__ import annotations

from typing import Any

from fsm import PromptSuggestions


def _shown(updates: list[dict[str, Any]]) -> list[Any]:
    for update in updates:
        assert update["sessionUpdate"] == "session_info_update"
        assert set(update) == {"sessionUpdate", "_meta"} and set(update["_meta"]) == {
            "promptSuggestions"
        }
    return [u["_meta"]["promptSuggestions"]["suggestions"] for u in updates]


def test_only_the_first_prediction_after_a_result_counts() -> None:
    suggestions = PromptSuggestions(air=True)
    assert suggestions.suggested("Run the tests") == []  # no result yet
    suggestions.result()
    assert _shown(suggestions.suggested("  Run the tests \n")) == [[{"text": "Run the tests"}]]
    assert suggestions.suggested("Something else") == []  # one per result
    suggestions.result()
    assert suggestions.suggested("Run the tests") == []  # the same as shown: not again
    suggestions.result()
    assert _shown(suggestions.suggested("   ")) == [[]]  # a blank one clears
    suggestions.result()
    assert suggestions.suggested(None) == []  # nothing shown: the clear is true already


def test_a_client_prompt_spends_what_is_shown() -> None:
    suggestions = PromptSuggestions(air=True)
    assert suggestions.prompted() == []  # nothing ever shown: no clear
    suggestions.result()
    suggestions.suggested("Deploy")
    assert _shown(suggestions.prompted()) == [[]]
    assert suggestions.prompted() == []
    # A prompt also closes the window a result opened.
    suggestions.result()
    suggestions.prompted()
    assert suggestions.suggested("Late") == []
    suggestions.result()
    suggestions.suggested("Again")
    assert _shown(suggestions.reset()) == [[]]  # a conversation reset clears too
    assert suggestions.reset() == []


def test_a_client_that_is_not_air_is_told_nothing() -> None:
    suggestions = PromptSuggestions(air=False)
    suggestions.result()
    assert suggestions.suggested("Run the tests") == []
    assert suggestions.prompted() == [] and suggestions.reset() == []
