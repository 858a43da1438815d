"""The tools the API runs itself (web search and fetch, code execution, an advisor, a remote MCP
server): the content blocks of their calls and results, which come in the assistant's own
message.

The shell reads them in two places: the SDK's parser drops most of these blocks, so a message
that has any is taken as Claude wrote it (`adapter.claude.translate`), and the live view opens
a card at the call and ends it at the result (`adapter.view.turn_view`).
"""

from __future__ import annotations

__all__ = ["SERVER_BLOCKS", "SERVER_CALLS", "SERVER_RESULTS"]

SERVER_CALLS = frozenset({"server_tool_use", "mcp_tool_use"})
SERVER_RESULTS = frozenset(
    {
        "advisor_tool_result",
        "tool_search_tool_result",
        "web_fetch_tool_result",
        "web_search_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "mcp_tool_result",
    }
)
SERVER_BLOCKS = SERVER_CALLS | SERVER_RESULTS
