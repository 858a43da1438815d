"""The core's shell, one per ACP session: it reports facts to `fsm/` and performs the effects."""
