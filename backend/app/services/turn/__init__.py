"""One chat turn, from the request to the stored answer.

- `pipeline`: `ChatService`, the turn end to end (read, ask the model, guard, reply, store).
- `context`: the turn's context (`TurnContext`) and how its message is read and guarded (`Step`).
- `answers`: a turn whose message answers the question the previous turn asked.
- `commands`: what a message asks for, as tool calls with their arguments (for a forced retry).
- `history`, `prompt`, `routing`: what the model is sent, and which model is asked.
- `store`, `idempotency`: what a turn writes, in short transactions, once per `Idempotency-Key`.
- `record`, `plan`, `apply_report`: the finished turn as the response and its metadata.
"""
