"""The core's tests: `fsm/` only, pure and fast."""
