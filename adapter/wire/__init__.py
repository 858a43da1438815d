"""Stdio and the ACP connection: the stdin guard, the trace, the JSON codec, the client link."""
