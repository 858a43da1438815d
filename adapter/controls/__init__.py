"""A session's controls: modes, pickers, slash commands, permission questions."""
