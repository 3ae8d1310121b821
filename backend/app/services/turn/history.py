"""Conversation history for the prompt, cut to a token budget so prompts stay flat as chats grow."""

from __future__ import annotations

from collections.abc import Sequence

from backend.app.db.repositories.conversations import HistoryRow

# No tokenizer ships offline for every model; ~4 characters per token is the usual estimate for
# English, plus a few tokens of per-message framing. Used only to bound prompts, never to bill.
CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 4


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS


def fit_history(rows: Sequence[HistoryRow], *, token_budget: int) -> list[dict[str, str]]:
    """Keep the newest messages whose estimated tokens fit the budget (oldest dropped first). An
    assistant turn carries one compact line of its tool results (what it did to which task, by id,
    and the tasks it showed, numbered), so a model can resolve "it" and "the second one" itself."""
    kept: list[dict[str, str]] = []
    used = 0
    for row in reversed(rows):
        role, content = row.role, row.content
        if row.context and row.context.get("line"):
            content = f"{content}\n{row.context['line']}"
        cost = estimate_tokens(content)
        if used + cost > token_budget:
            break
        kept.append({"role": role, "content": content})
        used += cost
    kept.reverse()
    # A history that starts with an assistant reply reads oddly to some models; drop it.
    while kept and kept[0]["role"] != "user":
        kept.pop(0)
    return kept
