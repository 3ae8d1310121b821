"""The model's words to a streamed turn's user as they are produced, but only what has been checked
(RESPONSE_MODE=model; in direct mode the reply is composed from the results and streamed whole).

The promise is the reply's (services/reply/compose.py): a user never reads a success that did not happen,
not even for a moment. So an answer's text is heard only when it can be the reply that is shown:

- tools ran, every call succeeded, and every action the message asks for was attempted (the guard
  has nothing to ask again, and no failure is left for the model's words to hide), or
- nothing ran and the message needs no tool (small talk, a question answered from the conversation).

Then each sentence goes on once it is complete and the text up to it says nothing the results
contradict: no change claimed that no call made, no denial of a change that succeeded (the checks
the reply makes on the whole text, `contradicts`), and no claim of a change that names no task
a successful change of the turn touched (it may name another of the user's tasks, which only the
reply's check against their titles can tell: `ExecutionGuard.review_titles`). At the first sentence that fails, or at a
`<` (a call written as text), or past the claim reader's reach (`claims.READABLE` characters), the
answer's streaming stops: the rest is sent once the reply is composed. When heard words turn out not
to be the reply (the model went on calling tools, the guard asked again, or the composed reply
replaced them), the listener is told to drop them (`reset`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from backend.app.agent.loop_types import TextSink
from backend.app.calls.payloads import title_of
from backend.app.calls.tools import CHANGING
from backend.app.calls.types import ExecutedCall
from backend.app.language.lexicon import fold
from backend.app.services.guard.claims import READABLE, denial
from backend.app.services.guard.execution import ExecutionGuard
from backend.app.tools.titles import named_in

# A sentence ends at one of these followed by white space, or at a line break (a list's item).
_ENDS = frozenset(".!?…。！？;:")


class ReplyListener(Protocol):
    """Where checked words go (the streamed response): `text` adds to the reply being shown,
    `reset` drops what was added so far."""

    def text(self, piece: str) -> None: ...

    def reset(self) -> None: ...


class LiveReply:
    """The loop's `ReplyObserver` for one streamed turn."""

    def __init__(self, guard: ExecutionGuard, listener: ReplyListener) -> None:
        self.guard = guard
        self.listener = listener
        self.sent = ""  # passed on since the last reset
        self._buffer = ""
        self._succeeded: set[str] = set()
        self._touched: list[str] = []  # the titles the turn's successful changes touched
        self._stopped = False
        self._open_quote = False  # `sent` has an odd number of double quotes (folded)

    def step(self, executed: Sequence[ExecutedCall]) -> TextSink | None:
        self._buffer, self._stopped = "", False
        if any(not e.ran or not e.result.success for e in executed):
            return None  # a failed or refused call: the reply says so, the model's words may not
        if executed:
            if not self.guard.covered(executed):
                return None  # an asked-for action is still missing: the guard may ask again
        elif self.guard.intent.needs_tool:
            return None  # a command and no tool yet: these words are not what the user asked for
        self._succeeded = {e.call.name for e in executed}
        self._touched = [title_of(e.result.data) or "" for e in executed if e.call.name in self.guard.mutating_tools]
        return self._hear

    def void(self) -> None:
        self._buffer, self._stopped, self._open_quote = "", True, False
        if self.sent:
            self.sent = ""
            self.listener.reset()

    def _hear(self, piece: str) -> None:
        if self._stopped:
            return
        self._buffer += piece
        if "<" in piece:
            self._stopped = True  # perhaps a call written as text: nothing more of this answer goes early
            return
        # What came before this piece holds no sentence end (it would have gone out): look only here.
        cut = _last_sentence_end(self._buffer, since=len(self._buffer) - len(piece))
        if cut == 0:
            return
        head = self._buffer[:cut].rstrip()  # the sentences; the white space after them waits
        out = head if self.sent else head.lstrip()
        if not out:
            return
        # Claims and denials are read sentence by sentence, so the new sentences are checked alone,
        # unless a quotation opened earlier is still open (what is quoted is not a claim).
        checked = self.sent + out if self._open_quote else out
        if (
            len(self.sent) + len(out) > READABLE
            or contradicts(checked, self._succeeded, self.guard)
            or self._elsewhere(checked)
        ):
            self._stopped = True
            return
        self._buffer = self._buffer[len(head) :]
        self.sent += out
        self._open_quote ^= fold(out).count('"') % 2 == 1
        self.listener.text(out)

    def _elsewhere(self, text: str) -> bool:
        """A claim of a change whose sentence names no task the turn's changes touched."""
        return any(
            claim.tools and not any(t and named_in(claim.sentence, t) for t in self._touched)
            for claim in self.guard.claims_in(text)
        )


def _last_sentence_end(text: str, *, since: int = 0) -> int:
    """The end of the last complete sentence in `text` at or after `since` (0: none)."""
    for i in range(len(text) - 1, max(since, 1) - 1, -1):
        if text[i].isspace() and (text[i] == "\n" or text[i - 1] in _ENDS):
            return i
    return 0


def contradicts(text: str, succeeded: set[str], guard: ExecutionGuard) -> bool:
    """Whether the model's text says something the successes contradict (a change none made, or a
    denial of one that did): what the live reply stops streaming at (word lists only)."""
    said = guard.claims_in(text)
    unbacked = [
        c for c in said if (c.tools and not set(c.tools) & succeeded) or (not c.tools and not succeeded & CHANGING)
    ]
    return bool(unbacked) or (bool(succeeded & CHANGING) and denial(text) is not None)
