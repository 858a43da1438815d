"""A transcript whose first prompt holds a lone surrogate escape (`"\\ud800"` in its JSON) is
listed and loaded with a title that is valid text: the surrogate shows as U+FFFD. In process
(`agent_in_process`) with `CLAUDE_CONFIG_DIR` in a temp folder."""

from __future__ import annotations

from pathlib import Path

from tests.support.raw_agent import RawAgent

TIMEOUT = 30.0  # a hang shows as no answer within this; never a speed assertion


def _surrogates(text: str) -> list[str]:
    return [c for c in text if 0xD800 <= ord(c) < 0xE000]


def test_a_lone_surrogate_in_the_first_prompt_is_listed_as_a_replacement(tmp_path: Path) -> None:
    agent = RawAgent(tmp_path)
    try:
        agent.initialize()
        session = agent.new_session()
        answer = agent.call(
            "session/prompt",
            {"sessionId": session, "prompt": [{"type": "text", "text": "odd MARK here"}]},
        )
        assert answer["result"]["stopReason"] == "end_turn"
        [transcript] = (tmp_path / "claude-config" / "projects").glob(f"*/{session}.jsonl")
        written = transcript.read_text(encoding="utf-8")
        assert "MARK" in written
        # The escape as JSON carries it: six ASCII characters, decoded to a lone surrogate.
        transcript.write_text(written.replace("MARK", "\\ud800"), encoding="utf-8")

        listed = agent.answer(
            agent.request("session/list", {"cwd": str(agent.workdir)}), timeout=TIMEOUT
        )
        titles = [s.get("title") or "" for s in listed["result"]["sessions"]]
        assert any("\ufffd" in title for title in titles), titles
        for title in titles:
            assert _surrogates(title) == [], titles
            title.encode("utf-8")
        agent.close_stdin()
        agent.read_to_end(timeout=TIMEOUT)
        assert agent.wait(timeout=TIMEOUT) == 0
    finally:
        agent.close()
