"""Text sent as a blob, through the agent in process (`agent_in_process`), as the reference
adapter takes it: a
`resource` whose `blob` holds text of a text type (`text/*`, `application/json; charset=utf-8`,
`+json`, `+xml`, YAML, ...) reaches Claude decoded by its charset, attached as a text resource
is (`[@name](uri)` in place, `<context ref=…>` after the prompt). A blob whose charset is
unknown, whose bytes are not valid in it or whose data is not base64 gets `-32602` naming it,
Claude gets nothing, and the session goes on."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PromptResponse

from tests.support.harness import TIMEOUT, Adapter
from tests.support.shell_harness import agent_in_process

pytestmark = pytest.mark.asyncio


def _log_env(tmp_path: Path) -> dict[str, str]:
    return {"CLAUDE_ACP_SCRIPTED_LOG": str(tmp_path / "claude-log.jsonl")}


def _sent_to_claude(tmp_path: Path) -> list[Any]:
    path = tmp_path / "claude-log.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return [e["content"] for e in map(json.loads, lines) if e["kind"] == "user"]


def _blob(uri: str, mime: str, data: bytes) -> dict[str, Any]:
    resource = {"uri": uri, "mimeType": mime, "blob": base64.b64encode(data).decode()}
    return {"type": "resource", "resource": resource}


async def _prompt(adapter: Adapter, session: str, *blocks: dict[str, Any]) -> Any:
    params = {"sessionId": session, "prompt": [{"type": "text", "text": "look"}, *blocks]}
    return await asyncio.wait_for(
        adapter.conn._conn.send_request("session/prompt", params), TIMEOUT
    )


# uri, MIME type, the bytes sent, the text Claude must get.
CASES = [
    (
        "file:///p/data.json",
        "application/json; charset=utf-8",
        '{"naïve": true}'.encode(),
        '{"naïve": true}',
    ),
    ("file:///p/notes.md", "text/markdown", "# Notes\nété".encode(), "# Notes\nété"),
    ("file:///p/old.csv", "text/csv; charset=ISO-8859-1", "café;1".encode("latin-1"), "café;1"),
    ("file:///p/api.json", "application/vnd.api+json", b'{"data": []}', '{"data": []}'),
    ("file:///p/feed.xml", "application/atom+xml", b"<feed/>", "<feed/>"),
    # The byte order mark is dropped.
    ("file:///p/ci.yaml", "application/x-yaml", b"\xef\xbb\xbfon: push", "on: push"),
    ("file:///p/w.txt", "text/plain; charset=utf-16", "wide text".encode("utf-16"), "wide text"),
]


async def test_text_blobs_reach_claude_decoded(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success", env=_log_env(tmp_path)) as adapter:
        session = await adapter.new_session()
        answer = await _prompt(adapter, session, *(_blob(*case[:3]) for case in CASES))
        assert answer.get("stopReason") == "end_turn", answer
    (content,) = _sent_to_claude(tmp_path)
    texts = [block["text"] for block in content if block.get("type") == "text"]
    for uri, _, _, expected in CASES:
        name = uri.rsplit("/", 1)[-1]
        assert f"[@{name}]({uri})" in texts, texts
        contexts = [t for t in texts if t.startswith(f'<context ref="{uri}">')]
        assert contexts == [f'<context ref="{uri}">\n{expected}\n</context>'], texts


@pytest.mark.parametrize(
    ("mime", "data", "said"),
    [
        ("text/plain; charset=klingon", b"abc", "klingon"),
        ("application/json", b'{"a": "\xff\xfe"}', "not valid UTF-8"),
        ("text/plain; charset=shift_jis", b"\x81", "not valid shift_jis"),
        ("application/zip", b"PK\x03\x04", "application/zip"),
    ],
)
async def test_a_blob_that_cannot_be_read_as_text_is_refused(
    tmp_path: Path, mime: str, data: bytes, said: str
) -> None:
    async with agent_in_process(tmp_path, "success", env=_log_env(tmp_path)) as adapter:
        session = await adapter.new_session()
        with pytest.raises(acp.RequestError) as caught:
            await _prompt(adapter, session, _blob("file:///p/x.txt", mime, data))
        # Nothing else is lost: the session answers the next prompt.
        after = await adapter.prompt(session, "and now?")
        assert isinstance(after, PromptResponse) and after.stop_reason == "end_turn", after
    assert caught.value.code == -32602
    assert said in json.dumps(caught.value.data), caught.value.data
    assert [c for c in _sent_to_claude(tmp_path) if "x.txt" in json.dumps(c)] == []


async def test_a_blob_whose_data_is_not_base64_is_refused(tmp_path: Path) -> None:
    async with agent_in_process(tmp_path, "success") as adapter:
        session = await adapter.new_session()
        resource = {"uri": "file:///p/a.txt", "mimeType": "text/plain", "blob": "not base64!"}
        bad = {"type": "resource", "resource": resource}
        with pytest.raises(acp.RequestError) as caught:
            await _prompt(adapter, session, bad)
    assert caught.value.code == -32602
    assert "base64" in json.dumps(caught.value.data)
