"""A model that asks before it changes: the pieces the tests of a yes to the model's own question
share (tests/api/test_asked_back.py, test_whole_list_yes.py, test_pointing_yes.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from support.api import USER, auth, chat, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion, declares

TWELVE = ("Gym", "Report", *(f"Item {n}" for n in range(1, 11)))


def asking_model(
    request: str, question: str, then: dict[str, Any], *, claims: str | None = None
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A model that answers `request` with `question` (forced or not) and anything after it with
    `then`, and the results of its calls with "Done.". With `claims`, it answers what comes after
    with those words alone, making `then` only when a tool is forced on it."""

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        if messages[-1]["role"] == "tool":
            return completion("Done.")
        user = next(m["content"] for m in reversed(messages) if m["role"] == "user")
        if user == request:
            return completion(question)
        forced = isinstance(body.get("tool_choice"), dict)
        return completion(claims) if claims is not None and not forced else then

    return answer


def after(tasks: tuple[str, ...], tool: str, title: str) -> dict[str, str]:
    """Each task's status (by title, as `statuses` gives them) once `tool` changed `title` alone."""
    states = dict.fromkeys(tasks, "pending")
    if tool == "delete_task":
        del states[title]
    else:
        states[title] = "completed"
    return states


def sweep(tool: str, titles: tuple[str, ...]) -> dict[str, Any]:
    """One step of calls of `tool`, one per title."""
    return calls(*[(tool, {"task_id": t}) for t in titles])


async def yes_to(
    make_client: Callable[..., Any],
    tasks: tuple[str, ...],
    request: str,
    question: str,
    then: dict[str, Any],
    *,
    yes: str = "yes",
    done: tuple[str, ...] = (),
    claims: str | None = None,
    **settings: Any,
) -> tuple[Any, dict[str, Any]]:
    """The user's `request` over `tasks` (those in `done` completed first), the model's `question`
    back, the user's `yes`, and the model's step `then` (`claims`: its words alone until a tool is
    forced, `asking_model`), under `settings`: the client, and the reply to the yes."""
    model = asking_model(request, question, then, claims=claims)
    client = await make_client(ScriptedLLM(default=model, checker=declares()), **settings)
    await seed_tasks(client, *tasks)
    for task in await tasks_of(client):
        if task["title"] in done:
            response = await client.patch(
                f"/api/{USER}/tasks/{task['id']}", json={"status": "completed"}, headers=auth()
            )
            assert response.status_code == 200, response.text
    first = (await chat(client, request)).json()
    return client, (await chat(client, yes, conversation_id=first["conversation_id"])).json()
