"""Keeps beside a command: a blind review (2026-12-07) of c1d3475 ("a keep that names its task
says no to it only"), 125 API cases with the scripted compliant model.

c1d3475 ran the commands beside a keep whose words name something: a review found 82 take-backs it
turned into unasked changes, in every language, where what the keep's other words point to was not
read ("delete gym, leave that be", "lösch Gym, behalte sie", "delete gym and yoga, keep them",
"delete gym, keep gym"). Since then the commands beside such a keep are asked about (one yes runs
them), and one about what the keep names is taken back: those groups pass. The controls (section 7)
hold that a plain keep of another task no longer takes the request back: its command is done or
asked about, the kept task never changed.

The strict xfails are older, each with its kind ("OLDER unasked change", "OLDER drop", "OLDER odd
reply").
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, statuses
from support.compliant import Call, calls_on, compliant

TITLES = ("Gym", "Taxes", "Yoga")
DELETE, COMPLETE, ADD = "delete_task", "complete_task", "add_task"


async def _run(
    make_client: MakeClient, message: str, calls: list[Call], titles: tuple[str, ...] = TITLES
) -> tuple[dict[str, str], str]:
    llm, _ = compliant(calls, titles, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *titles)
    body: dict[str, Any] = (await chat(client, message)).json()
    return await statuses(client), str(body["assistant_message"])


def _older(kind: str, why: str) -> Any:
    return pytest.mark.xfail(strict=True, reason=f"OLDER {kind}: {why}")


# -- 1. A take-back whose pointer is in no reference list ("that be", "sie", "ze", "isko"): c1d3475 read
# it as a keep that names something and ran the delete of Gym; it is asked about now.
TAKE_BACKS_OF_IT = [
    "delete gym, leave that be",
    "delete gym, leave that alone",
    "delete gym, leave this one alone",
    "delete gym, keep that one please",
    "delete gym, keep this one please",
    "delete gym, keep those",
    "delete gym, leave things as they are",
    "delete gym, keep things as they are",
    "delete gym, leave everything alone",
    "delete gym, leave my list alone",
    "delete gym, leave my tasks alone",
    "lösch Gym, behalte sie",
    "lösch Gym, behalte sie lieber",
    "lösch Gym, nee behalte sie",
    "lösch Gym, behalte sie bitte",
    "lösch Gym, behalte sie doch lieber",
    "lösch Gym, behalten wir sie",
    "supprime gym, laisse-le tranquille",
    "supprime gym, laisse-la tranquille",
    "supprime gym, non garde-la",
    "supprime gym, garde-la quand même",
    "supprime gym, garde-la pour l'instant",
    "supprime gym, garde celle-là",
    "supprime gym, laisse-la où elle est",
    "cancella gym, lascia così",
    "cancella gym, lascia tutto così",
    "verwijder gym, hou ze",
    "verwijder gym, hou ze allemaal",
    "ta bort gym, behåll den så länge",
    "ta bort gym, behåll den i alla fall",
    "ta bort gym, behåll allt som det är",
    "gym delete kar do, isko rehne do",
    "gym delete kar do, usko rehne do",
    "gym delete kar do, theek hai rehne do",
    "gym delete kar do, filhal rehne do",
    "gym delete kar do, sab kuch rehne do",
    "gym delete kar do, chalo chhodo rehne do",
]


@pytest.mark.parametrize("message", TAKE_BACKS_OF_IT)
async def test_a_take_back_of_it_takes_the_command_back(make_client: MakeClient, message: str) -> None:
    after, reply = await _run(make_client, message, calls_on(DELETE, "Gym"))
    assert "Gym" in after, reply


# -- 2. A keep that names the very task the command names ("delete gym, keep gym"): c1d3475 ran the
# delete; the keep takes that command back now.
KEEPS_OF_THE_COMMANDED_TASK = [
    "delete gym, keep gym",
    "delete gym, keep the gym",
    "delete gym, keep the gym one",
    "delete gym. actually keep gym",
    "delete gym, no keep gym",
    "delete gym, wait keep gym",
    "delete gym, nvm keep gym",
    "delete gym, never mind keep gym",
    "delete gym, on second thought keep gym",
    "delete gym, leave gym alone",
    "delete gym... keep the gym",
    "lösch Gym, behalte Gym",
    "lösch Gym, ach behalte Gym",
    "supprime gym, garde gym",
    "supprime gym, finalement garde gym",
    "supprime gym, laisse gym tranquille",
    "cancella gym, tieni gym",
    "cancella gym, no tieni gym",
    "cancella gym, lascia stare gym",
    "verwijder gym, hou gym",
    "verwijder gym, nee hou gym",
    "ta bort gym, behåll gym",
    "ta bort gym, nej behåll gym",
    "gym delete kar do, gym ko rehne do",
    "gym delete kar do, gym wala rehne do",
    "gym delete kar do, nahi gym rehne do",
]


@pytest.mark.parametrize("message", KEEPS_OF_THE_COMMANDED_TASK)
async def test_a_keep_of_the_commanded_task_keeps_it(make_client: MakeClient, message: str) -> None:
    after, reply = await _run(make_client, message, calls_on(DELETE, "Gym"))
    assert "Gym" in after, reply


# -- 2b. The same with two commanded tasks: c1d3475 changed the kept one too.
KEEP_ONE_OF_THE_COMMANDED = [
    ("delete gym and taxes, keep taxes", DELETE),
    ("delete gym, taxes and yoga, keep taxes", DELETE),
    ("lösch Gym und Taxes, behalte Taxes", DELETE),
    ("supprime gym et taxes, garde taxes", DELETE),
    ("cancella gym e taxes, tieni taxes", DELETE),
    ("verwijder gym en taxes, hou taxes", DELETE),
    ("ta bort gym och taxes, behåll taxes", DELETE),
    ("gym aur taxes delete kar do, taxes ko rehne do", DELETE),
    ("mark gym and taxes done, keep taxes", COMPLETE),
]


@pytest.mark.parametrize(("message", "tool"), KEEP_ONE_OF_THE_COMMANDED)
async def test_a_keep_of_one_commanded_task_leaves_it_as_it_was(
    make_client: MakeClient, message: str, tool: str
) -> None:
    calls = calls_on(tool, "Gym", "Taxes", "Yoga") if "yoga" in message else calls_on(tool, "Gym", "Taxes")
    after, reply = await _run(make_client, message, calls)
    assert after.get("Taxes") == "pending", reply


# -- 3. A keep of "them"/"both" after two commanded tasks: c1d3475 deleted both.
PLURAL_TAKE_BACKS = [
    "delete gym and yoga, keep them",
    "delete gym and yoga, no keep them",
    "delete gym and yoga, actually leave them",
    "delete gym and yoga, leave them alone",
    "delete gym and yoga, keep both",
    "delete gym and yoga, leave both",
    "lösch Gym und Yoga, behalte sie doch",
    "supprime gym et yoga, laisse-les tranquilles",
    "verwijder gym en yoga, hou ze maar",
    "gym aur yoga delete kar do, dono rehne do",
]


@pytest.mark.parametrize("message", PLURAL_TAKE_BACKS)
async def test_a_plural_take_back_keeps_both(make_client: MakeClient, message: str) -> None:
    after, reply = await _run(make_client, message, calls_on(DELETE, "Gym", "Yoga"))
    assert {"Gym", "Yoga"} <= after.keys(), reply


# -- 4. The reply after a keep never offers to change what the user just kept (c1d3475 did).
_OFFER = "the reply asks to delete the task(s) the user just said to keep"


@pytest.mark.parametrize(
    ("message", "calls", "kept"),
    [
        ("delete gym, keep the others", calls_on(DELETE, *TITLES), "Taxes"),
        ("delete gym, leave the rest", calls_on(DELETE, *TITLES), "Taxes"),
        ("delete gym but leave everything else", calls_on(DELETE, *TITLES), "Taxes"),
        ("lösch Gym, behalte den Rest", calls_on(DELETE, *TITLES), "Taxes"),
        ("supprime gym, garde le reste", calls_on(DELETE, *TITLES), "Taxes"),
        ("delete gym, keep the last one", calls_on(DELETE, "Gym", "Yoga"), "Yoga"),
        ("delete gym, keep number 3", calls_on(DELETE, "Gym", "Yoga"), "Yoga"),
        pytest.param(
            "borra gym pero deja taxes", calls_on(DELETE, "Gym", "Taxes"), "Taxes", marks=_older("odd reply", _OFFER)
        ),
        ("cancella gym, ma tieni taxes", calls_on(DELETE, "Gym", "Taxes"), "Taxes"),  # "ma" cuts the clause
    ],
)
async def test_the_reply_never_offers_to_change_what_was_kept(
    make_client: MakeClient, message: str, calls: list[Call], kept: str
) -> None:
    after, reply = await _run(make_client, message, calls)
    assert kept in after and kept not in reply, reply


# -- 5. Older unasked changes around keep words (the same on a94b46b and c1d3475).
_OLD_ITEM = "the keep clause is read as one more item of the delete (or joined into its object), so its task is deleted"
_GYM_KEPT = [  # the model deletes Gym only
    "lösch Gym, lass Gym",
    "lösch Gym, die behalte ich",
    "lösch Gym, ich behalte sie doch",
    "verwijder gym, laat gym maar",
    "verwijder gym, bewaar hem",
    "borra gym, déjala por ahora",
    "borra gym, mantén gym",
    "apaga gym, deixa ela aí",
    "apaga gym, mantém gym",
    "delete gym, skip it",
    "delete gym, spare it",
    "delete gym, hang on to it",
    "delete gym, eh just leave it",
    "gym delete kar do, isay rakh lo",
    "gym delete kar do, rehne do filhal",
]
_OLDER_ITEM = _older("unasked change", _OLD_ITEM)


@pytest.mark.parametrize(
    ("message", "calls", "kept"),
    [
        ("ta bort gym men behåll taxes", calls_on(DELETE, "Gym", "Taxes"), "Taxes"),  # "men" cuts before a keep now
        *(pytest.param(m, calls_on(DELETE, "Gym"), "Gym", marks=_OLDER_ITEM) for m in _GYM_KEPT),
    ],
)
async def test_older_keeps_that_do_not_keep(
    make_client: MakeClient, message: str, calls: list[Call], kept: str
) -> None:
    after, reply = await _run(make_client, message, calls)
    assert kept in after, reply


# -- 6. Plain requests still refused or dropped beside a keep of a named task (same on both commits,
# except where noted): the change's keep words do not cover these wordings or titles.
_OLD_DROP = (
    "a keep of a named task still takes the whole request back"
    " (pointer word 'it' in the rest, or a keep phrase the keep words miss)"
)
_TITLE = (
    "a title opening with a keep word is read as a keep: its command is dropped"
    " (on a94b46b the whole message was; c1d3475 drops it silently)"
)


_REFUSED = [  # the model deletes Gym only; Taxes and Yoga stay
    "delete gym but leave taxes on the list",
    "lösch Gym, behalte aber Taxes",
]
_CLOSED = [  # since a keep's closing word is not its words (`keep_after`, 2026-12-07): done
    "delete gym, leave taxes as it is",
    "lösch Gym, lass Taxes stehen",
    "lösch Gym, lass Taxes in Ruhe",
    "verwijder gym, laat taxes staan",
    "ta bort gym, låt taxes vara",
]
_OLDER_DROP = _older("drop", _OLD_DROP)


@pytest.mark.parametrize(
    ("message", "titles", "calls", "done"),
    [
        *(pytest.param(m, TITLES, calls_on(DELETE, "Gym"), {"Taxes", "Yoga"}, marks=_OLDER_DROP) for m in _REFUSED),
        *(pytest.param(m, TITLES, calls_on(DELETE, "Gym"), {"Taxes", "Yoga"}) for m in _CLOSED),
        pytest.param(
            "delete gym and leave for airport",
            ("Gym", "Leave for airport", "Taxes"),
            calls_on(DELETE, "Gym", "Leave for airport"),
            {"Taxes"},
            marks=_older("drop", _TITLE),
        ),
        pytest.param(
            "delete gym and keep receipts",
            ("Gym", "Keep receipts", "Taxes"),
            calls_on(DELETE, "Gym", "Keep receipts"),
            {"Taxes"},
            marks=_older("drop", _TITLE),
        ),
    ],
)
async def test_what_was_plainly_asked_is_done(
    make_client: MakeClient, message: str, titles: tuple[str, ...], calls: list[Call], done: set[str]
) -> None:
    after, reply = await _run(make_client, message, calls, titles)
    assert set(after) == done, reply


@pytest.mark.parametrize(
    "message",
    [
        pytest.param("mark gym and leave for airport done", marks=_older("drop", _TITLE)),
        pytest.param("complete gym and leave for airport", marks=_older("drop", _TITLE)),
    ],
)
async def test_a_title_with_a_keep_word_is_completed(make_client: MakeClient, message: str) -> None:
    titles = ("Gym", "Leave for airport", "Taxes")
    after, reply = await _run(make_client, message, calls_on(COMPLETE, "Gym", "Leave for airport"), titles)
    assert after["Leave for airport"] == "completed" or "Leave for airport" in reply, reply


@pytest.mark.parametrize(
    "message",
    [
        pytest.param(
            "add gym tomorrow, keep it high priority",
            marks=_older("drop", "'keep it …' after an add takes the add back"),
        ),
    ],
)
async def test_a_keep_of_a_detail_of_an_add_keeps_the_add(make_client: MakeClient, message: str) -> None:
    llm, _ = compliant([(ADD, {"title": "Gym", "priority": "high"})], ("Yoga",), after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, "Yoga")
    body = (await chat(client, message)).json()
    assert "Gym" in await statuses(client), body["assistant_message"]


# -- 7. Controls: a94b46b refused them (the help text); the command is done or asked about now.
@pytest.mark.parametrize(
    "message",
    [
        "delete gym, keep calm",
        "delete gym, keep me posted",
        "delete gym bag, keep gym class",
        "delete gym, leave taxes alone",
        "supprime gym mais laisse taxes",
        "gym delete kar do, lekin taxes ko rehne do",
    ],
)
async def test_controls_the_change_fixes(make_client: MakeClient, message: str) -> None:
    titles = ("Gym bag", "Gym class", "Yoga") if "bag" in message else TITLES
    first, second = titles[0], titles[1]
    after, reply = await _run(make_client, message, calls_on(DELETE, first, second), titles)
    assert second in after, reply
    assert first not in after or f"“{first}”" in reply.splitlines()[-1], reply
