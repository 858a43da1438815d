"""What a client adds around a session's Claude: extra working folders and a system prompt.

ACP's `additionalDirectories` become Claude Code's `--add-dir` (one per folder); a client system
prompt either appends to Claude Code's own (`--append-system-prompt`) or replaces it
(`--system-prompt`), as the TypeScript reference adapter shapes it
(docs/reference-adapter.md#client-system-prompt). Every Claude process of the session starts
with the same surroundings.

JetBrains AIR's custom instructions (`_meta.jetbrains.air.customInstructions` of the opening
request, read from any client as the reference does) follow the client's prompt text in both
modes, and are appended to Claude Code's own prompt when the client sends none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Surroundings"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Surroundings:
    add_dirs: tuple[str, ...] = ()
    system_prompt: str | None = None
    # Whether `system_prompt` replaces Claude Code's prompt ("override") or is appended to it.
    replace_prompt: bool = False
    custom_instructions: str | None = None  # JetBrains AIR's
    # Claude Code's per-user sections (working folder, memory, git status) left out of its
    # prompt, which then stays cacheable (a legacy client's `excludeDynamicSections`).
    exclude_dynamic_sections: bool = False

    def prompt_option(self) -> str | dict[str, Any]:
        """`ClaudeAgentOptions.system_prompt` for these surroundings."""
        preset: dict[str, Any] = {"type": "preset", "preset": "claude_code"}
        if self.exclude_dynamic_sections:
            preset["exclude_dynamic_sections"] = True
        if self.system_prompt is None:
            if self.custom_instructions is not None:
                preset["append"] = self.custom_instructions
            return preset
        parts = (self.system_prompt, self.custom_instructions)
        text = "\n\n".join(part for part in parts if part)
        if self.replace_prompt:
            return text
        if text:
            preset["append"] = text
        return preset
