"""`claude-acp demo`: a tool, imported only by the command line."""
