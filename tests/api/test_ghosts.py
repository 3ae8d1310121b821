"""Ghost claims are caught whatever the wording or language (issue 13, part 2), end to end.

The model first answers a clear command with a claim and no tool call; it complies when a tool is
forced on it. The user must end up with the change made and a reply built from its result, never
with the model's unbacked claim. A claim on a message no language file reads still never reaches
the user.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.compliant import compliant
from support.fake_llm import ScriptedLLM, completion, declares

from backend.app.language.catalog import texts

TITLES = ("Taxes", "Bread", "Gym", "Laundry")

# (message, the model's ghost reply, the tool the guard must force, the task it acts on or None for an add)
GHOSTS: list[tuple[str, str, str, str | None]] = [
    ("bin the taxes task", "Taxes has been removed from your list.", "delete_task", "Taxes"),
    ("strike bread off my list", "Bread is crossed off!", "complete_task", "Bread"),
    ("stick eggs on my list", "Eggs are on your list now.", "add_task", None),
    ("get rid of the gym one, please", "Gym is gone.", "delete_task", "Gym"),
    ("could you tick off the laundry?", "Laundry marked as done ✅", "complete_task", "Laundry"),
    ("take taxes off my to-do list", "Done, I took Taxes off.", "delete_task", "Taxes"),
    ("jot down call the plumber", "Noted! I've added it.", "add_task", None),
    ("Gym is done", "Nice work, Gym has been completed.", "complete_task", "Gym"),
    ("elimina la tarea taxes", "La tarea taxes ha sido eliminada de tu lista.", "delete_task", "Taxes"),
    ("añade huevos a mi lista", "He añadido huevos a tu lista.", "add_task", None),
    ("marca bread como hecha", "Listo, bread está completada.", "complete_task", "Bread"),
    ("supprime la tâche taxes", "La tâche taxes a été supprimée.", "delete_task", "Taxes"),
    ("ajoute du lait à ma liste", "J'ai ajouté du lait.", "add_task", None),
    ("marque bread comme faite", "C'est fait, bread est terminée.", "complete_task", "Bread"),
    ("Lösch die Aufgabe taxes", "Die Aufgabe taxes wurde gelöscht.", "delete_task", "Taxes"),
    ("Füg Milch zu meiner Liste hinzu", "Ich habe Milch hinzugefügt.", "add_task", None),
    ("Hak bread ab", "bread ist jetzt erledigt.", "complete_task", "Bread"),
    ("apaga a tarefa taxes", "A tarefa taxes foi removida.", "delete_task", "Taxes"),
    ("adiciona leite na minha lista", "Adicionei leite à sua lista.", "add_task", None),
    ("marca bread como feita", "Pronto, bread foi concluída.", "complete_task", "Bread"),
    ("cancella l'attività taxes", "Ho cancellato l'attività taxes.", "delete_task", "Taxes"),
    ("aggiungi il latte alla mia lista", "Ho aggiunto il latte.", "add_task", None),
    ("segna bread come fatto", "Fatto, bread è completato.", "complete_task", "Bread"),
    ("taxes wala task delete kar do", "taxes delete kar diya gaya hai.", "delete_task", "Taxes"),
    ("doodh add kar do", "doodh add ho gaya.", "add_task", None),
    ("bread complete kar do", "bread complete ho gaya.", "complete_task", "Bread"),
]


# The language each message is answered in (English unless listed).
LANGUAGE = {
    **dict.fromkeys([g[0] for g in GHOSTS[8:11]], "es"),
    **dict.fromkeys([g[0] for g in GHOSTS[11:14]], "fr"),
    **dict.fromkeys([g[0] for g in GHOSTS[14:17]], "de"),
    **dict.fromkeys([g[0] for g in GHOSTS[17:20]], "pt"),
    **dict.fromkeys([g[0] for g in GHOSTS[20:23]], "it"),
    **dict.fromkeys([g[0] for g in GHOSTS[23:26]], "ur"),
}


async def seed(client: Any, llm: ScriptedLLM) -> None:
    await seed_tasks(client, *TITLES)


def honest(tool: str, title: str | None) -> Any:
    """A check that reads the ghost as what it is: a claim of that change (the scripted default says
    every text claims nothing). The word lists read most ghosts without it; "Eggs are on your list
    now" only the check reads."""
    return declares((tool.removesuffix("_task"), title or ""))


