"""How a failure record reaches a client: which dialects the client negotiated
(`negotiation.py`) and how a record looks in each (`dialects.py`).

Nothing but this docstring: importing one module here imports none of the others.
"""
