"""The execution guard: the decision table of "Never act on a misreading" applied to a turn.

- `execution`: `ExecutionGuard`, what the loop asks of a guard (`agent/guard_protocol.py`), each step.
- `call_review`: the facts of a step's changes before they run, for the table (`calls/verdicts.py`).
- `words`: the review of the model's words (`WordsReview`, the guard's base): `claims` reads what
  they claim, `reply_check` what the model declares they claim.
- `coverage`: whether the calls did all the message asks (`satisfies`, `missing`, `covered`).
- `events`, `final_calls`: what the guard decided, and which calls the user hears about.

The guard never imports the reply: the reply reads the guard's events (`tests/test_layering.py`).
"""
