"""The reply speaks for every result, in both response modes (issue 13, part 3), end to end.

Each action asked for and each call made appears with its real outcome (done, failed, not done,
asked); the model's words never claim a success that failed nor deny one that succeeded; a turn
whose message asks for several actions keeps going, one call per step, until each is attempted.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.asking import asking_model
from support.compliant import compliant
from support.fake_llm import ScriptedLLM, calls, completion, declares, tool_call

TITLES = ("Taxes", "Bread", "Gym", "Laundry")
MODES = pytest.mark.parametrize("mode", ["direct", "model"])


async def seed(client: Any, llm: ScriptedLLM, *titles: str) -> None:
    await seed_tasks(client, *(titles or TITLES))


async def by_title(client: Any) -> dict[str, dict[str, Any]]:
    return {t["title"]: t for t in await tasks_of(client)}


def statuses(body: dict[str, Any]) -> list[tuple[str, str]]:
    actions = body["action_metadata"].get("actions") or [{**body["action_metadata"], "status": "?"}]
    return [(a["action"], a["status"]) for a in actions]


# -- several actions, one call per step -------------------------------------------------------------

MULTI = [
    (
        "delete the taxes task and mark bread done",
        [[("delete_task", {"task_id": "Taxes"})], [("complete_task", {"task_id": "Bread"})]],
        [("delete_task", "done"), ("complete_task", "done")],
    ),
    (
        "add milk, delete gym and complete the laundry",
        [
            [("add_task", {"title": "milk"})],
            [("delete_task", {"task_id": "Gym"})],
            [("complete_task", {"task_id": "Laundry"})],
        ],
        [("add_task", "done"), ("delete_task", "done"), ("complete_task", "done")],
    ),
    (
        "add eggs and add flour",
        [[("add_task", {"title": "eggs"})], [("add_task", {"title": "flour"})]],
        [("add_task", "done"), ("add_task", "done")],
    ),
    (
        "add milk, eggs and bread rolls",
        [
            [("add_task", {"title": "milk"})],
            [("add_task", {"title": "eggs"})],
            [("add_task", {"title": "bread rolls"})],
        ],
        [("add_task", "done"), ("add_task", "done"), ("add_task", "done")],
    ),
    (
        "elimina taxes y marca bread como hecha",
        [[("delete_task", {"task_id": "Taxes"})], [("complete_task", {"task_id": "Bread"})]],
        [("delete_task", "done"), ("complete_task", "done")],
    ),
]


@MODES
@pytest.mark.parametrize(("message", "steps", "expected"), MULTI, ids=[m[0] for m in MULTI])
async def test_every_action_of_a_message_is_attempted_one_call_per_step(
    make_client: MakeClient, mode: str, message: str, steps: Any, expected: list[tuple[str, str]]
) -> None:
    llm, model = compliant(steps, TITLES, after_tools="All done!")
    client = await make_client(llm, response_mode=mode)
    await seed(client, llm)

    body = (await chat(client, message)).json()

    assert statuses(body) == expected
    assert model.forced_calls == []
    # Model mode: one more call writes the reply, and one checks what its words claim.
    assert body["execution_metadata"]["llm_calls"] == len(steps) + 2 * (mode == "model")
    tasks = await by_title(client)
    for (tool, _), step in zip(expected, steps, strict=True):
        arguments = step[0][1]
        if tool == "delete_task":
            assert arguments["task_id"] not in tasks
        elif tool == "complete_task":
            assert tasks[arguments["task_id"]]["status"] == "completed"
        else:
            assert arguments["title"] in tasks
    for _, step in zip(expected, steps, strict=True):
        name = step[0][1].get("task_id") or step[0][1]["title"]
        assert name in body["assistant_message"]  # every action is in the reply


@MODES
async def test_a_model_that_stops_after_the_first_action_is_made_to_do_the_second(
    make_client: MakeClient, mode: str
) -> None:
    llm, model = compliant(
        [("delete_task", {"task_id": "Taxes"})], TITLES, after_tools="Deleted taxes and marked bread!"
    )
    llm.checker = declares(("delete", "Taxes"), ("complete", "Bread"))  # an honest check of its words
    client = await make_client(llm, response_mode=mode)
    await seed(client, llm)

    body = (await chat(client, "delete the taxes task and mark bread done")).json()

    assert model.forced_calls == ["complete_task"]
    tasks = await by_title(client)
    assert "Taxes" not in tasks and tasks["Bread"]["status"] == "completed"
    assert statuses(body) == [("delete_task", "done"), ("complete_task", "done")]


async def test_an_action_the_model_never_does_is_reported_not_done(make_client: MakeClient) -> None:
    # It deletes, then claims the rest; forced to complete, it still only talks.
    both = declares(("delete", "Taxes"), ("complete", "Bread"))  # an honest check of "Both done!"
    llm = ScriptedLLM(calls(("delete_task", {"task_id": "Taxes"})), default=completion("Both done!"), checker=both)
    client = await make_client(llm)
    await seed(client, llm)

    body = (await chat(client, "delete the taxes task and mark bread done")).json()

    tasks = await by_title(client)
    assert "Taxes" not in tasks and tasks["Bread"]["status"] == "pending"
    reply = body["assistant_message"]
    assert reply.startswith("Deleted: “Taxes”.")
    assert "Not done: “mark bread done”" in reply and "Both done!" not in reply
    assert statuses(body) == [("delete_task", "done"), ("complete_task", "not_done")]
    assert body["execution_metadata"]["reply"]["not_done"][0]["reason"] == "tool_not_triggered"
    assert body["execution_metadata"]["findings"][-1]["kind"] == "ActionNotDone"


async def test_an_item_of_a_list_the_model_skipped_is_reported_not_done(make_client: MakeClient) -> None:
    llm, _ = compliant([("add_task", {"title": "milk"})], TITLES, after_tools="Added milk and eggs!")
    client = await make_client(llm)

    body = (await chat(client, "add milk and eggs")).json()

    assert [t["title"] for t in await tasks_of(client)] == ["milk"]
    assert body["assistant_message"] == "Added: “milk”.\nNot done: “eggs”. Please ask again."


async def test_one_call_taking_several_items_covers_them(make_client: MakeClient) -> None:
    llm, _ = compliant([("add_task", {"title": "salt and pepper"})], TITLES, after_tools="Added.")
    client = await make_client(llm)

    body = (await chat(client, "add salt and pepper")).json()

    assert body["assistant_message"] == "Added: “salt and pepper”."
    assert body["execution_metadata"]["reply"]["not_done"] == []


@pytest.mark.parametrize(
    ("message", "edit"),
    [
        ("rename gym to Gym class and mark it done", {"title": "Gym class"}),
        ("set gym to high and mark it as done", {"priority": "high"}),
        ("cambia gym a prioridad alta y márcalo como hecho", {"priority": "high"}),
        ("setz Gym auf hohe Priorität und hak es ab", {"priority": "high"}),
        ("mark gym done and rename it to Gym class", {"title": "Gym class"}),
    ],
)
async def test_one_edit_making_two_changes_covers_both(
    make_client: MakeClient, message: str, edit: dict[str, Any]
) -> None:
    update = ("update_task", {"task_id": "Gym", **edit, "status": "completed"})
    llm, _ = compliant([update], ("Gym", "Taxes"), after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes")

    body = (await chat(client, message)).json()

    assert [t["status"] for t in await tasks_of(client) if t["title"] != "Taxes"] == ["completed"]
    assert body["execution_metadata"]["reply"]["not_done"] == [], body["assistant_message"]


@pytest.mark.parametrize(
    "message",
    [
        "mark gym done and set taxes to high priority",
        "complete gym and rename taxes to Tax return",
        "marca gym como hecha y pon taxes en prioridad alta",
    ],
)
async def test_an_edit_of_one_task_never_covers_a_change_of_another(make_client: MakeClient, message: str) -> None:
    # found by review: the rule above once covered every edit of the message
    llm, _ = compliant([("update_task", {"task_id": "Gym", "status": "completed"})], ("Gym", "Taxes"))
    client = await make_client(llm, tool_policy="auto")  # the model's one call runs as it made it
    await seed_tasks(client, "Gym", "Taxes")

    body = (await chat(client, message)).json()

    assert [n["action"] for n in body["execution_metadata"]["reply"]["not_done"]] == ["update_task"], body


# -- claims over failures, denials of successes ------------------------------------------------------


@MODES
async def test_done_over_a_failed_call_is_never_shown(make_client: MakeClient, mode: str) -> None:
    step = [("add_task", {"title": "Milk", "priority": "whenever"}), ("add_task", {"title": "Eggs"})]
    llm, _ = compliant([step], TITLES, after_tools="Done! Everything worked.")
    client = await make_client(llm, response_mode=mode)

    body = (await chat(client, "add milk with priority whenever and eggs")).json()

    reply = body["assistant_message"]
    assert "Everything worked" not in reply
    assert "Couldn't add “Milk”" in reply and "priority" in reply
    assert "Added: “Eggs”." in reply
    assert statuses(body) == [("add_task", "failed"), ("add_task", "done")]
    if mode == "model":
        assert body["execution_metadata"]["reply"]["replaced"][0]["reason"] == "hides_failure"


@MODES
async def test_a_denied_success_after_a_fixed_call_is_never_shown(make_client: MakeClient, mode: str) -> None:
    broken = completion(tool_calls=[tool_call("add_task", '{"title": "Call mom"', call_id="a", raw=True)])
    llm = ScriptedLLM(broken, calls(("add_task", {"title": "Call mom"})), completion("Sorry, I couldn't add Call mom."))
    client = await make_client(llm, response_mode=mode)

    body = (await chat(client, "add call mom")).json()

    assert [t["title"] for t in await tasks_of(client)] == ["Call mom"]
    assert body["assistant_message"] == "Added: “Call mom”."
    assert statuses(body) == [("add_task", "?")] and body["action_metadata"]["success"] is True
    if mode == "model":
        assert body["execution_metadata"]["reply"]["replaced"][0]["reason"] == "denied_success"
        assert body["execution_metadata"]["findings"][-1]["kind"] == "DeniedSuccess"


async def test_model_mode_keeps_a_consistent_reply_and_adds_what_it_left_out(make_client: MakeClient) -> None:
    llm = ScriptedLLM(
        calls(("add_task", {"title": "Milk"}), ("add_task", {"title": "Eggs"})), completion("Added Milk for you!")
    )
    client = await make_client(llm, response_mode="model")

    body = (await chat(client, "add milk and eggs")).json()

    assert body["assistant_message"] == "Added Milk for you!\nAdded: “Eggs”."
    assert body["execution_metadata"]["reply"]["source"] == "model"


async def test_model_mode_replaces_a_claim_of_more_than_ran(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "Milk"})), completion("I've added milk and deleted gym."))
    client = await make_client(llm, response_mode="model")
    await seed(client, llm, "Gym")

    body = (await chat(client, "add milk")).json()

    assert body["assistant_message"] == "Added: “Milk”."
    assert body["execution_metadata"]["reply"]["replaced"][0]["reason"] == "unbacked_claim"


# -- calls that were not done -------------------------------------------------------------------------


async def test_ten_completes_in_one_message_report_the_two_that_were_ignored(make_client: MakeClient) -> None:
    titles = [f"Errand {n}" for n in range(1, 11)]
    step = [("complete_task", {"task_id": t}) for t in titles]
    llm, _ = compliant([step], titles, after_tools="All ten done!")
    client = await make_client(llm, max_tool_calls_per_step=8)
    await seed(client, llm, *titles)

    body = (await chat(client, "complete " + ", ".join(titles))).json()

    done = [t for t, task in (await by_title(client)).items() if task["status"] == "completed"]
    assert len(done) == 8
    reply = body["assistant_message"]
    done_line = "Completed 8 tasks: " + ", ".join(f"“{t}”" for t in titles[:7]) + " and “Errand 8”."
    assert reply.splitlines()[0] == done_line and reply.count("Not done: complete") == 2  # many in one line
    assert "All ten done" not in reply
    assert [s for _, s in statuses(body)] == ["done"] * 8 + ["not_done"] * 2
    not_done = body["execution_metadata"]["reply"]["not_done"]
    assert [n["reason"] for n in not_done] == ["ignored", "ignored"]
    assert body["execution_metadata"]["tool_calls_ignored"] == 2


async def test_deletes_over_the_cap_are_asked_about(make_client: MakeClient) -> None:
    llm, _ = compliant([[("delete_task", {"task_id": t}) for t in TITLES]], TITLES)
    client = await make_client(llm, max_destructive_calls_per_turn=2)
    await seed(client, llm)

    body = (await chat(client, "delete taxes, bread, gym and laundry")).json()

    assert len(await tasks_of(client)) == 2
    assert [s for _, s in statuses(body)] == ["done", "done", "asked", "asked"]
    assert body["assistant_message"].endswith("Do you want me to delete “Gym” and delete “Laundry”? Answer yes or no.")
    ids = {t["title"]: t["id"] for t in await tasks_of(client)}  # each looked up: the yes runs exactly those
    assert [a["arguments"]["task_id"] for a in body["confirmation"]["actions"]] == [ids["Gym"], ids["Laundry"]]


async def test_a_turn_out_of_budget_says_what_was_not_done(make_client: MakeClient) -> None:
    steps = [[("add_task", {"title": "eggs"})], [("add_task", {"title": "flour"})], [("add_task", {"title": "jam"})]]
    llm, _ = compliant(steps, TITLES)
    client = await make_client(llm)

    body = (await chat(client, "add eggs, add flour and add jam", budget={"max_llm_calls": 2})).json()

    assert sorted(t["title"] for t in await tasks_of(client)) == ["eggs", "flour"]
    reply = body["assistant_message"]
    assert "Added: “eggs”." in reply and "Added: “flour”." in reply
    assert "Not done: “add jam”" in reply and reply.endswith(
        "That is as far as I got with this message: anything not listed above was not done. Please ask again."
    )
    assert body["execution_metadata"]["stop_reason"] == "budget_exceeded"
    assert statuses(body)[-1] == ("add_task", "not_done")


@pytest.mark.parametrize("mode", ["direct", "model"])
@pytest.mark.parametrize(
    "message",
    [
        "What's on my list? Show my tasks.",
        "was steht an? zeig mir meine Aufgaben",
        "¿qué tengo pendiente? muéstrame mis tareas",
        "show me everything",
    ],
)
async def test_a_request_done_once_is_not_said_undone_when_the_model_repeats_it(
    make_client: MakeClient, message: str, mode: str
) -> None:
    """A model that sends the same listing again (refused as a repeat and stopped) did what was asked
    with its first call: the reply shows the list and says nothing was left undone, in either mode."""
    llm = ScriptedLLM(default=calls(("list_tasks", {"status": "all"})))
    client = await make_client(llm, response_mode=mode)
    await seed_tasks(client, "Read book", "Buy milk")

    body = (await chat(client, message)).json()

    reply = body["assistant_message"]
    assert body["execution_metadata"]["stop_reason"] in (
        "repeated_call",
        "composed",
    )  # stopped at the repeat, or once covered
    assert "Read book" in reply and "Buy milk" in reply, reply
    assert "Not done" not in reply and "as far as I got" not in reply, reply
    assert "not_done" not in [a["status"] for a in body["action_metadata"].get("actions") or []]


async def test_a_repeat_does_not_hide_what_was_left_undone(make_client: MakeClient) -> None:
    """The same model, asked for a listing and a deletion it never makes: the deletion is said not
    done, and so is where the turn stopped."""
    llm = ScriptedLLM(default=calls(("list_tasks", {"status": "all"})))
    client = await make_client(llm)
    await seed_tasks(client, "Read book", "Gym")

    reply = (await chat(client, "show my tasks and delete gym")).json()["assistant_message"]

    assert "Not done: “delete gym”" in reply and "as far as I got" in reply, reply
    assert {t["title"] for t in await tasks_of(client)} == {"Read book", "Gym"}


async def test_a_repeated_change_does_not_stand_for_another(make_client: MakeClient) -> None:
    """ "delete gym and delete yoga" answered with the delete of gym twice: yoga is said not done."""
    llm = ScriptedLLM(default=calls(("delete_task", {"task_id": "Gym"})))
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Yoga")

    reply = (await chat(client, "delete gym and delete yoga")).json()["assistant_message"]

    assert "Not done: “delete yoga”" in reply, reply
    assert [t["title"] for t in await tasks_of(client, status="pending")] == ["Yoga"]


async def test_a_turn_stopped_with_nothing_done_says_nothing_was_changed(make_client: MakeClient) -> None:
    # The yes answers a question the reader did not take for a change: the model's deletes are refused
    # and the turn stops. Nothing is listed above the stop line, so it says nothing changed (it once
    # said "anything not listed above was not done" under nothing at all).
    titles = ("Gym", "Taxes", "Call mom")
    sweep = calls(*[("delete_task", {"task_id": t}) for t in titles])
    llm = ScriptedLLM(default=asking_model("apaga tudo", "Apago tudo da sua lista?", sweep), checker=declares())
    client = await make_client(llm)
    await seed_tasks(client, *titles)

    first = (await chat(client, "apaga tudo")).json()
    body = (await chat(client, "sim", conversation_id=first["conversation_id"])).json()

    assert len(await tasks_of(client)) == 3
    said = "Nada foi alterado: parei antes de conseguir fazer isso. Peça de novo, por favor."
    assert body["assistant_message"] == said, body["assistant_message"]
