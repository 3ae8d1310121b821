"""Never act on a misreading (issue 47): the reader's reading of a message is a signal, never the
verdict. A model that is right is never overruled into a change, a call it made is never replaced, a
right argument is never rewritten, every change that ran is said, a listing says what it shows, values
nobody gave are not stored, and a claim about another task is caught as data. In many wordings and
languages; these are this project's own cases (the held-out set `tests/heldout/misread/` is apart)."""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.fake_llm import NO_CLAIMS, ScriptedLLM, calls, completion, declares

from backend.app.language.catalog import texts

TASKS = ("Gym", "Taxes", "Report", "Old photos")


def forced(llm: ScriptedLLM) -> list[str]:
    """The tools forced on the model (the reply check aside)."""
    return [
        c["function"]["name"]
        for r in llm.requests
        if isinstance(c := r.get("tool_choice"), dict) and c["function"]["name"] != "check_reply"
    ]


async def state(client: Any) -> dict[str, tuple[str, str, str | None, list[str]]]:
    return {t["title"]: (t["status"], t["priority"], t["due_date"], t["tags"]) for t in await tasks_of(client)}


# -- a right model that answers in words is never overruled ----------------------------------------
# Messages a word list can read as commands: a verb in another sense, reported speech, opinions and
# hypotheticals in verb-first order, questions with verbs; in eight languages.
WORDS_ONLY = [
    ("en", "mark's birthday party needs a cake"),
    ("en", "finish line photos need sorting, no rush"),
    ("en", "delete it all and start over, I sometimes think"),
    ("en", "my boss said delete the report task, can you believe it"),
    ("en", "can I delete a task from the page?"),
    ("es", "borrar todo y empezar de cero, a veces lo pienso"),
    ("es", "mi jefe dijo: borra la tarea del informe"),
    ("es", "¿se puede borrar una tarea desde la página?"),
    ("fr", "supprime tout et recommence, je me dis parfois"),
    ("fr", "ma cheffe a dit supprime la tâche rapport"),
    ("de", "lösch alles und fang neu an, denke ich manchmal"),
    ("de", "mein Chef meinte: lösch die Aufgabe Bericht"),
    ("pt", "apaga tudo e começa de novo, às vezes penso"),
    ("it", "cancella tutto e ricomincia, a volte ci penso"),
    ("nl", "verwijder alles en begin opnieuw, denk ik soms"),
    ("sv", "ta bort allt och börja om, tänker jag ibland"),
    ("ur", "sab delete kar ke naye sire se shuru karun, kabhi kabhi sochta hoon"),
]


@pytest.mark.parametrize(("lang", "message"), WORDS_ONLY, ids=[m for _, m in WORDS_ONLY])
async def test_a_model_that_answers_in_words_is_never_forced_into_a_change(
    make_client: MakeClient, lang: str, message: str
) -> None:
    llm = ScriptedLLM(default=completion("I hear you. Anything I should do on your list?"), checker=NO_CLAIMS)
    client = await make_client(llm)
    await seed_tasks(client, *TASKS)
    before = await state(client)

    body = (await chat(client, message)).json()

    assert await state(client) == before
    assert forced(llm) == [], body["execution_metadata"]["guard"]
    assert body["confirmation"] is None and body["tool_calls"] == []
    assert "I hear you" in body["assistant_message"]


@pytest.mark.parametrize(
    ("message", "call", "after"),
    [
        (
            "set the finish report task to high priority",
            {"task_id": "Finish report", "priority": "high"},
            "Finish report",
        ),
        (
            "pon terminar informe con prioridad alta",
            {"task_id": "Terminar informe", "priority": "high"},
            "Terminar informe",
        ),
        (
            "setz Bericht fertigstellen auf hohe Priorität",
            {"task_id": "Bericht fertigstellen", "priority": "high"},
            "Bericht fertigstellen",
        ),
        (
            "rename 'Delete old emails' to 'Sort old emails'",
            {"task_id": "Delete old emails", "title": "Sort old emails"},
            "Sort old emails",
        ),
    ],
)
async def test_a_right_edit_is_never_overruled_into_another_change(
    make_client: MakeClient, message: str, call: dict[str, Any], after: str
) -> None:
    llm = ScriptedLLM(calls(("update_task", call)), default=completion("Updated."), checker=NO_CLAIMS)
    client = await make_client(llm)
    titles = ("Finish report", "Terminar informe", "Bericht fertigstellen", "Delete old emails")
    await seed_tasks(client, *titles)

    body = (await chat(client, message)).json()

    tasks = {t["title"]: t for t in await tasks_of(client)}
    assert forced(llm) == [] and [c["name"] for c in body["tool_calls"]] == ["update_task"], body["assistant_message"]
    assert all(t["status"] == "pending" for t in tasks.values()), tasks
    assert len(tasks) == len(titles) and after in tasks
    if "priority" in call:
        assert tasks[after]["priority"] == "high"


