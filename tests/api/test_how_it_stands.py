"""A question about how a task stands is answered, never turned into a question back (issue 48, item 8).

"Did I already pay the rent?", "when is the passport due?", "is the dentist still on my list?": the
user asks how things stand. A model that completes or deletes the task it names was asked about
("Do you want me to complete “Rent”?"): a question nobody needed, a quarter of the held-out turns'
"asked other". Now the change is not made and not asked about; the task's state, read from the
database, is said ("“Rent”: pending."), and the model's honest words beside it, where they can be
shown. A request in question form ("can you zap the choir one?") is no such question: it is asked
about or run as before.
"""

from __future__ import annotations

import re
from datetime import date

import pytest
from support.api import MakeClient, auth, chat, seed_tasks, statuses, tasks_of
from support.compliant import CompliantModel
from support.fake_llm import NO_CLAIMS, ScriptedLLM, calls, completion, declares

from backend.app.language.reading.intent import classify

PENDING = {
    "en": "pending",
    "de": "offen",
    "es": "pendiente",
    "fr": "à faire",
    "it": "da fare",
    "nl": "openstaand",
    "pt": "pendente",
    "sv": "öppen",
    "ur": "baqi",
}

# (language, the user's tasks, the message, the model's wrong change, the task it names)
STATE_QUESTIONS = [
    ("en", ("Rent", "Gym", "Call mom"), "did I already pay the rent?", "complete_task", "Rent"),
    ("en", ("Rent", "Gym", "Call mom"), "have i called mom this week?", "complete_task", "Call mom"),
    ("en", ("Passport renewal", "Gym"), "when is the passport renewal due again?", "delete_task", "Passport renewal"),
    ("en", ("Dentist", "Gym"), "hmm, is the dentist still on my list?", "delete_task", "Dentist"),
    ("en", ("Guitar course", "Gym"), "how long has the guitar course been on here?", "delete_task", "Guitar course"),
    ("en", ("Water bill", "Gym"), "wait did i ever pay the water bill??", "complete_task", "Water bill"),
    ("de", ("Miete", "Gym"), "hab ich die Miete schon überwiesen?", "complete_task", "Miete"),
    ("de", ("Zahnarzt", "Gym"), "wann ist der Zahnarzt nochmal?", "delete_task", "Zahnarzt"),
    ("de", ("Reisepass", "Gym"), "steht der Reisepass noch auf der Liste?", "delete_task", "Reisepass"),
    ("de", ("Steuererklärung", "Gym"), "ist die Steuererklärung noch offen?", "complete_task", "Steuererklärung"),
    ("de", ("Gitarre", "Gym"), "wie lange steht Gitarre schon drauf?", "delete_task", "Gitarre"),
    ("es", ("Pasaporte", "Gimnasio"), "¿cuándo vence el pasaporte?", "delete_task", "Pasaporte"),
    ("es", ("Dentista", "Gimnasio"), "¿sigue el dentista en la lista?", "delete_task", "Dentista"),
    ("es", ("Alquiler", "Gimnasio"), "¿he pagado ya el alquiler?", "complete_task", "Alquiler"),
    ("es", ("Alquiler", "Gimnasio"), "¿todavía tengo pendiente el alquiler?", "complete_task", "Alquiler"),
    ("fr", ("Loyer", "Sport"), "j'ai déjà payé le loyer ?", "complete_task", "Loyer"),
    ("fr", ("Passeport", "Sport"), "c'est pour quand le passeport ?", "delete_task", "Passeport"),
    ("fr", ("Dentiste", "Sport"), "le dentiste est toujours sur la liste ?", "delete_task", "Dentiste"),
    (
        "fr",
        ("Appeler mamie", "Sport"),
        "est-ce que j'ai appelé mamie cette semaine ?",
        "complete_task",
        "Appeler mamie",
    ),
    ("it", ("Affitto", "Palestra"), "ho già pagato l'affitto?", "complete_task", "Affitto"),
    ("it", ("Passaporto", "Palestra"), "quando scade il passaporto?", "delete_task", "Passaporto"),
    ("it", ("Dentista", "Palestra"), "c'è ancora il dentista in lista?", "delete_task", "Dentista"),
    ("nl", ("Huur", "Sportschool"), "heb ik de huur al betaald?", "complete_task", "Huur"),
    ("nl", ("Paspoort", "Sportschool"), "wanneer moet het paspoort ook alweer?", "delete_task", "Paspoort"),
    ("nl", ("Tandarts", "Sportschool"), "staat de tandarts nog op de lijst?", "delete_task", "Tandarts"),
    ("pt", ("Aluguel", "Academia"), "eu já paguei o aluguel?", "complete_task", "Aluguel"),
    ("pt", ("Passaporte", "Academia"), "quando vence o passaporte?", "delete_task", "Passaporte"),
    ("pt", ("Dentista", "Academia"), "o dentista ainda está na lista?", "delete_task", "Dentista"),
    ("sv", ("Hyran", "Gymmet"), "har jag betalat hyran?", "complete_task", "Hyran"),
    ("sv", ("Passet", "Gymmet"), "när ska passet förnyas?", "delete_task", "Passet"),
    ("sv", ("Tandläkaren", "Gymmet"), "står tandläkaren kvar på listan?", "delete_task", "Tandläkaren"),
    ("ur", ("Kiraya", "Gym"), "kya maine kiraya de diya tha?", "complete_task", "Kiraya"),
    ("ur", ("Passport", "Gym"), "passport kab expire ho raha hai?", "delete_task", "Passport"),
]


