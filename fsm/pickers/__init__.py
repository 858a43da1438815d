"""The session's pickers (agent, model, effort): what they offer, what they start from, and
when they follow Claude Code.

Nothing but this docstring: importing one module here imports none of the others.
"""