# -- a pasted list: each item added whole, whatever verb it begins with -----------------------------
PASTED = [
    "add these:\n- call mom\n- delete old photos from phone\n- finish the tax form\n- buy milk",
    "añade esto:\n1. llamar a mamá\n2. borrar fotos viejas del móvil\n3. terminar el formulario\n4. comprar leche",
    "ajoute : appeler maman, supprimer les vieilles photos, finir le formulaire, acheter du lait",
    "füg hinzu:\n* Mama anrufen\n* alte Fotos löschen\n* Steuerformular fertig machen\n* Milch kaufen",
]


@pytest.mark.parametrize("message", PASTED)
async def test_a_pasted_list_adds_every_item_as_the_model_titled_it(make_client: MakeClient, message: str) -> None:
    items = [line.strip(" -*1234.").strip() for line in message.replace(",", "\n").splitlines()[1:] if line.strip()]
    if len(items) < 4:  # one line: the items after the colon
        items = [i.strip() for i in message.split(":", 1)[1].split(",")]
    llm = ScriptedLLM(calls(*(("add_task", {"title": i}) for i in items)), default=completion("All added."))
    client = await make_client(llm)

    body = (await chat(client, message)).json()

    assert sorted(t["title"] for t in await tasks_of(client)) == sorted(items), body["assistant_message"]
    assert forced(llm) == [] and all("repaired" not in c["result"]["data"] for c in body["tool_calls"])


# -- every change that ran is said ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("delete gym", "Shall I delete Gym?"),
        ("borra gym", "¿Quieres que borre Gym?"),
        ("lösche gym", "Soll ich Gym löschen?"),
        ("delete gym", "Done!"),
    ],
)
@pytest.mark.parametrize("reply_check", ["model", "lists"])
async def test_a_change_that_ran_is_said_whatever_the_words(
    make_client: MakeClient, message: str, words: str, reply_check: str
) -> None:
    llm = ScriptedLLM(calls(("delete_task", {"task_id": "Gym"})), completion(words), checker=NO_CLAIMS)
    client = await make_client(llm, response_mode="model", reply_check=reply_check)
    await seed_tasks(client, *TASKS)

    body = (await chat(client, message)).json()

    assert "Gym" not in await state(client)
    t = texts(body["execution_metadata"]["language"]["code"])
    assert t("Deleted: “{title}”", title="Gym") in body["assistant_message"], body["assistant_message"]


# -- a listing says what it shows -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("message", "filters"),
    [
        ("what's on my list?", {"query": "groceries"}),
        ("what do I still have to do?", {"tag": "work"}),
        ("show me everything", {"priority": "high"}),
        ("¿qué me queda por hacer?", {"status": "completed"}),
        ("zeig mir alles", {"due_before": "2026-11-23"}),
    ],
)
async def test_a_filter_nobody_asked_for_is_not_applied_and_the_list_is_shown(
    make_client: MakeClient, message: str, filters: dict[str, Any]
) -> None:
    llm = ScriptedLLM(calls(("list_tasks", filters)), default=completion("You have no tasks."))
    client = await make_client(llm)
    await seed_tasks(client, *TASKS)

    body = (await chat(client, message)).json()

    reply = body["assistant_message"]
    assert all(title in reply for title in TASKS), reply
    result = body["tool_calls"][0]["result"]
    assert [d["argument"] for d in result["dropped"]] == list(filters)


async def test_a_filter_the_user_asked_for_is_applied_and_said(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("list_tasks", {"priority": "high"})), default=completion("?"))
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes")

    body = (await chat(client, "what's high priority?")).json()

    assert body["assistant_message"] == "No tasks match: high priority."
    llm.push(calls(("list_tasks", {})))
    assert (await chat(client, "what's on my list?", user="bob")).json()["assistant_message"] == "You have no tasks."


# -- values nobody gave are not stored ------------------------------------------------------------
@pytest.mark.parametrize(
    ("message", "noise", "kept"),
    [
        ("add buy milk", {"tags": ["items", "maxItems"], "priority": "high", "due_date": "2027-01-15"}, {}),
        ("añade comprar leche", {"tags": ["type"], "priority": "low"}, {}),
        ("add buy milk, it's urgent", {"tags": ["string"], "priority": "high"}, {"priority": "high"}),
        (
            "add buy milk for friday, tag it shopping",
            {"tags": ["shopping", "items"], "due_date": "2026-11-27"},
            {"tags": ["shopping"], "due_date": "2026-11-27"},
        ),
    ],
)
async def test_a_value_nobody_gave_is_not_stored_and_the_result_says_so(
    make_client: MakeClient, message: str, noise: dict[str, Any], kept: dict[str, Any]
) -> None:
    title = "buy milk" if "buy" in message else "comprar leche"
    llm = ScriptedLLM(calls(("add_task", {"title": title, **noise})), default=completion("Added."))
    client = await make_client(llm)

    body = (await chat(client, message)).json()

    [task] = await tasks_of(client)
    expected = {"priority": "medium", "due_date": None, "tags": []} | kept
    assert {k: task[k] for k in expected} == expected
    dropped = body["tool_calls"][0]["result"]["dropped"]
    assert {d["argument"] for d in dropped} == {k for k in noise if k not in kept or noise[k] != kept[k]}


