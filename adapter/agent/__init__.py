"""ACP requests in, sessions out: the `acp` Agent and how each session is opened."""
