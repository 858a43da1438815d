"""Suite-wide hooks.

The real-Claude-Code tier's banner lives here, in the conftest every pytest process loads (the
controller of a `pytest -n N` run collects nothing and never loads `tests/real_claude/`'s own
conftest): where the bundled CLI is missing, the summary says loudly that the tier did not run.
"""

from __future__ import annotations

from tests.real_claude.banner import pytest_terminal_summary

__all__ = ["pytest_terminal_summary"]
