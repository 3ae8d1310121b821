"""What the tool loop (`agent/`) and the task tools (`tools/`) share, and nothing else: a call, its
result and the result's code (`codes.py`), the spec a tool is offered by, the executor protocol
(`types.py`), and what the user's message itself names (`said.py`). It imports nothing from the app,
so neither side depends on the other's package."""