def wrong_model(tool: str, title: str, words: str, **arguments: str) -> CompliantModel:
    """The competent, compliant model with one mistake: `tool` on `title` (with `arguments`); `words`
    after its results, or when asked again without tools."""
    return CompliantModel([(tool, {"task_id": title, **arguments})], after_tools=words)


@pytest.mark.parametrize(("lang", "tasks", "message", "tool", "title"), STATE_QUESTIONS)
async def test_a_question_about_a_task_is_answered_with_its_state(
    make_client: MakeClient, lang: str, tasks: tuple[str, ...], message: str, tool: str, title: str
) -> None:
    action = tool.removesuffix("_task")
    llm = ScriptedLLM(default=wrong_model(tool, title, "Done!"), checker=declares((action, title)))
    client = await make_client(llm)
    await seed_tasks(client, *tasks)

    body = (await chat(client, message)).json()

    assert await statuses(client) == dict.fromkeys(tasks, "pending"), body["assistant_message"]
    assert body["confirmation"] is None, body["assistant_message"]
    assert body["tool_calls"][0]["result"]["code"] == "STATED"  # looked up, not run
    assert body["action_metadata"] is None  # the model's change was no action of the user's
    decisions = body["execution_metadata"]["guard"]["decisions"]
    assert ("refused", "not_asked") in [(d["decision"], d["reason"]) for d in decisions]
    # The model's claim is not shown; the task's state, from the database, is (in the language the
    # reply is in: where the message's own cannot be told, the default's).
    reply = body["assistant_message"]
    assert "Done!" not in reply
    assert re.search(f"“{re.escape(title)}” ?: ({PENDING[lang]}|{PENDING['en']})", reply), reply


@pytest.mark.parametrize("response_mode", ["direct", "model"])
async def test_the_models_honest_answer_is_shown_beside_it(make_client: MakeClient, response_mode: str) -> None:
    honest = "Not yet: the rent is still open."
    llm = ScriptedLLM(default=wrong_model("complete_task", "Rent", honest), checker=NO_CLAIMS)
    client = await make_client(llm, response_mode=response_mode)
    await seed_tasks(client, "Rent", "Gym")

    body = (await chat(client, "did I already pay the rent?")).json()

    assert await statuses(client) == {"Rent": "pending", "Gym": "pending"}
    assert body["confirmation"] is None
    assert honest in body["assistant_message"]
    assert "“Rent”: pending." in body["assistant_message"]  # what the database says, in either mode


