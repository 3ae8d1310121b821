"""The fallback client alone (agent/fallback.py): what it never does, with fake model clients."""

from __future__ import annotations

import time
from typing import Any

import pytest

from backend.app.agent.fallback import Arm, FallbackClient
from backend.app.agent.loop_types import Attempt, TextSink
from backend.app.core.exceptions import LLMTimeout, LLMUnavailable

ANSWER = {"choices": [{"message": {"role": "assistant", "content": "ok"}}]}


class Fake:
    label = "http"

    def __init__(self, *, speaks: str = "", fails: Exception | None = None) -> None:
        self.speaks, self.fails, self.asked = speaks, fails, 0

    async def create(
        self,
        body: dict[str, Any],
        *,
        deadline: float,
        on_text: TextSink | None = None,
        attempts: list[Attempt] | None = None,
    ) -> dict[str, Any]:
        self.asked += 1
        if self.speaks and on_text is not None:
            on_text(self.speaks)
        if self.fails is not None:
            raise self.fails
        return ANSWER


async def test_words_already_heard_are_never_asked_of_another_model() -> None:
    first, second = Fake(speaks="Sure, I ", fails=LLMUnavailable("cut off")), Fake()
    client = FallbackClient([Arm("a", first), Arm("b", second)], cooldown_s=60)
    heard: list[str] = []

    with pytest.raises(LLMUnavailable):
        await client.create({"model": "a"}, deadline=time.monotonic() + 10, on_text=heard.append)

    assert heard == ["Sure, I "] and second.asked == 0  # the user would read the answer's start twice


async def test_nothing_is_tried_past_the_turns_deadline() -> None:
    clock = [100.0]

    class SlowFail(Fake):
        async def create(self, body: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            clock[0] = 200.0  # the first model used up the turn
            raise LLMTimeout("slow")

    first, second = SlowFail(), Fake()
    client = FallbackClient([Arm("a", first), Arm("b", second)], cooldown_s=60, clock=lambda: clock[0])

    with pytest.raises(LLMTimeout):
        await client.create({"model": "a"}, deadline=150.0)
    assert second.asked == 0


async def test_when_every_model_is_cooling_they_are_still_tried_in_the_order_they_come_back() -> None:
    clock = [0.0]
    a, b = Fake(fails=LLMUnavailable("down")), Fake(fails=LLMUnavailable("down"))
    client = FallbackClient([Arm("a", a), Arm("b", b)], cooldown_s=60, clock=lambda: clock[0])
    with pytest.raises(LLMUnavailable):
        await client.create({}, deadline=1e9)
    clock[0] = 1.0
    b.fails = None
    tried: list[Attempt] = []

    assert await client.create({}, deadline=1e9, attempts=tried) == ANSWER
    assert [(t.model, t.code) for t in tried] == [("a", "LLM_UNAVAILABLE"), ("b", None)]
    assert client.cooling() == ["a"]
