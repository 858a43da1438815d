"""Narratives through `SessionCore.handle`, for capable and legacy clients.

Each test is one lifecycle: the events the shell would feed, in order, with the exact effects
the core must answer and the state it must be left in. `test_mapping_table` walks the spec's
mapping table row by row ("Claude SDK conditions map to these groups"); the other modules
follow the decisions the core owns (docs/decisions.md), one subject each; their
building blocks live in `tests/support/session_narrative.py`.
"""