@pytest.mark.parametrize(
    ("message", "edit"),
    [
        ("did I already pay the rent?", {"status": "completed"}),
        ("when is the rent due again?", {"due_date": "2026-12-24"}),
        ("wann ist die Miete nochmal fällig?", {"priority": "high"}),
    ],
)
async def test_an_edit_on_such_a_question_is_not_made_and_the_task_is_stated(
    make_client: MakeClient, message: str, edit: dict[str, str]
) -> None:
    llm = ScriptedLLM(default=wrong_model("update_task", "Rent", "Done!", **edit), checker=declares(("update", "Rent")))
    client = await make_client(llm)
    await seed_tasks(client, "Rent", "Gym", due_date=date(2026, 12, 1))

    body = (await chat(client, message.replace("Miete", "Rent"))).json()

    tasks = {t["title"]: t for t in await tasks_of(client)}
    assert (tasks["Rent"]["status"], tasks["Rent"]["due_date"], tasks["Rent"]["priority"]) == (
        "pending",
        "2026-12-01",
        "medium",
    )
    assert body["confirmation"] is None
    assert body["tool_calls"][0]["result"]["code"] == "STATED"
    assert re.search("“Rent” ?: (pending|offen), (due|fällig am) 2026-12-01", body["assistant_message"]), body


async def test_no_state_is_said_of_a_task_the_question_does_not_name(make_client: MakeClient) -> None:
    # "bill" is a word of both titles: the model's pick is not the task asked about.
    llm = ScriptedLLM(
        default=wrong_model("complete_task", "Electricity bill", "Done!"), checker=declares(("complete", ""))
    )
    client = await make_client(llm)
    await seed_tasks(client, "Water bill", "Electricity bill")

    body = (await chat(client, "did I pay the water bill?")).json()

    assert await statuses(client) == {"Water bill": "pending", "Electricity bill": "pending"}
    assert body["confirmation"] is None
    assert "Electricity bill" not in body["assistant_message"]


async def test_a_done_task_is_said_to_be_done(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=wrong_model("delete_task", "Rent", "Done!"), checker=declares(("delete", "Rent")))
    client = await make_client(llm)
    await seed_tasks(client, "Rent", "Gym", due_date=date(2026, 12, 1))
    rent = next(t["id"] for t in await tasks_of(client) if t["title"] == "Rent")
    await client.patch(f"/api/alice/tasks/{rent}", json={"status": "completed"}, headers=auth())

    body = (await chat(client, "is the rent still on my list?")).json()

    assert await statuses(client) == {"Rent": "completed", "Gym": "pending"}
    assert body["confirmation"] is None
    assert "“Rent”: completed, due 2026-12-01." in body["assistant_message"], body["assistant_message"]


@pytest.mark.parametrize(("code", "said"), [("en", "no longer on your list"), ("de", "nicht mehr auf deiner Liste")])
def test_a_task_gone_before_its_state_is_read_is_said_to_be_gone(code: str, said: str) -> None:
    # Deleted by another request between the lookup and the reading: the lookup's id and title are
    # all the result holds; the line says so, in the user's language, never a blank line.
    from backend.app.language.catalog import texts
    from backend.app.services.reply.wording import state_line

    line = state_line(texts(code), {"id": "7f0c3a52-1b9e-4c8e-9a7e-0d5d1f3c2b11", "title": "Rent"})

    assert line == f"“Rent”: {said}."


# Requests in question form, and questions beside a command: never answered with a state alone.
REQUESTS = [
    ("can you zap the choir one?", "delete_task"),  # a request frame: asked about, as before
    ("kannst du den Chor noch rausnehmen?", "delete_task"),
    ("tu peux encore virer la chorale ?", "delete_task"),
    ("kun je de koor nog weghalen?", "delete_task"),
    ("¿puedes quitar todavía lo del coro?", "delete_task"),
    ("when you get a sec could you zap the choir thing?", "delete_task"),
]


@pytest.mark.parametrize(("message", "tool"), REQUESTS)
async def test_a_request_in_question_form_is_still_asked_about_or_run(
    make_client: MakeClient, message: str, tool: str
) -> None:
    llm = ScriptedLLM(default=wrong_model(tool, "Choir", "Done!"), checker=declares(("delete", "Choir")))
    client = await make_client(llm)
    await seed_tasks(client, "Choir", "Gym")

    body = (await chat(client, message)).json()

    # Run, or asked about with a yes that runs it: never left as a state the user did not ask for.
    asked = body["confirmation"] is not None
    assert asked or "Choir" not in await statuses(client), body["assistant_message"]
    assert "“Choir”: pending" not in body["assistant_message"]


