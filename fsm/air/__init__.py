"""JetBrains AIR: who is an AIR client, and the `_meta.jetbrains.air` extensions it is offered
(its session index, async tasks, native subagents, goals, fork points, file change reports).

Nothing but this docstring: importing one module here imports none of the others.
"""
