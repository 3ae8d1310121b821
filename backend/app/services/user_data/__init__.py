"""The user's data outside a chat turn.

- `writes`: the REST writes, through the same task tools a chat turn calls.
- `export`: all of a user's data as JSON, or none of it (erase).
- `maintenance`: removing what is past retention.
"""