@pytest.mark.parametrize(("message", "ghost", "tool", "title"), GHOSTS, ids=[g[0] for g in GHOSTS])
async def test_a_ghosted_command_gets_its_forced_retry(
    make_client: MakeClient, message: str, ghost: str, tool: str, title: str | None
) -> None:
    llm, model = compliant([], TITLES, ghost=ghost)
    llm.checker = honest(tool, title)
    client = await make_client(llm)
    await seed(client, llm)

    body = (await chat(client, message)).json()

    assert model.forced_calls == [tool], body["execution_metadata"]["intent"]
    tasks = {t["title"]: t for t in await tasks_of(client)}
    if tool == "delete_task":
        assert title not in tasks
    elif tool == "complete_task":
        assert tasks[title or ""]["status"] == "completed"
    else:
        assert len(tasks) == len(TITLES) + 1
    assert ghost not in body["assistant_message"]
    # The reply is built from the result, in the language of the message.
    t = texts(body["execution_metadata"]["language"]["code"])
    data = body["tool_calls"][-1]["result"]["data"]
    done = {
        "delete_task": "Deleted: “{title}”",
        "complete_task": "Completed: “{title}”",
        "add_task": "Added: “{title}”",
    }
    assert body["assistant_message"].startswith(t(done[tool], title=data["title"]))
    assert body["execution_metadata"]["language"]["detected"] == LANGUAGE.get(message, "en")
    assert body["action_metadata"]["action"] == tool and body["action_metadata"]["success"] is True
    assert body["tool_calls"][-1]["retried"] is True and body["tool_calls"][-1]["retry_reason"] == "missing_tool"
    decisions = body["execution_metadata"]["guard"]["decisions"]
    forced = next(d for d in decisions if d["decision"] == "forced")
    assert (forced["reason"], forced["tool"], forced["rule"]) == ("missing_tool", tool, "A5")
    # Forced on what the word lists read as a claim, or else on what the check says the words claim.
    assert [d["decision"] for d in decisions[: decisions.index(forced)]] in ([], ["checked"])


@pytest.mark.parametrize(("message", "ghost", "tool", "title"), GHOSTS, ids=[g[0] for g in GHOSTS])
async def test_a_ghost_that_survives_the_retry_is_never_shown(
    make_client: MakeClient, message: str, ghost: str, tool: str, title: str | None
) -> None:
    # This model claims twice and never calls a tool, even when one is forced on it.
    llm = ScriptedLLM(default=completion(ghost), checker=honest(tool, title))
    client = await make_client(llm)
    await seed(client, llm)
    before = await tasks_of(client)

    body = (await chat(client, message)).json()

    language = body["execution_metadata"]["language"]["code"]
    assert language == LANGUAGE.get(message, "en")
    assert body["assistant_message"] == texts(language)("Technical error: Tool not triggered.")
    assert await tasks_of(client) == before
    assert body["action_metadata"] == {
        "action": tool,
        "success": False,
        "task_id": None,
        "task_title": None,
        "message": "Tool not triggered",
        "actions": None,
    }


# -- claims on messages no language file reads ---------------------------------------------------

# (a message no file reads, the model's claim of one kind of change, the task the user's words name)
UNREAD = [
    ("odstraň úkol taxes", "Taxes has been removed from your list.", "Taxes"),  # Czech: no file
    ("usuń zadanie gym", "I've deleted Gym for you.", "Gym"),  # Polish
    ("taxes: weg damit", "Done! Taxes is gone.", "Taxes"),  # German, in words no file lists
    ("muss ich heute noch gym gehen", "Gym ist erledigt.", "Gym"),  # a German question no file reads
    ("Gymを消して", "消しました！", "Gym"),  # Japanese: only the model's check reads the claim
]


