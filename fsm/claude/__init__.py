"""What the core knows of Claude Code: its words and failures, its stored transcripts, its
messages as they come, and the commands and sign-ins it offers.

Nothing but this docstring: importing one module here imports none of the others.
"""
