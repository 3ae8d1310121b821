"""The execution guard: the decision table of "Never act on a misreading" applied to a turn.

- `execution`: `ExecutionGuard`, what the loop asks of a guard (`agent/guard_protocol.py`), each step.
- `call_review`: the facts of a step's changes before they run, for the table (`calls/verdicts.py`).
- `claims`, `reply_check`: the review of the model's words (what they claim, what the model declares).
- `events`, `final_calls`: what the guard decided, and which calls the user hears about.

The guard never imports the reply: the reply reads the guard's events (`tests/test_layering.py`).
"""