# Requests put as questions, a question with another sentence beside it, a complaint: none of them
# asks only how a task stands (found by a review of the first version, 2026-12-07).
NOT_STATE = [
    "did I say to delete gym? do it",
    "why is gym still there? I told you to delete it",
    "why is gym still there?",
    "is there still a gym task? kill it",
    "did i pay rent yet? pretty sure i did so tick it",
    "is the rent still pending? I paid it yesterday",
    "did I pay the rent? I just did!",
    "is gym still on? drop",
    "do we delete gym?",
    "had I better delete gym?",
    "have i asked you to remove gym yet? please do",
    "when are you going to tick off the rent?",
    "how long till you tick off rent",
    "when is the dentist? can it be friday",
    "wann löschst du endlich Gym?",
    "hab ich Gym schon gelöscht? wenn nicht, bitte jetzt",
    "ist die Miete noch offen? hab sie gestern bezahlt",
    "steht Gym noch auf der Liste? kann weg",
    "ist der Chor noch drauf? brauch ich nicht mehr",
    "¿cuándo vas a borrar el gym?",
    "¿he borrado el gym? si no, hazlo",
    "¿sigue el gym en la lista? fuera",
    "quand est-ce que tu vas supprimer le gym ?",
    "est-ce que j'ai fini les impôts ? si oui coche",
    "j'ai supprimé le yoga ? sinon fais-le",
    "ti ho detto di cancellare la palestra? fallo",
    "quando cancelli la palestra?",
    "ho finito le tasse? se sì spunta",
    "wanneer verwijder je de sportschool?",
    "heb ik de sportschool verwijderd? zo niet, doe het",
    "quando você vai apagar a academia?",
    "eu já fiz os impostos? se sim marca",
    "när tar du bort gymmet?",
    "har jag sagt att du ska ta bort gymmet? gör det",
    "gym kab delete karoge?",
    "kya maine taxes kar liye? agar haan to done kar do",
    "gym abhi bhi hai? nikaal do",
    # a second review, of the version that took any sentence beside such a question (2026-12-07)
    "did i finish gym please complete it",
    "did I pay the rent if so delete it",
    "is gym still on the list delete it",
    "is the rent still open, could you close it for me?",
    "is the rent still open, close it",
    "finally paid the rent, is it still open?",
    "is gym still on the list when I said remove it?",
    "is de huur nog open, wil je hem sluiten?",
    "heb ik de huur betaald of vink je hem af?",
    "hab ich Gym schon erledigt wenn ja lösch es",
    "ist Gym noch offen? hab ich erledigt",
    "¿todavía está el gimnasio, lo quitas?",
    "¿he pagado el alquiler, lo marcas?",
    "le loyer est toujours à faire ? c'est fait",
    "est-ce que j'ai fini le sport, coche",
    "c'è ancora la palestra anche se ti ho detto di toglierla?",
    "finalmente ho pagato l'affitto, è ancora da fare?",
    "o aluguel ainda está pendente? tá feito",
    "eu já paguei o aluguel ou marca pra mim?",
    "har jag betalat hyran bocka av den",
    "står gymmet kvar på listan, kan tas bort",
    "maine kiraya de diya, abhi tak pending hai?",
    "kya maine kiraya de diya done kar do",
    "is gym still there or what?",
    "did I pay the rent or should it be closed?",
    "¿he pagado el alquiler o lo marcas?",
    "am I done with the rent? yes",
    "is gym still open? it's done",
    "är hyran fortfarande öppen? den är klar",
    "was I supposed to delete gym?",
    # a third review: a word of politeness in the question makes it a request
    "ist Gym noch drauf bitte weg?",
    "is the rent still open pls tick?",
    "is rent still open kindly close it?",
    "le sport est toujours là stp vire?",
    "¿sigue el gimnasio en la lista por favor?",
    "staat de sportschool er nog op alsjeblieft?",
]


@pytest.mark.parametrize("message", NOT_STATE)
def test_a_request_or_a_question_beside_anything_else_is_no_question_of_state(message: str) -> None:
    assert classify(message).kind != "state"


MIXED = [
    ("is the choir still on my list? delete it then", "delete_task"),
    ("did I finish the choir stuff? if so mark it done", "complete_task"),
    ("steht der Chor noch drauf? dann lösch ihn", "delete_task"),
    ("¿sigue lo del coro? bórralo", "delete_task"),
    ("c'est pour quand la chorale ? supprime-la", "delete_task"),
]