# (message, the model's edit, the task after it, whether the completion is dropped): an edit that
# also marks its task done where the user said no to that ("don't complete gym, rename it …" completed
# it, found on 2026-12-06); elsewhere the done state is the model's, which reads words no list reads
# ("… and close it", "ya la hice": a review found those dropped when every done state nobody gave was)
EDITS = [
    ("don't complete gym, rename it to Gym class", {"title": "Gym class"}, ("Gym class", "pending", "medium"), True),
    (
        "no completes gym, cámbiale el nombre a Gym class",
        {"title": "Gym class"},
        ("Gym class", "pending", "medium"),
        True,
    ),
    ("hak Gym nicht ab, benenne es in Gym Kurs um", {"title": "Gym Kurs"}, ("Gym Kurs", "pending", "medium"), True),
    (
        "ne marque pas gym comme fait, renomme-le en Gym cours",
        {"title": "Gym cours"},
        ("Gym cours", "pending", "medium"),
        True,
    ),
    ("mark gym as done", {}, ("Gym", "completed", "medium"), False),
    ("setz Gym auf hohe Priorität und hak es ab", {"priority": "high"}, ("Gym", "completed", "high"), False),
    ("set gym to high and mark it done", {"priority": "high"}, ("Gym", "completed", "high"), False),
    ("rename gym to Gym class and close it", {"title": "Gym class"}, ("Gym class", "completed", "medium"), False),
    ("rename gym to Gym class, I did it already", {"title": "Gym class"}, ("Gym class", "completed", "medium"), False),
    ("cambia gym a Gym class, ya la hice", {"title": "Gym class"}, ("Gym class", "completed", "medium"), False),
    (
        "benenne Gym in Gym Kurs um, war ich heute schon",
        {"title": "Gym Kurs"},
        ("Gym Kurs", "completed", "medium"),
        False,
    ),
]


@pytest.mark.parametrize(("message", "edit", "after", "dropped"), EDITS)
async def test_an_edit_marks_its_task_done_only_where_the_user_asks(
    make_client: MakeClient, message: str, edit: dict[str, Any], after: tuple[str, str, str], dropped: bool
) -> None:
    update = ("update_task", {"task_id": "Gym", **edit, "status": "completed"})
    llm = ScriptedLLM(calls(update), default=completion("Done."))
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes")

    body = (await chat(client, message)).json()

    tasks = {t["title"]: (t["title"], t["status"], t["priority"]) for t in await tasks_of(client)}
    assert tasks[after[0]] == after, body["assistant_message"]
    said = {d["argument"] for d in body["tool_calls"][0]["result"].get("dropped", [])}
    assert ("status" in said) is dropped


@pytest.mark.parametrize(
    ("message", "edit", "dropped"),
    [
        (
            "setz Gym nicht auf hohe Priorität, benenne es in Gym Kurs um",
            {"title": "Gym Kurs", "priority": "high"},
            "priority",
        ),
        ("don't set gym to high, rename it to Gym class", {"title": "Gym class", "priority": "high"}, "priority"),
        (
            "don't move gym to friday, rename it to Gym class",
            {"title": "Gym class", "due_date": "2030-01-04"},
            "due_date",
        ),
    ],
)
async def test_a_value_only_a_no_gives_is_not_stored(
    make_client: MakeClient, message: str, edit: dict[str, Any], dropped: str
) -> None:
    # found by review: the words of a no gave the value the user said no to
    llm = ScriptedLLM(calls(("update_task", {"task_id": "Gym", **edit})), default=completion("Done."))
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes")

    body = (await chat(client, message)).json()

    assert {d["argument"] for d in body["tool_calls"][0]["result"].get("dropped", [])} == {dropped}, body


# -- a claim about another task is caught as data, in either check mode ----------------------------
CLAIMS_ELSEWHERE = [
    ("delete taxes", "I deleted Gym."),
    ("borra taxes", "He borrado Gym."),
    ("supprime taxes", "J'ai supprimé Gym."),
    ("lösche taxes", "Ich habe Gym gelöscht."),
    ("apague taxes", "Apaguei Gym."),
    ("cancella taxes", "Ho cancellato Gym."),
    ("verwijder taxes", "Ik heb Gym verwijderd."),
]


@pytest.mark.parametrize(("message", "claim"), CLAIMS_ELSEWHERE)
@pytest.mark.parametrize("reply_check", ["lists", "model"])
async def test_words_claiming_a_change_on_a_task_no_call_touched_are_not_shown(
    make_client: MakeClient, message: str, claim: str, reply_check: str
) -> None:
    llm = ScriptedLLM(calls(("delete_task", {"task_id": "Taxes"})), completion(claim), checker=declares(("delete", "")))
    client = await make_client(llm, response_mode="model", reply_check=reply_check)
    await seed_tasks(client, *TASKS)

    body = (await chat(client, message)).json()

    assert "Taxes" not in await state(client) and "Gym" in await state(client)
    assert claim not in body["assistant_message"], body["assistant_message"]
    assert body["execution_metadata"]["reply"]["replaced"][0]["reason"] == "unbacked_claim"
