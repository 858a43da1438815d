"""A Claude routed through the client's provider with a client's settings file
(docs/decisions.md#provider-settings-file), as `ClaudeRuntime` builds it: what reaches Claude
Code's command line, and the refusal when the file's private copy cannot be written. The session's
side of both is in tests/shell/test_providers.py."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest

from adapter.claude.claude_runtime import ClaudeRuntime, RuntimeStartError
from adapter.claude.client_options import parse
from adapter.claude.launch import Launch
from adapter.claude.runtime_settings import RuntimeSettings
from fsm import Provider, ProviderRoutes, provider_request

SECRET = "hdr-made-up-secret-0123456789"
PROVIDER = {
    "providerId": "main",
    "apiType": "anthropic",
    "baseUrl": "http://127.0.0.1:9/v1",
    "headers": {"x-key": SECRET},
}


def _routed_settings() -> RuntimeSettings:
    """Settings routed through `PROVIDER`, as `providers/set` routes them."""
    settings = RuntimeSettings()
    provider = provider_request(PROVIDER)
    assert isinstance(provider, Provider)
    routes = settings.route.routes = ProviderRoutes()
    routes.set(provider)
    return settings


def _runtime(tmp_path: Path, options: dict[str, Any]) -> ClaudeRuntime:
    (tmp_path / "mine.json").write_text(json.dumps({"model": "opus"}), encoding="utf-8")
    client_options = parse({"options": {"settings": "mine.json", **options}})
    return ClaudeRuntime(
        settings=_routed_settings(),
        cwd=str(tmp_path),
        session_id="s",
        resume=False,
        launch=Launch(client_options=client_options),
    )


@pytest.mark.asyncio
async def test_a_clients_sandbox_option_never_reaches_the_sdk(tmp_path: Path) -> None:
    """Why it matters: with `ClaudeAgentOptions.sandbox` set, the SDK reads the `--settings`
    file (`SubprocessCLITransport._build_settings_value`) and puts its merged JSON on Claude
    Code's command line, which every local user can read; for a routed Claude that file is the
    private copy, holding the route's headers and the client's file's `env`
    (docs/decisions.md#provider-settings-file). Passing a client's `sandbox` on must first keep
    that copy off the command line."""
    runtime = _runtime(tmp_path, {"sandbox": {"enabled": True}})
    try:
        assert runtime.client.options.sandbox is None
        argv = runtime._transport._build_command()
        copy = Path(argv[argv.index("--settings") + 1])
        assert copy.is_file() and SECRET in copy.read_text(encoding="utf-8")
        assert SECRET not in json.dumps(argv) and "sandbox" not in json.dumps(argv)
    finally:
        await runtime.close()
    assert not copy.exists()


@pytest.mark.asyncio
@pytest.mark.parametrize("start", ["spawn", "run"])
async def test_a_routed_claude_whose_settings_copy_fails_is_refused_with_safe_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start: str
) -> None:
    """Both ways a Claude starts (spawned ahead by a session's opening, or run by a session that
    needs a fresh one) refuse, in the adapter's words: no path, nothing of the route."""
    made = tempfile.mkstemp

    def refused(*args: Any, **kwargs: Any) -> tuple[int, str]:
        if kwargs.get("prefix") == "claude-acp-settings-":
            raise OSError(28, "No space left on device")
        return made(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", refused)
    runtime = _runtime(tmp_path, {})

    async def nothing(*_: Any) -> None:
        raise AssertionError("Claude never started")

    async with anyio.create_task_group() as tg:
        with pytest.raises(RuntimeStartError) as caught:
            if start == "spawn":
                await runtime.spawn(tg)
            else:
                await runtime.run(
                    on_ready=nothing, on_message=nothing, on_end=nothing, on_lost=nothing
                )
    words = str(caught.value)
    assert words.startswith("Claude Code was not started: the client's settings file")
    assert "temporary folder is writable" in words
    for private in ("mine.json", str(tmp_path), SECRET, "127.0.0.1"):
        assert private not in words
    await runtime.close()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("content", "what"),
    [
        (None, "is missing"),
        ("folder", "is not a regular file"),
        (b"\xff\xfe{}", "cannot be read"),
        (b'{"file-marker": ', "is not JSON"),
        (b'["file-marker"]', "does not hold a JSON object"),
    ],
    ids=["missing", "folder", "not-utf8", "not-json", "not-object"],
)
async def test_a_routed_claude_whose_settings_file_cannot_be_used_is_refused(
    tmp_path: Path, content: bytes | str | None, what: str
) -> None:
    """docs/decisions.md#provider-settings-file: started with the client's file as named, it (or
    a user's or project's settings) could route elsewhere with the route's headers; refused in
    words naming the kind of problem, not the path, the file or the route."""
    named = tmp_path / "theirs.json"
    if content == "folder":
        named.mkdir()
    elif isinstance(content, bytes):
        named.write_bytes(content)
    runtime = ClaudeRuntime(
        settings=_routed_settings(),
        cwd=str(tmp_path),
        session_id="s",
        resume=False,
        launch=Launch(client_options=parse({"options": {"settings": "theirs.json"}})),
    )
    async with anyio.create_task_group() as tg:
        with pytest.raises(RuntimeStartError) as caught:
            await runtime.spawn(tg)
    words = str(caught.value)
    assert words.startswith(f"Claude Code was not started: the client's settings file {what};")
    for private in ("theirs.json", str(tmp_path), SECRET, "127.0.0.1", "file-marker"):
        assert private not in words
    await runtime.close()
