"""The service layer, in rooms: `turn/` (one chat turn), `guard/` (the execution guard), `reply/` (what
the user reads), `confirmations/` (asking and answering), `user_data/` (writes, export, retention).
The reading of messages is in `language/`; the tool loop in `agent/`; the task tools in `tools/`."""
