"""The reply: the one place that writes what the user reads, from what really happened.

- `compose`: the reply of a finished turn (done, not done, asked, the model's checked words).
- `wording`: its sentences in the user's language, from the catalogs.
- `live`: a streamed turn's words as they are produced, only what has been checked.
"""
