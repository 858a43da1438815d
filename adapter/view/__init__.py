"""Pure: Claude's content as ACP session update dicts, for live turns and replay alike.

Imports nothing else of `adapter/`, neither `claude_agent_sdk` nor `anyio`
(tests/shell/test_layering.py)."""
