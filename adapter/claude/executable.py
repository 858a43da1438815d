"""Which Claude Code the adapter runs: `$CLAUDE_CODE_EXECUTABLE`, the CLI bundled inside the
installed `claude-agent-sdk`, or a `claude` on PATH (the SDK's own order).

Found without importing the SDK (a second of imports `claude-acp doctor` and `login` need not
pay): the bundled CLI lies in the SDK package's `_bundled/` folder.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

__all__ = ["bundled_claude", "claude_executable"]


def bundled_claude() -> Path | None:
    """The Claude Code CLI bundled in the installed claude-agent-sdk, if it ships one here."""
    spec = importlib.util.find_spec("claude_agent_sdk")
    if spec is None or spec.origin is None:  # pragma: no cover - the SDK is a dependency
        return None
    name = "claude.exe" if os.name == "nt" else "claude"
    bundled = Path(spec.origin).parent / "_bundled" / name
    return bundled if bundled.is_file() else None


def claude_executable() -> str | None:
    """The Claude Code the adapter runs: `$CLAUDE_CODE_EXECUTABLE`, the SDK's bundled CLI,
    or a `claude` on PATH."""
    configured = os.environ.get("CLAUDE_CODE_EXECUTABLE")
    if configured:
        return configured
    bundled = bundled_claude()
    return str(bundled) if bundled is not None else shutil.which("claude")
