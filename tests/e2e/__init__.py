"""End to end: the adapter and the scripted Claude as real subprocesses (marked `e2e` by path)."""
