"""Items that say more than their title: a blind review (2026-12-07) of 1325f58 ("an item that says
more than its title is asked about, never changed"), 156 cases in nine languages.

Each case: a message, the change the scripted compliant model makes (`calls_on(tool, *called)`),
and what a user plainly meant. KEEP: the task the item says more of must stay as it was (a question
about it is fine). RUN: every named task is changed and nothing is asked.

What the review found that 1325f58 broke is mended (those cases pass): a word for "too" or "the
same" no list held ("ebenfalls", "igual", "same for", "bhi"), a word of thanks made singular
("thanks"), fillers of several words ("while you're at it", "de paso"), "the taxes one", "item
number 3". So are older keeps it found: words that are a filler elsewhere say more beside a title
("taxes ok", "taxes bien", "Taxes gut so"), as does any word of no ("taxes no"). The strict xfails are
open, each marked with its kind. Urdu "taxes ko rehne do" took the whole request back (older):
a keep that names its task says no to it only now (test_keep_names.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, statuses
from support.compliant import calls_on, compliant

TITLES = ("Gym", "Taxes", "Yoga", "Item 3")
DELETE, DONE = "delete_task", "complete_task"

# Open (strict xfails):
# a plain item asked about since 1325f58: "the old taxes one", "the 🧺 one", "pendant que tu y es"
ASKED_NEW = pytest.mark.xfail(strict=True, reason="since 1325f58: a plain item is asked about, not run")
# older: asked about before 1325f58 too ("taxes from my list", "items 3-5", "Item Nr. 3")
ASKED_OLDER = pytest.mark.xfail(strict=True, reason="older: a plain item is asked about (before 1325f58 too)")
# older, not held: a task the user keeps is changed (the item's extra words are title fillers of
# another language, "as is"; Italian "è" folds to "e", "and"; Dutch "en" and Swedish "och" do not
# split the item off; the item is in parentheses; "and" splits off an item before a shared "stay")
MISSED_OLDER = pytest.mark.xfail(strict=True, reason="older, not held: the kept task is changed")
# arguable: a completion or delete of a task the item puts in the future ("taxes tomorrow", "taxes next")
ARGUABLE_OLDER = pytest.mark.xfail(strict=True, reason="arguable, older: a change of a task put off runs")
ARGUABLE_NEW = pytest.mark.xfail(strict=True, reason="arguable, since 1325f58: asked about")
# older: the model deletes only Gym, as asked, and the reply says 'Not done: “taxes can stay”. Please ask again.'
NOT_DONE_OLDER = pytest.mark.xfail(strict=True, reason="older: a kept item is reported 'Not done'")


async def _run(
    make_client: MakeClient, message: str, tool: str, called: tuple[str, ...], titles: tuple[str, ...]
) -> tuple[dict[str, str], dict[str, Any]]:
    llm, _ = compliant([calls_on(tool, *called)], titles, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *titles)
    body = (await chat(client, message)).json()
    left = await statuses(client)
    return left, body


def _changed(left: dict[str, str], tool: str, title: str) -> bool:
    return (title not in left) if tool == DELETE else left.get(title) == "completed"


# (message, the change, the task the user keeps): the model changes Gym and it; it must stay
KEEP = [
    # en: the extra words are all fillers or title fillers ("is" is Urdu's "this", "ok" a filler)
    ("delete gym, taxes is ok", DELETE, "Taxes"),
    ("delete gym, taxes ok", DELETE, "Taxes"),
    ("delete gym, taxes is alright", DELETE, "Taxes"),
    pytest.param("delete gym, taxes is for next week", DELETE, "Taxes", marks=ARGUABLE_OLDER),
    pytest.param("mark gym done, taxes is for tomorrow", DONE, "Taxes", marks=ARGUABLE_OLDER),
    pytest.param("mark gym done, taxes tomorrow", DONE, "Taxes", marks=ARGUABLE_OLDER),
    # en: other shapes of the same item
    ("delete gym and taxes can stay", DELETE, "Taxes"),
    ("delete gym. taxes can stay", DELETE, "Taxes"),
    ("delete gym; taxes can stay", DELETE, "Taxes"),
    ("delete gym - taxes can stay", DELETE, "Taxes"),
    pytest.param("delete gym (taxes can stay)", DELETE, "Taxes", marks=MISSED_OLDER),
    ("delete gym, but taxes can stay", DELETE, "Taxes"),
    ("taxes can stay, delete gym", DELETE, "Taxes"),
    ("delete gym, taxs can stay", DELETE, "Taxes"),
    ("delete gym, taxes no", DELETE, "Taxes"),
    ("delete gym, taxes nope", DELETE, "Taxes"),
    # de
    ("lösch Gym, Taxes gut so", DELETE, "Taxes"),
    ("lösch Gym, Taxes ok", DELETE, "Taxes"),
    ("lösch Gym und Taxes bleibt", DELETE, "Taxes"),
    ("lösch Gym. Taxes bleibt.", DELETE, "Taxes"),
    pytest.param("hak Gym ab, Taxes für morgen", DONE, "Taxes", marks=ARGUABLE_OLDER),
    # es
    ("borra gym, taxes está bien", DELETE, "Taxes"),
    ("borra gym, taxes bien", DELETE, "Taxes"),
    ("borra gym y taxes se queda", DELETE, "Taxes"),
    pytest.param("marca gym como hecho, taxes para mañana", DONE, "Taxes", marks=ARGUABLE_OLDER),
    # fr
    ("supprime gym, taxes ok", DELETE, "Taxes"),
    ("supprime gym, taxes c'est bon", DELETE, "Taxes"),
    ("supprime gym et taxes reste", DELETE, "Taxes"),
    pytest.param("marque gym comme fait, taxes pour demain", DONE, "Taxes", marks=ARGUABLE_OLDER),
    # it
    ("cancella gym, taxes va bene", DELETE, "Taxes"),
    pytest.param("cancella gym, taxes è ok", DELETE, "Taxes", marks=MISSED_OLDER),
    ("cancella gym e taxes resta", DELETE, "Taxes"),
    pytest.param("segna gym come fatto, taxes per domani", DONE, "Taxes", marks=ARGUABLE_OLDER),
    # pt
    ("apaga gym, taxes tá bom", DELETE, "Taxes"),
    ("apaga gym, taxes tá ok", DELETE, "Taxes"),
    ("apaga gym e taxes fica", DELETE, "Taxes"),
    pytest.param("marca gym como feito, taxes pra amanhã", DONE, "Taxes", marks=ARGUABLE_OLDER),
    # nl
    ("verwijder gym, taxes goed zo", DELETE, "Taxes"),
    ("verwijder gym, taxes is prima", DELETE, "Taxes"),
    pytest.param("verwijder gym en taxes blijft", DELETE, "Taxes", marks=MISSED_OLDER),
    pytest.param("vink gym af, taxes voor morgen", DONE, "Taxes", marks=ARGUABLE_OLDER),
    # sv
    ("ta bort gym, taxes ok", DELETE, "Taxes"),
    ("ta bort gym, taxes bra", DELETE, "Taxes"),
    pytest.param("ta bort gym och taxes får stanna", DELETE, "Taxes", marks=MISSED_OLDER),
    pytest.param("bocka av gym, taxes i morgon", DONE, "Taxes", marks=ARGUABLE_OLDER),
    # ur
    ("gym delete kar do, taxes theek hai", DELETE, "Taxes"),
    ("gym delete kar do, taxes ko rehne do", DELETE, "Taxes"),
    ("gym delete kar do aur taxes rehne do", DELETE, "Taxes"),
    # second batch: more keeps whose words are all fillers, title fillers or modifiers
    pytest.param("delete gym, taxes as is", DELETE, "Taxes", marks=MISSED_OLDER),
    ("delete gym, taxes ok as is", DELETE, "Taxes"),
    ("delete gym and taxes ok", DELETE, "Taxes"),
    ("Delete gym. Taxes is ok.", DELETE, "Taxes"),
    ("borra gym, taxes no", DELETE, "Taxes"),
    ("lösch Gym, Taxes ok so", DELETE, "Taxes"),
    ("apaga gym, taxes tá certo", DELETE, "Taxes"),
    ("apaga gym, taxes está bom", DELETE, "Taxes"),
    ("cancella gym, taxes bene", DELETE, "Taxes"),
    pytest.param("cancella gym, taxes è perfetto", DELETE, "Taxes", marks=MISSED_OLDER),
    ("supprime gym, taxes bien", DELETE, "Taxes"),
    ("verwijder gym, taxes is goed", DELETE, "Taxes"),
    ("ta bort gym, taxes bra så", DELETE, "Taxes"),
    ("gym delete karo, taxes ok", DELETE, "Taxes"),
    # the model's call on the kept task runs; an item's wrong split ("and") is below, test_keep_some
    pytest.param("mark gym done, taxes next", DONE, "Taxes", marks=ARGUABLE_OLDER),
    ("mark gym done, now taxes", DONE, "Taxes"),
    pytest.param("hak Gym ab, als nächstes Taxes", DONE, "Taxes", marks=ARGUABLE_OLDER),
    pytest.param("delete gym, taxes tomorrow", DELETE, "Taxes", marks=ARGUABLE_OLDER),
    ("gym delete kar do, taxes nahi", DELETE, "Taxes"),
]


@pytest.mark.parametrize(("message", "tool", "kept"), KEEP)
async def test_keep(make_client: MakeClient, message: str, tool: str, kept: str) -> None:
    left, body = await _run(make_client, message, tool, ("Gym", kept), TITLES)
    assert left.get(kept) == "pending", body["assistant_message"]
    # Gym is changed, or asked about where the item is a keep ("taxes ko rehne do": test_keep_names.py)
    asked = "“Gym”" in body["assistant_message"].splitlines()[-1] and body["confirmation"] is not None
    assert _changed(left, tool, "Gym") or asked, body["assistant_message"]


# (message, the change, the tasks it names, the user's tasks): all run, nothing asked
NUMBERED = ("Gym", "Taxes", "Item 3", "Item 4", "Item 5")
RUN = [
    # en
    pytest.param("delete gym, taxes from my list", DELETE, ("Gym", "Taxes"), TITLES, marks=ASKED_OLDER),
    ("delete gym, same for taxes", DELETE, ("Gym", "Taxes"), TITLES),
    ("delete gym, same with taxes", DELETE, ("Gym", "Taxes"), TITLES),
    ("delete gym, plus taxes", DELETE, ("Gym", "Taxes"), TITLES),
    ("delete gym, taxes aswell", DELETE, ("Gym", "Taxes"), TITLES),
    pytest.param("delete gym, the old taxes one", DELETE, ("Gym", "Taxes"), TITLES, marks=ASKED_NEW),
    ("delete gym, the taxes one", DELETE, ("Gym", "Taxes"), TITLES),
    ("delete gym, taxes and yoga", DELETE, ("Gym", "Taxes", "Yoga"), TITLES),
    ("delete gym, taxes & yoga", DELETE, ("Gym", "Taxes", "Yoga"), TITLES),
    ("delete gym, taxes as well as yoga", DELETE, ("Gym", "Taxes", "Yoga"), TITLES),
    ("delete gym, taxes thx", DELETE, ("Gym", "Taxes"), TITLES),
    ("delete gym, taxes while you're at it", DELETE, ("Gym", "Taxes"), TITLES),
    ("delete gym, taxes as well pls", DELETE, ("Gym", "Taxes"), TITLES),
    pytest.param(
        "delete gym, items 3 through 5", DELETE, ("Gym", "Item 3", "Item 4", "Item 5"), NUMBERED, marks=ASKED_OLDER
    ),
    ("delete gym, item 3 and item 4", DELETE, ("Gym", "Item 3", "Item 4"), NUMBERED),
    ("delete gym, call mom today", DELETE, ("Gym", "Call mom"), ("Gym", "Call mom", "Taxes")),
    ("delete gym, taxes 😊", DELETE, ("Gym", "Taxes"), TITLES),
    pytest.param("delete gym, the 🧺 one", DELETE, ("Gym", "🧺"), ("Gym", "🧺", "Taxes"), marks=ASKED_NEW),
    ("complete gym, taxes also done", DONE, ("Gym", "Taxes"), TITLES),
    pytest.param("mark gym done, taxes finished as well", DONE, ("Gym", "Taxes"), TITLES, marks=ASKED_OLDER),
    ("mark gym done, same for taxes", DONE, ("Gym", "Taxes"), TITLES),
    # de
    ("lösch Gym, Taxes gleich mit", DELETE, ("Gym", "Taxes"), TITLES),
    ("lösch Gym, Taxes ebenfalls", DELETE, ("Gym", "Taxes"), TITLES),
    ("lösch Gym, dasselbe für Taxes", DELETE, ("Gym", "Taxes"), TITLES),
    ("lösch Gym, Taxes genauso", DELETE, ("Gym", "Taxes"), TITLES),
    ("lösch Gym, Taxes und Yoga", DELETE, ("Gym", "Taxes", "Yoga"), TITLES),
    ("hak Gym ab, Taxes ebenfalls", DONE, ("Gym", "Taxes"), TITLES),
    # es
    ("borra gym, taxes igual", DELETE, ("Gym", "Taxes"), TITLES),
    ("borra gym, lo mismo con taxes", DELETE, ("Gym", "Taxes"), TITLES),
    ("borra gym y también taxes", DELETE, ("Gym", "Taxes"), TITLES),
    ("borra gym, taxes y yoga", DELETE, ("Gym", "Taxes", "Yoga"), TITLES),
    ("borra gym, taxes igualmente", DELETE, ("Gym", "Taxes"), TITLES),
    # fr
    ("supprime gym, taxes également", DELETE, ("Gym", "Taxes"), TITLES),
    ("supprime gym, pareil pour taxes", DELETE, ("Gym", "Taxes"), TITLES),
    ("supprime gym, taxes et yoga", DELETE, ("Gym", "Taxes", "Yoga"), TITLES),
    # it
    ("cancella gym, stessa cosa per taxes", DELETE, ("Gym", "Taxes"), TITLES),
    ("cancella gym, taxes e yoga", DELETE, ("Gym", "Taxes", "Yoga"), TITLES),
    ("cancella gym, taxes dalla lista", DELETE, ("Gym", "Taxes"), TITLES),
    # pt
    ("apaga gym, taxes igualmente", DELETE, ("Gym", "Taxes"), TITLES),
    ("apaga gym, o mesmo para taxes", DELETE, ("Gym", "Taxes"), TITLES),
    # nl
    ("verwijder gym, hetzelfde voor taxes", DELETE, ("Gym", "Taxes"), TITLES),
    ("verwijder gym, taxes eveneens", DELETE, ("Gym", "Taxes"), TITLES),
    # sv
    ("ta bort gym, samma med taxes", DELETE, ("Gym", "Taxes"), TITLES),
    ("ta bort gym, taxes likaså", DELETE, ("Gym", "Taxes"), TITLES),
    # ur
    ("gym delete kar do, taxes bhi", DELETE, ("Gym", "Taxes"), TITLES),
    ("gym ko delete karo, taxes ko bhi", DELETE, ("Gym", "Taxes"), TITLES),
    ("gym delete kar do aur taxes bhi", DELETE, ("Gym", "Taxes"), TITLES),
    # second batch: a word of thanks (singular after normalizing), a filler of several words
    ("delete gym, taxes too thanks", DELETE, ("Gym", "Taxes"), TITLES),
    ("borra gym, taxes también gracias", DELETE, ("Gym", "Taxes"), TITLES),
    ("borra gym, y de paso taxes", DELETE, ("Gym", "Taxes"), TITLES),
    ("cancella gym, taxes già che ci sei", DELETE, ("Gym", "Taxes"), TITLES),
    pytest.param("supprime gym, taxes pendant que tu y es", DELETE, ("Gym", "Taxes"), TITLES, marks=ASKED_NEW),
    ("delete gym, and taxes by the way", DELETE, ("Gym", "Taxes"), TITLES),
    ("delete gym, the call mom one", DELETE, ("Gym", "Call mom"), ("Gym", "Call mom", "Taxes")),
    pytest.param(
        "delete gym, items 3 to 5", DELETE, ("Gym", "Item 3", "Item 4", "Item 5"), NUMBERED, marks=ASKED_OLDER
    ),
    pytest.param("delete gym, items 3-5", DELETE, ("Gym", "Item 3", "Item 4", "Item 5"), NUMBERED, marks=ASKED_OLDER),
    ("mark gym done, taxes too thanks", DONE, ("Gym", "Taxes"), TITLES),
    # third batch: a numbered title said with a word for "number"
    ("delete gym, item number 3", DELETE, ("Gym", "Item 3"), TITLES),
    ("borra gym, el item número 3", DELETE, ("Gym", "Item 3"), TITLES),
    pytest.param("lösch Gym, Item Nr. 3", DELETE, ("Gym", "Item 3"), TITLES, marks=ASKED_OLDER),
    ("supprime gym, l'item n°3", DELETE, ("Gym", "Item 3"), TITLES),
    ("delete gym, taxes likewise", DELETE, ("Gym", "Taxes"), TITLES),
    # fourth batch
    pytest.param("mark gym done, taxes paid too", DONE, ("Gym", "Taxes"), TITLES, marks=ARGUABLE_NEW),
    ("delete gym, taxes too 👍", DELETE, ("Gym", "Taxes"), TITLES),
    pytest.param("delete gym, 🧺 too", DELETE, ("Gym", "🧺"), ("Gym", "🧺", "Taxes"), marks=ASKED_OLDER),
    ("delete gym, taxes review too", DELETE, ("Gym", "Taxes review"), ("Gym", "Taxes", "Taxes review")),
    ("delete gym, buy milk as well please", DELETE, ("Gym", "Buy milk"), ("Gym", "Buy milk", "Taxes")),
    ("lösch Gym, Taxes bitte auch gleich", DELETE, ("Gym", "Taxes"), TITLES),
    ("hak Gym ab, Taxes auch erledigt", DONE, ("Gym", "Taxes"), TITLES),
]


@pytest.mark.parametrize(("message", "tool", "named", "titles"), RUN)
async def test_run(
    make_client: MakeClient, message: str, tool: str, named: tuple[str, ...], titles: tuple[str, ...]
) -> None:
    left, body = await _run(make_client, message, tool, named, titles)
    for title in named:
        assert _changed(left, tool, title), body["assistant_message"]
    assert body.get("confirmation") is None, body["assistant_message"]
    assert not body.get("choices"), body["assistant_message"]


# The model changes Gym only, as asked: the reply says so and nothing else (no "Not done" line, no question)
ONLY_GYM = [
    pytest.param("delete gym, taxes can stay", DELETE, marks=NOT_DONE_OLDER),
    pytest.param("delete gym, taxes is ok", DELETE, marks=NOT_DONE_OLDER),
    pytest.param("lösch Gym, Item 3 bleibt", DELETE, marks=NOT_DONE_OLDER),
    pytest.param("borra gym, taxes se queda", DELETE, marks=NOT_DONE_OLDER),
    pytest.param("mark gym done, taxes is still open", DONE, marks=NOT_DONE_OLDER),
    pytest.param("delete gym, taxes stays put", DELETE, marks=NOT_DONE_OLDER),
]


@pytest.mark.parametrize(("message", "tool"), ONLY_GYM)
async def test_only_gym(make_client: MakeClient, message: str, tool: str) -> None:
    left, body = await _run(make_client, message, tool, ("Gym",), TITLES)
    assert _changed(left, tool, "Gym"), body["assistant_message"]
    assert body.get("confirmation") is None, body["assistant_message"]
    assert "Not done" not in body["assistant_message"], body["assistant_message"]
    assert len(body["assistant_message"].splitlines()) == 1, body["assistant_message"]


# An "and" splits the shared predicate off the first item: only the second is held (older)
_BOTH_STAY = [
    ("delete gym, taxes and yoga can stay", DELETE),
    ("delete gym, taxes & yoga stay", DELETE),
    ("lösch Gym, Taxes und Yoga bleiben", DELETE),
    ("borra gym, taxes y yoga se quedan", DELETE),
    ("supprime gym, taxes et yoga restent", DELETE),
    ("mark gym done, taxes and yoga are still open", DONE),
]
_ALL, _BOTH = ("Gym", "Taxes", "Yoga"), ("Taxes", "Yoga")
# (message, the change, the model's calls, what must stay, what must change)
KEEP_SOME = [
    *(pytest.param(m, t, _ALL, _BOTH, ("Gym",), marks=MISSED_OLDER) for m, t in _BOTH_STAY),
    ("verwijder gym, taxes en yoga blijven", DELETE, _ALL, _BOTH, ("Gym",)),
    ("Gym bleibt, Taxes löschen", DELETE, ("Taxes", "Gym"), ("Gym",), ("Taxes",)),
    ("gym stays, delete taxes", DELETE, ("Taxes", "Gym"), ("Gym",), ("Taxes",)),
]


@pytest.mark.parametrize(("message", "tool", "called", "kept", "changed"), KEEP_SOME)
async def test_keep_some(
    make_client: MakeClient,
    message: str,
    tool: str,
    called: tuple[str, ...],
    kept: tuple[str, ...],
    changed: tuple[str, ...],
) -> None:
    left, body = await _run(make_client, message, tool, called, TITLES)
    for title in kept:
        assert left.get(title) == "pending", body["assistant_message"]
    for title in changed:
        assert _changed(left, tool, title), body["assistant_message"]


# A question the change now asks, answered yes: the change it asked about runs
@pytest.mark.parametrize(
    ("message", "yes"),
    [
        ("delete gym, same for taxes", "yes"),
        ("lösch Gym, Taxes ebenfalls", "ja"),
        ("borra gym, lo mismo con taxes", "sí"),
        ("gym delete kar do, taxes bhi", "haan"),
    ],
)
async def test_yes_runs(make_client: MakeClient, message: str, yes: str) -> None:
    llm, _ = compliant([calls_on(DELETE, "Gym", "Taxes")], TITLES, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *TITLES)
    first = (await chat(client, message)).json()
    second = (await chat(client, yes, conversation_id=first["conversation_id"])).json()
    left = await statuses(client)
    assert "Taxes" not in left and "Gym" not in left, (first["assistant_message"], second["assistant_message"])


# The model takes the shorter title for the item "taxes review too": Taxes must not be deleted
async def test_wrong_shorter_title(make_client: MakeClient) -> None:
    titles = ("Gym", "Taxes", "Taxes review")
    left, body = await _run(make_client, "delete gym, taxes review too", DELETE, ("Gym", "Taxes"), titles)
    assert left.get("Taxes") == "pending", body["assistant_message"]
    assert "Gym" not in left, body["assistant_message"]
