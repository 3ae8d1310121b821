"""Several models in order: when one fails, the request goes to the next (LLM_FALLBACKS).

Each model is an `HttpLLMClient` of its own (its base URL and key), with its own retries; what
moves a request on is a failure that is left after them: a timeout, a 5xx, a 429 past its retries,
a model the server does not know (404) or any answer it rejects, and an answer that is not a
completion (an error in a 200 body, no choices, no message). A failing model cools down for
LLM_COOLDOWN_S: requests skip it (unless every model is cooling) and try it again after.

A fallback re-sends one request, never a turn: the tools of earlier steps ran once and are in the
messages the next model gets, so nothing runs twice. Once part of an answer was streamed to the
user the request is not moved (the words would repeat), and nothing is tried past the turn's
deadline. Each request's `attempts` list says which model answered and what failed before it.
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from backend.app.agent.loop_types import Attempt, ChatCompletionsClient, Heard, TextSink
from backend.app.core.exceptions import LLMBadResponse, LLMError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Arm:
    """One model of the list: its name on the wire, the client that reaches it, and how a request
    built for the first model's provider is shaped for its own (`presets.adapt`; None: as built)."""

    model: str
    client: ChatCompletionsClient
    adapt: Callable[[dict[str, Any]], dict[str, Any]] | None = None


class FallbackClient:
    label = "http"

    def __init__(
        self,
        arms: Sequence[Arm],
        *,
        cooldown_s: float,
        clock: Callable[[], float] = time.monotonic,
        observe: Callable[[Attempt], None] | None = None,
    ) -> None:
        if not arms:
            raise ValueError("FallbackClient needs at least one model")
        self.arms = tuple(arms)
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._observe = observe  # told of every attempt (metrics per model)
        self._cool_until: dict[str, float] = {}  # model -> monotonic time it may be tried again

    @property
    def models(self) -> list[str]:
        return [a.model for a in self.arms]

    def cooling(self) -> list[str]:
        now = self._clock()
        return [m for m, until in self._cool_until.items() if until > now]

    async def create(
        self,
        body: dict[str, Any],
        *,
        deadline: float,
        on_text: TextSink | None = None,
        attempts: list[Attempt] | None = None,
    ) -> dict[str, Any]:
        tried = attempts if attempts is not None else []
        heard = Heard(on_text)
        failure: LLMError | None = None
        for arm in self._order(body.get("model")):
            if failure is not None and (heard.pieces or self._clock() >= deadline):
                break  # words already reached the user, or no time is left: the failure stands
            try:
                request = arm.adapt(body) if arm.adapt is not None else body
                raw = await arm.client.create(
                    {**request, "model": arm.model}, deadline=deadline, on_text=heard if on_text else None
                )
                _completion(raw)
            except LLMError as exc:
                failure = exc
                self._note(tried, Attempt(arm.model, exc.code, exc.detail))
                self._cool_until[arm.model] = self._clock() + self.cooldown_s
                log.warning("llm_fallback", extra={"model": arm.model, "code": exc.code, "detail": exc.detail[:200]})
                continue
            self._cool_until.pop(arm.model, None)
            self._note(tried, Attempt(arm.model, None, None))
            return raw
        assert failure is not None  # the loop returns or records a failure for every model it tries
        raise _all_failed(failure, tried)

    def _note(self, tried: list[Attempt], attempt: Attempt) -> None:
        tried.append(attempt)
        if self._observe is not None:
            self._observe(attempt)

    def _order(self, first: object) -> list[Arm]:
        """The models in order, the one the request names first (the turn's choice), those cooling
        down last (in the order they come back)."""
        now = self._clock()
        named = sorted(self.arms, key=lambda a: a.model != first)  # stable: the rest keep their order
        ready = [a for a in named if self._cool_until.get(a.model, 0.0) <= now]
        cooling = sorted((a for a in named if a not in ready), key=lambda a: self._cool_until[a.model])
        return ready + cooling


def _completion(raw: dict[str, Any]) -> None:
    """An answer another model should be asked instead of: an error in a 200 body, no message."""
    if raw.get("error"):
        raise LLMBadResponse(f"LLM server returned an error in a 200 answer: {str(raw['error'])[:200]}")
    choices = raw.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise LLMBadResponse("LLM server returned no choices")
    if not isinstance(choices[0].get("message"), dict):
        raise LLMBadResponse("LLM server returned a choice without a message")


def _all_failed(last: LLMError, tried: list[Attempt]) -> LLMError:
    """The last failure as a new error of its kind (its status and headers), its detail naming every
    model that failed; the original is left as it was raised (it is the new one's cause)."""
    if len(tried) < 2:
        return last
    said = "; ".join(f"{a.model}: {a.detail}" for a in tried if a.code is not None)
    every = copy.copy(last)
    every.detail = f"Every model failed ({said})"[:1000]
    every.args = (every.detail,)
    every.__cause__ = last
    return every
