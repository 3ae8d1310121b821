"""Conversation history for the prompt, cut to a token budget so prompts stay flat as chats grow."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# No tokenizer ships offline for every model; ~4 characters per token is the usual estimate for
# English, plus a few tokens of per-message framing. Used only to bound prompts, never to bill.
CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 4


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS


def fit_history(rows: Sequence[tuple[str, str]], *, token_budget: int) -> list[dict[str, Any]]:
    """Keep the newest messages whose estimated tokens fit the budget (oldest dropped first)."""
    kept: list[dict[str, Any]] = []
    used = 0
    for role, content in reversed(rows):
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
