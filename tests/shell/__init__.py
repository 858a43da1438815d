"""`adapter/` in process: fakes at the seams, no subprocess."""
