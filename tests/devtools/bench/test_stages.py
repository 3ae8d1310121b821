"""Which profiled functions each stage of bench/stages.py adds up (no profile run: recorded stats)."""

from __future__ import annotations

from types import SimpleNamespace

from backend.devtools.bench.stages import _stage_cpu


def stat(module: str, name: str, seconds: float) -> SimpleNamespace:
    return SimpleNamespace(module=f"/srv/app/backend/app/{module}", name=name, ttot=seconds)


def test_each_stage_adds_up_its_functions_and_nothing_else() -> None:
    stats = [
        stat("agent/request.py", "Requester.ask", 2.0),
        stat("agent/request.py", "Requester.ask", 1.0),  # the second request of a model-mode turn
        stat("agent/request.py", "Requester.check", 0.5),  # the reply's check is a model call too
        stat("services/turn/context.py", "Step.guarded", 0.25),
        stat("services/turn/commands.py", "asked_in", 0.125),  # read in the tool step: in execute_batch's time
        stat("services/turn/pipeline.py", "ChatService.chat", 8.0),
        stat("services/turn/pipeline.py", "ChatService._chat", 7.0),  # inside the turn: counted in no stage
        SimpleNamespace(module="/venv/site-packages/fastapi/applications.py", name="FastAPI.__call__", ttot=10.0),
        stat("agent/offline/parsing.py", "ask", 9.0),  # a function of that name elsewhere is not the stage's
    ]

    found = _stage_cpu(stats)

    assert found["model"] == 3.5 and found["read"] == 0.25
    assert found["turn"] == 8.0 and found["server"] == 10.0
    assert found["prepare"] == found["tools"] == found["reply"] == found["persist"] == 0.0
