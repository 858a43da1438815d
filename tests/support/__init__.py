"""What the tests share: the harness, a raw agent client, the replay corpus. No tests."""
