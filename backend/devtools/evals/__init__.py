"""`taskchat eval`: the live eval harness (scenario x model x sampling profile x strategy x trials).

Each trial runs the real product path (ChatService on a fresh migrated SQLite database) against an
OpenAI-compatible server or the offline model, then checks the reply and the database. See docs/eval.md.
"""