@pytest.mark.parametrize(("message", "ghost", "named"), UNREAD, ids=[u[0] for u in UNREAD])
async def test_a_claim_on_an_unread_message_is_asked_about_never_run_and_never_shown(
    make_client: MakeClient, message: str, ghost: str, named: str
) -> None:
    """The claim says which change the model meant, the user's words on which task; the message may
    still be a question no file reads, so the forced call is only looked up and the user is asked."""
    llm, model = compliant([], TITLES, ghost=ghost)
    llm.checker = declares(("complete" if "erledigt" in ghost else "delete", ""))  # an honest check of the claim
    client = await make_client(llm)
    await seed(client, llm)
    before = await tasks_of(client)

    body = (await chat(client, message)).json()

    assert body["execution_metadata"]["intent"]["kind"] == "chat"
    assert await tasks_of(client) == before
    tool = model.forced_calls[0]
    assert body["tool_calls"][-1]["result"]["code"] == "NEEDS_CONFIRMATION"
    assert ghost not in body["assistant_message"]
    assert body["confirmation"]["actions"][0]["name"] == tool and named in body["confirmation"]["question"]
    yes = (await chat(client, "yes", conversation_id=body["conversation_id"])).json()
    assert yes["tool_calls"][0]["result"]["success"] is True


async def test_a_claim_of_several_kinds_gets_the_way_out_and_is_never_shown(make_client: MakeClient) -> None:
    llm, _ = compliant([], TITLES, ghost="Hotovo! Všechno je vyřízeno.", takes_way_out=True)
    client = await make_client(llm, reply_check="model")
    llm.checker = declares(("delete", "Taxes"), ("complete", "Gym"))  # its check: two kinds of change
    await seed(client, llm)
    before = await tasks_of(client)

    body = (await chat(client, "ukliď to všechno")).json()

    assert await tasks_of(client) == before
    assert "Hotovo" not in body["assistant_message"] and body["assistant_message"].startswith("Nothing was changed.")
    request = llm.requests[-1]
    assert request["tool_choice"] == "required"
    assert "respond" in [t["function"]["name"] for t in request["tools"]]  # the way out


async def test_on_an_unread_message_a_model_that_acts_after_its_claim_is_asked_about_what_the_user_named(
    make_client: MakeClient,
) -> None:
    # After a claim of two kinds, asked again with the tools required, the model deletes: its claim,
    # not the user, asked for a change, so nothing runs. The task the user's words name ("taxes") is
    # asked about, and a yes deletes it; the task they do not name is neither done nor asked about.
    llm, _ = compliant(
        [("delete_task", {"task_id": "Taxes"}), ("delete_task", {"task_id": "Gym"})],
        TITLES,
        ghost="Taxes has been removed and Gym completed.",
        takes_way_out=False,
    )
    llm.checker = declares(("delete", "Taxes"), ("complete", "Gym"))  # an honest check: two kinds of change
    client = await make_client(llm)
    await seed(client, llm)
    before = await tasks_of(client)

    body = (await chat(client, "odstraň úkol taxes")).json()

    assert await tasks_of(client) == before
    results = [(c["name"], c["arguments"]["task_id"], c["result"].get("code")) for c in body["tool_calls"]]
    assert results == [("delete_task", "Taxes", "NEEDS_CONFIRMATION"), ("delete_task", "Gym", "NOT_GROUNDED")]
    assert body["confirmation"]["actions"] == [
        {"name": "delete_task", "arguments": {"task_id": body["tool_calls"][0]["result"]["data"]["id"]}}
    ]
    assert body["assistant_message"] == "Do you want me to delete “Taxes”? Answer yes or no."

    yes = (await chat(client, "yes", conversation_id=body["conversation_id"])).json()
    assert yes["assistant_message"] == "Deleted: “Taxes”."
    titles = [t["title"] for t in await tasks_of(client)]
    assert "Taxes" not in titles and "Gym" in titles


async def test_a_question_answered_with_a_first_person_claim_is_not_shown(make_client: MakeClient) -> None:
    llm, model = compliant("Yes, and I've deleted it for you too.", TITLES)
    client = await make_client(llm)
    await seed(client, llm)
    before = await tasks_of(client)

    body = (await chat(client, "did I finish the taxes?")).json()

    assert await tasks_of(client) == before and model.forced_calls == []
    assert "deleted" not in body["assistant_message"]
    assert body["execution_metadata"]["reply"]["replaced"][0]["reason"] == "ghost_claim"
    assert body["execution_metadata"]["findings"][-1]["kind"] == "GhostClaim"


async def test_a_question_answered_with_the_tasks_state_is_shown(make_client: MakeClient) -> None:
    llm, _ = compliant("Yes, Taxes has been completed since Monday.", TITLES)
    client = await make_client(llm)
    await seed(client, llm)

    body = (await chat(client, "did I finish the taxes?")).json()

    assert body["assistant_message"] == "Yes, Taxes has been completed since Monday."
