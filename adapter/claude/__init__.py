"""One Claude Code process and what it keeps on disk: settings, transcripts, sessions."""
