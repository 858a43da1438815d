"""The one answer a prompt gets: what the shell holds for a prompt between request and response."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import anyio
from acp import RequestError
from acp.schema import PromptResponse

from adapter.wire.response_watch import ResponseTicket

__all__ = ["PromptAnswer"]


@dataclass(slots=True)
class PromptAnswer:
    """The one answer a prompt gets, and the core's word that it may go to Claude."""

    blocks: list[Any]
    content: list[dict[str, Any]] = field(default_factory=list)  # what Claude is sent
    done: anyio.Event = field(default_factory=anyio.Event)
    go: anyio.Event = field(default_factory=anyio.Event)  # set by SendPrompt, or by the answer
    replace_runtime: bool = False
    pushed: bool = False  # sent while another turn runs: its turn begins at Claude's echo
    value: PromptResponse | RequestError | None = None
    epoch: str | None = None  # the runtime the prompt went to, once sent
    by_adapter: bool = False  # the adapter's own idle `/compact`: no client waits for it
    # The prompt's response on the wire (taken in its handler): Claude's next frames wait for it.
    response: ResponseTicket | None = None

    def give(self, value: PromptResponse | RequestError) -> None:
        if self.value is None:
            self.value = value
            self.done.set()
            self.go.set()