@pytest.mark.parametrize(("message", "tool"), MIXED)
async def test_a_command_beside_the_question_runs(make_client: MakeClient, message: str, tool: str) -> None:
    action = tool.removesuffix("_task")
    llm = ScriptedLLM(default=wrong_model(tool, "Choir", "Done!"), checker=declares((action, "Choir")))
    client = await make_client(llm)
    await seed_tasks(client, "Choir", "Gym")

    body = (await chat(client, message)).json()

    done = await statuses(client)
    assert done.get("Choir") != "pending" or body["confirmation"] is not None, body["assistant_message"]


# A question of how a task stands beside a command for another change: the model's change of the
# task asked about is one nobody asked for (before, the question's words named it, and it ran).
BESIDE_A_COMMAND = [
    ("did I pay the rent? add call landlord", "call landlord"),
    ("hab ich die Miete schon bezahlt? füg Vermieter anrufen hinzu", "Vermieter anrufen"),
    ("¿sigue el alquiler en la lista? añade llamar al casero", "llamar al casero"),
    ("heb ik de huur al betaald? voeg verhuurder bellen toe", "verhuurder bellen"),
]


def _adds_and_completes(title: str, done: str) -> CompliantModel:
    """The model adds `title`, as asked, and completes `done`, which the message only asks about."""
    return CompliantModel([("add_task", {"title": title}), ("complete_task", {"task_id": done})])


@pytest.mark.parametrize(("message", "added"), BESIDE_A_COMMAND)
async def test_the_task_a_question_asks_about_is_not_changed_beside_a_command(
    make_client: MakeClient, message: str, added: str
) -> None:
    title = {"Miete": "Miete", "alquiler": "Alquiler", "huur": "Huur"}
    rent = next((v for k, v in title.items() if k in message), "Rent")
    llm = ScriptedLLM(default=_adds_and_completes(added, rent))
    client = await make_client(llm)
    await seed_tasks(client, rent, "Gym")

    body = (await chat(client, message)).json()

    states = await statuses(client)
    assert states[rent] == "pending", body["assistant_message"]
    assert any(added.lower() == t.lower() for t in states), states


POINTING_BACK = [
    "did I pay the rent? if so complete it and add call landlord",
    "did I pay the rent? add call landlord, and if I did complete it",
    "is the rent still open? add call landlord. I paid it already",
]


@pytest.mark.parametrize("message", POINTING_BACK)
async def test_a_change_of_the_task_asked_about_beside_a_command_is_asked_about(
    make_client: MakeClient, message: str
) -> None:
    # The question's words are no name to run the completion on (above), but the message may ask
    # for it in words no list reads ("if so complete it"): it is asked about, never dropped unsaid.
    llm = ScriptedLLM(default=_adds_and_completes("call landlord", "Rent"))
    client = await make_client(llm)
    await seed_tasks(client, "Rent", "Gym")

    body = (await chat(client, message)).json()

    asked = [(a["name"], a["arguments"].get("task_id")) for a in (body["confirmation"] or {}).get("actions", [])]
    assert await statuses(client) == {"Rent": "pending", "Gym": "pending", "call landlord": "pending"}
    assert len(asked) == 1 and asked[0][0] == "complete_task", body["assistant_message"]


async def test_a_command_that_points_at_the_task_asked_about_still_runs(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("complete_task", {"task_id": "Rent"})), completion("Marked it done."))
    client = await make_client(llm)
    await seed_tasks(client, "Rent", "Gym")

    await chat(client, "did I pay the rent? yes I did, mark it done")

    assert await statuses(client) == {"Rent": "completed", "Gym": "pending"}


@pytest.mark.parametrize(
    ("message", "title"),
    [("did I already pay the rent?", "Rent"), ("¿sigue el dentista en la lista?", "Dentista")],
)
async def test_the_offline_model_answers_with_the_list(make_client: MakeClient, message: str, title: str) -> None:
    client = await make_client(offline=True)  # no key: the rule-based model
    await seed_tasks(client, title, "Gym")

    body = (await chat(client, message)).json()

    assert [c["name"] for c in body["tool_calls"]] == ["list_tasks"]
    assert title in body["assistant_message"], body["assistant_message"]
    assert await statuses(client) == {title: "pending", "Gym": "pending"}
