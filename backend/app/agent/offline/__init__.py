"""Taskchat's offline "model": deterministic rules that speak the chat-completions wire format.

Used when no LLM API key is configured, so the app works out of the box, the test suite needs no
network and benchmarks measure Taskchat rather than a provider. It is NOT an LLM: it parses a
small command language with precompiled regexes (pure string work, no I/O) and says so whenever
it talks about itself. The same request body always gives the same response: ids are hashes of
the body and `created` is 0. (Only a missing "Today's date:" line makes it read the clock.)

The parts: `common` (names, stock phrases, a command), `dates`, `values` (priority, status, tags,
references, titles), `parsing` (English clauses -> commands), `replies` (small talk, summaries
of tool results) and `model` (the client: which calls to make, the wire format).
"""

from backend.app.agent.offline.common import MODEL_NAME
from backend.app.agent.offline.model import OfflineModel, respond
from backend.app.agent.offline.parsing import parse_message
from backend.app.agent.offline.replies import small_talk

__all__ = ["MODEL_NAME", "OfflineModel", "parse_message", "respond", "small_talk"]
