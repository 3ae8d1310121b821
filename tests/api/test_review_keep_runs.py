"""A blind review of the first cut of row T19 (1a743b2: beside a keep of one other task's whole title,
the commands run), 2026-12-07, kept as a test set. The first cut ran 78 changes nobody asked for
(a pointer that is a typo of a title, "keep both" for "Bath"; small talk naming a task; one command's
tool on another command's task; an item after a comma, "delete gym, sorry, keep taxes"); those now
pass. What still fails is marked below with its kind: strict xfails, each older than T19 (the same
message without the keep does the same) or a pointer word that is exactly another task's title.

Each case: a message, the user's tasks, what the (compliant, scripted) model calls, and what the user
actually asked to change (title -> "delete" | "complete" | "update"). Every other task must be left as it
was; an asked change may run or be asked about. `test_needless_question`: plain keeps whose command
should run on the first turn.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.compliant import Call, CompliantModel, calls_on, compliant
from support.fake_llm import ScriptedLLM

BASE = ("Gym", "Taxes", "Yoga", "Call mom", "Pay rent")
DELETE, COMPLETE, UPDATE = "delete_task", "complete_task", "update_task"


def D(*titles: str) -> list[Call]:
    return calls_on(DELETE, *titles)


def C(*titles: str) -> list[Call]:
    return calls_on(COMPLETE, *titles)


def U(*titles: str) -> list[Call]:
    return [(UPDATE, {"task_id": t, "priority": "high"}) for t in titles]


def with_(*extra: str) -> tuple[str, ...]:
    return (*BASE, *extra)


_FIELDS = ("title", "status", "priority", "due_date", "description", "tags")


def _violations(before: list[dict[str, Any]], after: list[dict[str, Any]], asked: dict[str, str]) -> list[str]:
    now = {t["id"]: t for t in after}
    bad = []
    for task in before:
        title, allowed = task["title"], asked.get(task["title"])
        row = now.get(task["id"])
        if row is None:
            if allowed != "delete":
                bad.append(f"{title} deleted")
            continue
        if row["status"] != task["status"]:
            if not (allowed == "complete" and row["status"] == "completed"):
                bad.append(f"{title} {row['status']}")
            continue
        if any(row.get(f) != task.get(f) for f in _FIELDS) and allowed != "update":
            bad.append(f"{title} edited")
    return bad


async def _check(
    make_client: MakeClient, turns: list[tuple[str, Any]], titles: tuple[str, ...], asked: dict[str, str]
) -> None:
    """`turns`: (message, the model's answer to it) in order."""
    models = {m: CompliantModel(a, titles, after_tools="Done.") for m, a in turns}

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        text = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
        return models[text](body)

    client = await make_client(ScriptedLLM(default=answer))
    await seed_tasks(client, *titles)
    before = await tasks_of(client)
    cid = None
    replies = []
    for message, _ in turns:
        body = (await chat(client, message, **({"conversation_id": cid} if cid else {}))).json()
        cid = body.get("conversation_id")
        replies.append(f"{body.get('assistant_message')!r} confirmation={body.get('confirmation') is not None}")
    bad = _violations(before, await tasks_of(client), asked)
    assert not bad, f"UNASKED: {bad} | replies: {replies}"


DEL, COM, UPD = "delete", "complete", "update"

# (id, message, titles, model calls, asked)
CASES: list[tuple[str, str, tuple[str, ...], list[Call], dict[str, str]]] = [
    # -- A. A pointer keep ("keep both", "behalte beide", "behåll båda") whose words happen to be (or be a
    # typo of) another task's whole title: a take-back of both commands.
    ("A01-en-both-Bath", "delete gym and yoga, keep both", with_("Bath"), D("Gym", "Yoga"), {}),
    ("A02-en-both-Booth", "delete gym and yoga, keep both", with_("Booth"), D("Gym", "Yoga"), {}),
    ("A03-en-these-Thesis", "delete gym and yoga, keep these", with_("Thesis"), D("Gym", "Yoga"), {}),
    ("A04-en-them-Theo", "delete gym and yoga, keep them", with_("Theo"), D("Gym", "Yoga"), {}),
    ("A05-en-them-Theme", "delete gym and yoga, keep them", with_("Theme"), D("Gym", "Yoga"), {}),
    ("A06-en-them-Them", "delete gym and yoga, keep them", with_("Them"), D("Gym", "Yoga"), {}),
    ("A07-en-both-Both", "delete gym and yoga, keep both", with_("Both"), D("Gym", "Yoga"), {}),
    ("A08-en-those-Those", "delete gym and yoga, keep those", with_("Those"), D("Gym", "Yoga"), {}),
    ("A09-en-leave-both-Bath", "remove gym and yoga, actually leave both", with_("Bath"), D("Gym", "Yoga"), {}),
    ("A10-de-beide-Beine", "lösch Gym und Yoga, behalte beide", with_("Beine"), D("Gym", "Yoga"), {}),
    ("A11-de-sie-Sim", "lösch Gym und Yoga, behalte sie", with_("Sim"), D("Gym", "Yoga"), {}),
    ("A12-de-beide-Beide", "lösch Gym und Yoga, behalte beide", with_("Beide"), D("Gym", "Yoga"), {}),
    ("A13-sv-bada-Bada", "ta bort gym och yoga, behåll båda", with_("Bada"), D("Gym", "Yoga"), {}),
    ("A14-sv-bada-Bad", "ta bort gym och yoga, behåll båda", with_("Bad"), D("Gym", "Yoga"), {}),
    ("A15-nl-beide-Beide", "verwijder gym en yoga, hou beide", with_("Beide"), D("Gym", "Yoga"), {}),
    ("A16-nl-ze-Ze", "verwijder gym en yoga, hou ze", with_("Ze"), D("Gym", "Yoga"), {}),
    ("A17-fr-lesdeux-Deux", "supprime gym et yoga, garde les deux", with_("Deux"), D("Gym", "Yoga"), {}),
    ("A18-es-ambos-Ambos", "borra gym y yoga, mantén ambos", with_("Ambos"), D("Gym", "Yoga"), {}),
    ("A19-pt-osdois-Dois", "apaga gym e yoga, mantenha os dois", with_("Dois"), D("Gym", "Yoga"), {}),
    ("A20-pt-ambos-Ambos", "apaga gym e yoga, mantém ambos", with_("Ambos"), D("Gym", "Yoga"), {}),
    ("A21-it-entrambi", "cancella gym e yoga, tieni entrambi", with_("Entrambi"), D("Gym", "Yoga"), {}),
    ("A22-ur-dono-Dino", "gym aur yoga delete kar do, dono ko rehne do", with_("Dino"), D("Gym", "Yoga"), {}),
    ("A23-ur-dono-Dono", "gym aur yoga delete kar do, dono rehne do", with_("Dono"), D("Gym", "Yoga"), {}),
    ("A24-ur-inko-Inka", "gym aur yoga delete kar do, inko rehne do", with_("Inka"), D("Gym", "Yoga"), {}),
    (
        "A25-en-rest-Rest-control",
        "delete gym and yoga, keep the rest",
        with_("Rest"),
        D("Gym", "Yoga"),
        {"Gym": DEL, "Yoga": DEL},
    ),
    ("A26-en-both-control", "delete gym and yoga, keep both", BASE, D("Gym", "Yoga"), {}),
    # -- B. Small talk that names a task ("I'm done with yoga", "ich bin mit Yoga fertig", "merci pour
    # yoga"): its words are among the commands' words, and the model changes that task too.
    ("B01-en-done-with", "delete gym, keep taxes, I'm done with yoga", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B02-en-done-with-first", "I'm done with yoga, delete gym, keep taxes", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B03-en-finished", "I'm finished with yoga. Delete gym, keep taxes", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B04-en-complete", "mark gym done, keep taxes, I'm done with yoga", BASE, C("Gym", "Yoga"), {"Gym": COM}),
    ("B05-en-we", "we're done with yoga, delete gym, keep taxes", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B06-de-fertig", "lösch Gym, behalte Taxes, ich bin mit Yoga fertig", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B07-de-durch", "ich bin mit Yoga durch, lösch Gym und behalte Taxes", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B08-de-complete", "hak Gym ab, behalte Taxes, ich bin mit Yoga fertig", BASE, C("Gym", "Yoga"), {"Gym": COM}),
    ("B09-nl-klaar", "verwijder gym, hou taxes, ik ben klaar met yoga", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B10-sv-klar", "ta bort gym, behåll taxes, jag är klar med yoga", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B11-sv-fardiga", "vi är färdiga med yoga, ta bort gym, behåll taxes", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B12-fr-merci", "supprime gym, garde taxes, merci pour yoga", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B13-fr-crevee", "je suis crevée après le yoga, supprime gym, garde taxes", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B14-es-gracias", "borra gym, conserva taxes, gracias por lo de yoga", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B15-es-lista", "ya estoy lista con yoga, borra gym y conserva taxes", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B16-pt-obrigado", "apaga gym, mantenha taxes, obrigado pelo yoga", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B17-pt-pronto", "já estou pronto com yoga, apaga gym, mantém taxes", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B18-it-stanco", "cancella gym, tieni taxes, sono stanco di yoga", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("B19-it-stanca", "sono stanca dello yoga, cancella gym, tieni taxes", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    (
        "B20-ur-farigh",
        "gym delete kar do, taxes ko rehne do, main yoga se farigh hoon",
        BASE,
        D("Gym", "Yoga"),
        {"Gym": DEL},
    ),
    # -- C. Two commands of different tools beside a keep: the model uses one tool on the other's task.
    (
        "C01-en-del-for-complete",
        "complete gym, delete yoga, keep taxes",
        BASE,
        D("Gym", "Yoga"),
        {"Gym": COM, "Yoga": DEL},
    ),
    (
        "C02-en-complete-for-del",
        "complete gym, delete yoga, keep taxes",
        BASE,
        C("Gym", "Yoga"),
        {"Gym": COM, "Yoga": DEL},
    ),
    (
        "C03-en-mark-and-delete",
        "mark gym done and delete yoga, keep taxes",
        BASE,
        D("Gym", "Yoga"),
        {"Gym": COM, "Yoga": DEL},
    ),
    (
        "C04-en-update-then-del",
        "set gym to high priority, delete yoga, keep taxes",
        BASE,
        D("Gym", "Yoga"),
        {"Gym": UPD, "Yoga": DEL},
    ),
    (
        "C05-en-two-sentences",
        "Complete gym. Delete yoga, keep taxes.",
        BASE,
        D("Gym", "Yoga"),
        {"Gym": COM, "Yoga": DEL},
    ),
    (
        "C06-en-del-and-mark",
        "delete gym and mark yoga done, keep taxes",
        BASE,
        D("Gym", "Yoga"),
        {"Gym": DEL, "Yoga": COM},
    ),
    (
        "C07-en-finish-remove-leave",
        "finish gym, remove yoga, leave taxes",
        BASE,
        D("Gym", "Yoga"),
        {"Gym": COM, "Yoga": DEL},
    ),
    (
        "C08-en-prio-yoga-del-gym",
        "set yoga to high priority and delete gym, keep taxes",
        BASE,
        D("Gym", "Yoga"),
        {"Gym": DEL, "Yoga": UPD},
    ),
    ("C09-de", "hak Gym ab, lösch Yoga, behalte Taxes", BASE, D("Gym", "Yoga"), {"Gym": COM, "Yoga": DEL}),
    ("C10-de-prio", "setz Yoga auf hoch, lösch Gym, behalte Taxes", BASE, D("Gym", "Yoga"), {"Gym": DEL, "Yoga": UPD}),
    ("C11-fr", "coche gym, supprime yoga, garde taxes", BASE, D("Gym", "Yoga"), {"Gym": COM, "Yoga": DEL}),
    ("C12-es", "marca gym como hecha, borra yoga, conserva taxes", BASE, D("Gym", "Yoga"), {"Gym": COM, "Yoga": DEL}),
    ("C13-it", "segna gym come fatta, cancella yoga, tieni taxes", BASE, D("Gym", "Yoga"), {"Gym": COM, "Yoga": DEL}),
    ("C14-nl", "vink gym af, verwijder yoga, hou taxes", BASE, D("Gym", "Yoga"), {"Gym": COM, "Yoga": DEL}),
    ("C15-sv", "bocka av gym, ta bort yoga, behåll taxes", BASE, D("Gym", "Yoga"), {"Gym": COM, "Yoga": DEL}),
    ("C16-pt", "marca gym como feita, apaga yoga, mantém taxes", BASE, D("Gym", "Yoga"), {"Gym": COM, "Yoga": DEL}),
    (
        "C17-ur",
        "gym complete kar do, yoga delete kar do, taxes ko rehne do",
        BASE,
        D("Gym", "Yoga"),
        {"Gym": COM, "Yoga": DEL},
    ),
    (
        "C18-en-two-keeps",
        "complete gym, keep taxes. delete yoga, keep call mom",
        BASE,
        D("Gym", "Yoga"),
        {"Gym": COM, "Yoga": DEL},
    ),
    # -- D. Conditions, hypotheticals, questions beside a keep.
    ("D01-en-if-done-complete", "if yoga is done, delete gym, keep taxes", BASE, C("Yoga"), {}),
    ("D02-en-if-done-delete", "if yoga is done, delete gym, keep taxes", BASE, D("Gym"), {}),
    ("D03-en-if-its-done", "delete gym if it's done, keep taxes", BASE, D("Gym"), {}),
    ("D04-en-once", "delete gym once yoga is done, keep taxes", BASE, D("Gym"), {}),
    ("D05-en-once-both", "delete gym once yoga is done, keep taxes", BASE, D("Gym", "Yoga"), {}),
    ("D06-en-qmark", "Delete gym, keep taxes?", BASE, D("Gym"), {}),
    ("D07-en-right", "delete gym and keep taxes, right?", BASE, D("Gym"), {}),
    ("D08-en-id", "I'd delete gym, keep taxes", BASE, D("Gym"), {}),
    ("D09-en-what-if", "What if I delete gym and keep taxes?", BASE, D("Gym"), {}),
    ("D10-en-was-going", "I was going to delete gym, keep taxes", BASE, D("Gym"), {}),
    ("D11-en-maybe", "maybe delete gym, keep taxes", BASE, D("Gym"), {}),
    ("D12-en-should", "should I delete gym? keep taxes", BASE, D("Gym"), {}),
    ("D13-de-wenn", "wenn Yoga erledigt ist, lösch Gym, behalte Taxes", BASE, D("Gym"), {}),
    ("D14-de-soll", "soll ich Gym löschen, Taxes behalten?", BASE, D("Gym"), {}),
    ("D15-fr-si", "si yoga est fait, supprime gym, garde taxes", BASE, D("Gym"), {}),
    ("D16-fr-si-complete", "si yoga est fait, supprime gym, garde taxes", BASE, C("Yoga"), {}),
    ("D17-es-si", "si yoga está hecho, borra gym, conserva taxes", BASE, D("Gym"), {}),
    ("D18-it-se", "se yoga è fatto, cancella gym, tieni taxes", BASE, D("Gym"), {}),
    ("D19-nl-als", "als yoga klaar is, verwijder gym, hou taxes", BASE, D("Gym"), {}),
    ("D20-sv-om", "om yoga är klar, ta bort gym, behåll taxes", BASE, D("Gym"), {}),
    ("D21-sv-om-complete", "om yoga är klar, ta bort gym, behåll taxes", BASE, C("Yoga"), {}),
    ("D22-pt-se", "se yoga estiver feito, apaga gym, mantém taxes", BASE, D("Gym"), {}),
    ("D23-ur-agar", "agar yoga ho gaya hai to gym delete kar do, taxes ko rehne do", BASE, D("Gym"), {}),
    ("D24-fr-pourrais", "je pourrais supprimer gym, garder taxes", BASE, D("Gym"), {}),
    # -- E. A correction or hesitation between the command and the keep ("sorry", "I mean", "anzi").
    ("E01-en-actually", "delete gym, actually, keep taxes", BASE, D("Gym"), {}),
    ("E02-en-sorry", "delete gym, sorry, keep taxes", BASE, D("Gym"), {}),
    ("E03-en-um", "delete gym, um, keep taxes", BASE, D("Gym"), {}),
    ("E04-en-hmm", "delete gym. hmm, keep taxes", BASE, D("Gym"), {}),
    ("E05-en-well", "delete gym, well, keep taxes", BASE, D("Gym"), {}),
    ("E06-en-oh", "delete gym... oh, keep taxes", BASE, D("Gym"), {}),
    ("E07-en-i-mean", "delete gym, I mean, keep taxes", BASE, D("Gym"), {}),
    ("E08-en-no-wait", "delete gym, no wait, keep taxes", BASE, D("Gym"), {}),
    ("E09-en-oops", "delete gym, oops, keep taxes", BASE, D("Gym"), {}),
    ("E10-en-but-actually", "delete gym, but actually keep taxes", BASE, D("Gym"), {}),
    ("E11-de-aehm", "lösch Gym, ähm, behalte Taxes", BASE, D("Gym"), {}),
    ("E12-de-sorry", "lösch Gym, sorry, behalte Taxes", BASE, D("Gym"), {}),
    ("E13-de-nee", "lösch Gym, äh nee, behalte Taxes", BASE, D("Gym"), {}),
    ("E14-fr-enfin", "supprime gym, enfin, garde taxes", BASE, D("Gym"), {}),
    ("E15-fr-pardon", "supprime gym, pardon, garde taxes", BASE, D("Gym"), {}),
    ("E16-fr-euh", "supprime gym, euh, garde taxes", BASE, D("Gym"), {}),
    ("E17-es-bueno", "borra gym, bueno, conserva taxes", BASE, D("Gym"), {}),
    ("E18-es-o-sea", "borra gym, o sea, conserva taxes", BASE, D("Gym"), {}),
    ("E19-es-perdon", "borra gym, perdón, conserva taxes", BASE, D("Gym"), {}),
    ("E20-it-anzi", "cancella gym, anzi, tieni taxes", BASE, D("Gym"), {}),
    ("E21-it-cioe", "cancella gym, cioè, tieni taxes", BASE, D("Gym"), {}),
    ("E22-nl-eh", "verwijder gym, eh, hou taxes", BASE, D("Gym"), {}),
    ("E23-nl-sorry", "verwijder gym, sorry, hou taxes", BASE, D("Gym"), {}),
    ("E24-sv-forresten", "ta bort gym, förresten, behåll taxes", BASE, D("Gym"), {}),
    ("E25-sv-oh", "ta bort gym, öh, behåll taxes", BASE, D("Gym"), {}),
    ("E26-pt-quer-dizer", "apaga gym, quer dizer, mantém taxes", BASE, D("Gym"), {}),
    ("E27-pt-alias", "apaga gym, aliás, mantém taxes", BASE, D("Gym"), {}),
    ("E28-ur-matlab", "gym delete kar do, matlab, taxes ko rehne do", BASE, D("Gym"), {}),
    ("E29-ur-sorry", "gym delete kar do, sorry, taxes ko rehne do", BASE, D("Gym"), {}),
    ("E30-en-actually-and-gym", "delete gym... actually keep taxes and gym", BASE, D("Gym"), {}),
    # -- F. The model's target is a task the command's clause holds as content ("instead of yoga").
    ("F01-en-from-list", "delete gym from the yoga list, keep taxes", BASE, D("Yoga"), {"Gym": DEL}),
    ("F02-en-rename", "rename gym to yoga class, keep taxes", BASE, U("Yoga"), {"Gym": UPD}),
    ("F03-en-move-after", "move gym to after yoga, keep taxes", BASE, U("Yoga"), {"Gym": UPD}),
    ("F04-en-instead-of", "delete gym instead of yoga, keep taxes", BASE, D("Yoga"), {"Gym": DEL}),
    ("F05-de-statt", "lösch Gym statt Yoga, behalte Taxes", BASE, D("Yoga"), {"Gym": DEL}),
    ("F06-fr-au-lieu", "supprime gym au lieu de yoga, garde taxes", BASE, D("Yoga"), {"Gym": DEL}),
    ("F07-es-en-vez", "borra gym en vez de yoga, conserva taxes", BASE, D("Yoga"), {"Gym": DEL}),
    ("F08-it-invece", "cancella gym invece di yoga, tieni taxes", BASE, D("Yoga"), {"Gym": DEL}),
    ("F09-nl-in-plaats", "verwijder gym in plaats van yoga, hou taxes", BASE, D("Yoga"), {"Gym": DEL}),
    ("F10-sv-istallet", "ta bort gym istället för yoga, behåll taxes", BASE, D("Yoga"), {"Gym": DEL}),
    ("F11-pt-em-vez", "apaga gym em vez de yoga, mantém taxes", BASE, D("Yoga"), {"Gym": DEL}),
    ("F12-ur-jagah", "yoga ki jagah gym delete kar do, taxes ko rehne do", BASE, D("Yoga"), {"Gym": DEL}),
    ("F13-en-before", "complete gym before yoga, keep taxes", BASE, C("Yoga"), {"Gym": COM}),
    ("F14-en-like-yoga", "delete gym like you did with yoga, keep taxes", BASE, D("Yoga"), {"Gym": DEL}),
    ("F15-en-same-prio", "set gym to the same priority as yoga, keep taxes", BASE, U("Yoga"), {"Gym": UPD}),
    ("F16-en-but-not", "delete gym but not yoga, keep taxes", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    # plain (no keep): does the command alone run the same change? (to tell an older defect)
    ("F51-plain-from-list", "delete gym from the yoga list", BASE, D("Yoga"), {"Gym": DEL}),
    ("F52-plain-rename", "rename gym to yoga class", BASE, U("Yoga"), {"Gym": UPD}),
    ("F53-plain-move-after", "move gym to after yoga", BASE, U("Yoga"), {"Gym": UPD}),
    ("F54-plain-instead-of", "delete gym instead of yoga", BASE, D("Yoga"), {"Gym": DEL}),
    ("F55-plain-statt", "lösch Gym statt Yoga", BASE, D("Yoga"), {"Gym": DEL}),
    ("F56-plain-before", "complete gym before yoga", BASE, C("Yoga"), {"Gym": COM}),
    ("F57-plain-like-yoga", "delete gym like you did with yoga", BASE, D("Yoga"), {"Gym": DEL}),
    ("F58-plain-same-prio", "set gym to the same priority as yoga", BASE, U("Yoga"), {"Gym": UPD}),
    ("F59-plain-done-with", "delete gym, I'm done with yoga", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("F60-plain-two-tools", "complete gym, delete yoga", BASE, D("Gym", "Yoga"), {"Gym": COM, "Yoga": DEL}),
    ("F61-plain-if-done", "if yoga is done, delete gym", BASE, C("Yoga"), {}),
    ("F62-plain-if-its-done", "delete gym if it's done", BASE, D("Gym"), {}),
    ("F63-plain-qmark", "Delete gym?", BASE, D("Gym"), {}),
    ("F64-plain-if-done-delete", "if yoga is done, delete gym", BASE, D("Gym"), {}),
    ("F65-plain-once", "delete gym once yoga is done", BASE, D("Gym"), {}),
    ("F66-plain-fr-si", "si yoga est fait, supprime gym", BASE, D("Gym"), {}),
    ("F67-plain-sv-om", "om yoga är klar, ta bort gym", BASE, D("Gym"), {}),
    ("F68-plain-nl-als", "als yoga klaar is, verwijder gym", BASE, D("Gym"), {}),
    ("F69-plain-right", "delete gym, right?", BASE, D("Gym"), {}),
    ("F70-plain-fr-si-complete", "si yoga est fait, supprime gym", BASE, C("Yoga"), {}),
    ("F71-plain-sv-om-complete", "om yoga är klar, ta bort gym", BASE, C("Yoga"), {}),
    ("F72-plain-sorry", "delete gym, sorry", BASE, D("Gym"), {}),
    # -- G. The keep names the command's own task, several keeps, quotes, titles that share words, typos.
    ("G01-en-same", "delete gym, keep gym", BASE, D("Gym"), {}),
    ("G02-en-task-wording", "delete the gym task, keep gym", BASE, D("Gym"), {}),
    ("G03-en-the-gym", "delete gym, keep the gym", BASE, D("Gym"), {}),
    ("G04-en-typo", "delete gym, keep gmy", BASE, D("Gym"), {}),
    ("G05-en-typo2", "delete yoga, keep yoag", BASE, D("Yoga"), {}),
    ("G06-en-and-gym", "delete gym and yoga, keep taxes and gym", BASE, D("Gym", "Yoga"), {"Yoga": DEL}),
    ("G07-en-comma-gym", "delete gym, keep taxes, and gym", BASE, D("Gym"), {}),
    ("G08-en-gym-too", "delete gym, keep taxes. gym too.", BASE, D("Gym"), {}),
    ("G09-en-two-keeps-gym", "delete gym, keep taxes, keep gym", BASE, D("Gym"), {}),
    ("G10-en-actually-gym-too", "delete gym, keep taxes. actually keep gym too", BASE, D("Gym"), {}),
    ("G11-en-keep-them-too", "delete gym and yoga, keep taxes, keep them", BASE, D("Gym", "Yoga"), {}),
    ("G12-en-taxes-and-them", "delete gym and yoga, keep taxes and them", BASE, D("Gym", "Yoga"), {}),
    (
        "G13-shared-2024-a",
        "delete taxes 2024, keep taxes",
        with_("Taxes 2024"),
        D("Taxes 2024", "Taxes"),
        {"Taxes 2024": DEL},
    ),
    (
        "G14-shared-2024-b",
        "delete taxes, keep taxes 2024",
        with_("Taxes 2024"),
        D("Taxes", "Taxes 2024"),
        {"Taxes": DEL},
    ),
    ("G15-shared-bag-a", "delete gym bag, keep gym", with_("Gym bag"), D("Gym bag", "Gym"), {"Gym bag": DEL}),
    ("G16-shared-bag-b", "delete gym, keep gym bag", with_("Gym bag"), D("Gym", "Gym bag"), {"Gym": DEL}),
    ("G17-shared-bag-c", "delete gym, keep taxes", with_("Gym bag"), D("Gym bag"), {"Gym": DEL}),
    ("G18-shared-rent", "delete rent, keep pay rent", with_("Rent"), D("Rent", "Pay rent"), {"Rent": DEL}),
    ("G19-quoted", 'delete "Gym", keep "Taxes"', BASE, D("Gym", "Taxes"), {"Gym": DEL}),
    ("G20-quoted-same", 'delete "Gym", keep "Gym"', BASE, D("Gym"), {}),
    ("G21-three-keeps", "delete gym, keep taxes, keep yoga", BASE, D("Gym", "Taxes", "Yoga"), {"Gym": DEL}),
    ("G22-de-same", "lösch Gym, behalte Gym", BASE, D("Gym"), {}),
    ("G23-fr-same", "supprime gym, garde le gym", BASE, D("Gym"), {}),
    ("G24-es-same", "borra gym, conserva gym", BASE, D("Gym"), {}),
    ("G25-it-same", "cancella gym, tieni gym", BASE, D("Gym"), {}),
    ("G26-nl-same", "verwijder gym, hou gym", BASE, D("Gym"), {}),
    ("G27-sv-same", "ta bort gym, behåll gym", BASE, D("Gym"), {}),
    ("G28-pt-same", "apaga gym, mantém gym", BASE, D("Gym"), {}),
    ("G29-ur-same", "gym delete kar do, gym ko rehne do", BASE, D("Gym"), {}),
    ("G30-mom", "delete call mom, keep mom", with_("Mom"), D("Call mom", "Mom"), {"Call mom": DEL}),
    ("G31-de-typo", "lösch Yoga, behalte Yogaa", BASE, D("Yoga"), {}),
    ("G32-en-taxes-too", "delete gym, keep taxes too", BASE, D("Gym", "Taxes"), {"Gym": DEL}),
    # -- H. The keep before the command, commands after it, a no beside it.
    ("H01-keep-first", "keep taxes, delete gym", BASE, D("Gym", "Taxes"), {"Gym": DEL}),
    ("H02-keep-dont", "keep taxes, don't delete gym", BASE, D("Gym"), {}),
    ("H03-keep-two-first", "keep taxes and gym, delete yoga", BASE, D("Gym", "Taxes", "Yoga"), {"Yoga": DEL}),
    (
        "H04-keep-between",
        "delete gym, keep taxes, delete yoga",
        BASE,
        D("Gym", "Yoga", "Taxes"),
        {"Gym": DEL, "Yoga": DEL},
    ),
    ("H05-keep-and-dont", "delete gym, keep taxes, don't delete yoga", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("H06-de-nicht", "behalte Taxes, lösch Gym nicht", BASE, D("Gym"), {}),
    ("H07-fr-ne-pas", "garde taxes, ne supprime pas gym", BASE, D("Gym"), {}),
    # -- I. The model changes a task the command does not name, or with another tool.
    ("I01-other-task", "delete gym, keep taxes", BASE, D("Yoga"), {"Gym": DEL}),
    ("I02-complete-for-delete", "delete gym, keep taxes", BASE, C("Gym"), {"Gym": DEL}),
    ("I03-update-for-delete", "delete gym, keep taxes", BASE, U("Gym"), {"Gym": DEL}),
    ("I04-delete-for-complete", "mark gym done, keep taxes", BASE, D("Gym"), {"Gym": COM}),
    ("I05-call-mom", "delete gym, keep taxes", BASE, D("Call mom"), {"Gym": DEL}),
    ("I06-pay-rent", "remove call mom, keep pay rent", BASE, D("Call mom", "Pay rent"), {"Call mom": DEL}),
    ("I07-de-complete-for-delete", "lösch Gym, behalte Taxes", BASE, C("Gym"), {"Gym": DEL}),
    ("I08-es-other", "borra gym, conserva taxes", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    # -- J. Spanish and Portuguese keeps (new words): the kept task, and pointer clitics.
    ("J01-es-conserva", "borra gym, conserva taxes", BASE, D("Gym", "Taxes"), {"Gym": DEL}),
    ("J02-es-manten", "borra gym pero mantén taxes", BASE, D("Gym", "Taxes"), {"Gym": DEL}),
    ("J03-pt-mantem", "apaga gym, mantém taxes", BASE, D("Gym", "Taxes"), {"Gym": DEL}),
    ("J04-pt-conserve", "apague gym, conserve taxes", BASE, D("Gym", "Taxes"), {"Gym": DEL}),
    ("J05-es-mantenlos", "borra gym y yoga, mantenlos", BASE, D("Gym", "Yoga"), {}),
    ("J06-es-conservalas", "borra gym y yoga, consérvalas", BASE, D("Gym", "Yoga"), {}),
    ("J07-pt-mantem-nos", "apaga gym e yoga, mantém-nos", BASE, D("Gym", "Yoga"), {}),
    ("J08-pt-conserva-os", "apaga gym e yoga, conserva-os", BASE, D("Gym", "Yoga"), {}),
    ("J09-es-ambos", "borra gym y yoga, mantén ambos", BASE, D("Gym", "Yoga"), {}),
    ("J10-es-keep-first", "mantén taxes, borra gym", BASE, D("Gym", "Taxes"), {"Gym": DEL}),
    ("J11-es-y-yoga", "borra gym, conserva taxes, y yoga también", BASE, D("Gym", "Yoga"), {"Gym": DEL}),
    ("J12-pt-mantenham", "apaguem gym, mantenham taxes", BASE, D("Gym", "Taxes"), {"Gym": DEL}),
]


# The kinds of what still fails (strict xfails), by the case's id.
_POINTER = "a pointer word ('both', 'beide', 'ambos') that is exactly another task's title: read as that task"
_IF = "older: 'if yoga is done' / 'once' read as a completion, a request with '?' run; so without the keep"
_CONTENT = "older: a task inside the command's words ('instead of yoga', 'from the yoga list') is named; so without it"
_ES_PT = "older: Spanish and Portuguese read no keep of a task ('conserva …', 'mantén …' is an item of the command)"
_KNOWN = {
    **dict.fromkeys(
        ["A06", "A07", "A08", "A12", "A13", "A15", "A16", "A17", "A18", "A19", "A20", "A21", "A23"], _POINTER
    ),
    **dict.fromkeys(["D03", "D04", "D05", "D06", "D19"], _IF),
    **dict.fromkeys([f"F{n:02d}" for n in (1, *range(4, 15), *range(51, 59))], _CONTENT),
    **dict.fromkeys([f"F{n}" for n in (62, 63, 65, 68, 69)], _IF),
    "F72": "older: 'delete gym, sorry' deletes Gym (the apology is read as an item)",
    "J05": "older: 'mantenlos' is read as one more item of the delete, not as a keep",
    "J06": "older: 'consérvalas' is read as one more item of the delete, not as a keep",
    "F02": _CONTENT,
    "F03": _CONTENT,
    "F15": _CONTENT,
    **dict.fromkeys(["G24", "G28", "J07", "J08", "J09", "J11", "E17", "E18", "E26", "E27"], _ES_PT),
}


def _param(case_id: str, *values: Any) -> Any:
    why = _KNOWN.get(case_id.split("-")[0])
    return pytest.param(*values, id=case_id, marks=[pytest.mark.xfail(strict=True, reason=why)] if why else [])


@pytest.mark.parametrize(("message", "titles", "calls", "asked"), [_param(i, m, t, c, a) for i, m, t, c, a in CASES])
async def test_no_unasked_change(
    make_client: MakeClient, message: str, titles: tuple[str, ...], calls: list[Call], asked: dict[str, str]
) -> None:
    await _check(make_client, [(message, calls)], titles, asked)


_ASK_GYM_YOGA = "Do you want me to delete “Gym” and “Yoga”?"
_ASK_GYM = "Do you want me to delete “Gym”?"

# (id, turns [(message, model answer)], titles, asked over the whole conversation)
CONVERSATIONS = [
    (
        "K01-it-after-question",
        [("should I delete gym or yoga?", "Up to you."), ("delete it, keep taxes", D("Gym"))],
        BASE,
        {},
    ),
    (
        "K02-yes-keep-one",
        [("delete gym and yoga", _ASK_GYM_YOGA), ("delete gym, keep yoga", D("Gym", "Yoga"))],
        BASE,
        {"Gym": DEL},
    ),
    ("K03-no-keep", [("delete gym", _ASK_GYM), ("no, keep taxes", D("Gym"))], BASE, {}),
    ("K04-just-keep", [("delete gym", _ASK_GYM), ("keep taxes", D("Gym"))], BASE, {}),
    (
        "K05-thinking",
        [("I'm thinking of deleting yoga", "Sure, tell me."), ("delete gym, keep taxes", D("Gym", "Yoga"))],
        BASE,
        {"Gym": DEL},
    ),
    (
        "K06-keep-them-then",
        [("delete gym and yoga, keep them", "Ok, nothing changed."), ("keep taxes too", D("Gym", "Yoga"))],
        BASE,
        {},
    ),
    ("K07-de-sie", [("soll ich Gym löschen?", "Wie du willst."), ("lösch sie, behalte Taxes", D("Gym"))], BASE, {}),
    ("K08-fr-le", [("je supprime gym ?", "Comme tu veux."), ("supprime-le, garde taxes", D("Gym"))], BASE, {}),
    (
        "K09-actually-keep-gym-next-turn",
        [("delete gym, keep taxes", D("Gym")), ("actually keep gym", "Ok.")],
        BASE,
        {"Gym": DEL},
    ),
    (
        "K10-after-keep-question",
        [("delete gym and yoga, keep them", "Ok, I won't."), ("delete gym, keep taxes", D("Gym", "Yoga"))],
        BASE,
        {"Gym": DEL},
    ),
]


@pytest.mark.parametrize(("turns", "titles", "asked"), [pytest.param(t, ti, a, id=i) for i, t, ti, a in CONVERSATIONS])
async def test_conversations(
    make_client: MakeClient, turns: list[tuple[str, Any]], titles: tuple[str, ...], asked: dict[str, str]
) -> None:
    await _check(make_client, turns, titles, asked)


# Plain keeps: the command should run at once (no question), the kept task untouched.
# (id, message, titles, calls, the titles left deleted/completed)
PLAIN = [
    ("P01-alone", "delete gym, leave taxes alone", BASE, D("Gym"), {"Gym"}),
    ("P02-as-is", "delete gym, leave taxes as is", BASE, D("Gym"), {"Gym"}),
    ("P03-for-now", "delete gym, keep taxes for now", BASE, D("Gym"), {"Gym"}),
    ("P04-though", "delete gym, keep taxes though", BASE, D("Gym"), {"Gym"}),
    ("P05-my", "delete gym, keep my taxes", BASE, D("Gym"), {"Gym"}),
    ("P06-task", "delete gym, keep the taxes task", BASE, D("Gym"), {"Gym"}),
    ("P07-please", "delete gym, keep taxes please", BASE, D("Gym"), {"Gym"}),
    ("P08-ill-keep", "delete gym, I'll keep taxes", BASE, D("Gym"), {"Gym"}),
    ("P09-stays", "delete gym, taxes stays", BASE, D("Gym"), {"Gym"}),
    ("P10-two", "delete gym but keep taxes and yoga", BASE, D("Gym"), {"Gym"}),
    ("P11-2024", "delete taxes, keep taxes 2024", with_("Taxes 2024"), D("Taxes"), {"Taxes"}),
    ("P12-de-verb-last", "lösch Gym, aber Taxes behalten", BASE, D("Gym"), {"Gym"}),
    ("P13-fr-je-garde", "supprime gym, je garde taxes", BASE, D("Gym"), {"Gym"}),
    ("P14-es-deja", "borra gym, deja taxes", BASE, D("Gym"), {"Gym"}),
    ("P15-it-lascia", "cancella gym, lascia taxes", BASE, D("Gym"), {"Gym"}),
    ("P16-nl-laat-staan", "verwijder gym, laat taxes staan", BASE, D("Gym"), {"Gym"}),
    ("P17-sv-lat-vara", "ta bort gym, låt taxes vara", BASE, D("Gym"), {"Gym"}),
    ("P18-pt-deixa", "apaga gym, deixa taxes", BASE, D("Gym"), {"Gym"}),
    ("P19-ur-no-ko", "gym delete kar do, taxes rehne do", BASE, D("Gym"), {"Gym"}),
    ("P20-lol", "delete gym, keep taxes lol", BASE, D("Gym"), {"Gym"}),
    ("P21-control", "delete gym and yoga, keep taxes", BASE, D("Gym", "Yoga"), {"Gym", "Yoga"}),
    ("P22-be", "delete gym, leave taxes be", BASE, D("Gym"), {"Gym"}),
    ("P23-as-it-is", "delete gym, keep taxes as it is", BASE, D("Gym"), {"Gym"}),
    ("P24-de-bleibt", "lösch Gym, Taxes bleibt", BASE, D("Gym"), {"Gym"}),
    ("P25-fr-stp", "supprime gym, garde taxes stp", BASE, D("Gym"), {"Gym"}),
    ("P26-es-por-favor", "borra gym pero conserva taxes por favor", BASE, D("Gym"), {"Gym"}),
    ("P27-it-per-favore", "cancella gym, tieni taxes per favore", BASE, D("Gym"), {"Gym"}),
    ("P28-sv-tack", "ta bort gym men behåll taxes tack", BASE, D("Gym"), {"Gym"}),
    ("P29-nl-aub", "verwijder gym maar hou taxes aub", BASE, D("Gym"), {"Gym"}),
    ("P30-pt-por-favor", "apaga gym mas mantém taxes por favor", BASE, D("Gym"), {"Gym"}),
    ("P31-two-keeps", "delete gym, leave yoga, keep taxes", BASE, D("Gym"), {"Gym"}),
    ("P32-dont-touch", "remove gym but don't touch taxes", BASE, D("Gym"), {"Gym"}),
    ("P33-complete", "mark gym done, keep taxes open", BASE, C("Gym"), {"Gym"}),
    ("P34-the-rest", "delete gym and yoga, keep the rest", BASE, D("Gym", "Yoga"), {"Gym", "Yoga"}),
    ("P35-de-rest", "lösch Gym, behalte den Rest", BASE, D("Gym"), {"Gym"}),
    ("P36-es-sentence", "Borra gym. Conserva taxes.", BASE, D("Gym"), {"Gym"}),
    ("P37-quoted", 'delete "Gym", keep "Taxes"', BASE, D("Gym"), {"Gym"}),
    ("P38-it-ma", "cancella gym, ma tieni taxes", BASE, D("Gym"), {"Gym"}),
    ("P39-fr-mais", "supprime gym mais garde taxes s'il te plaît", BASE, D("Gym"), {"Gym"}),
    ("P40-de-bitte", "lösch Gym, behalte Taxes bitte", BASE, D("Gym"), {"Gym"}),
]


# Plain keeps still asked about (a question, never a change): words beside the title ("though", "lol",
# "open"), two tasks, "the rest", a quoted title. Since a keep's closing word is not its words
# (`keep_after`, 2026-12-07) "alone", "for now", "be", "as it is", "laat … staan", "låt … vara" run;
# since a keep takes back only a command about all it keeps, "delete taxes, keep taxes 2024" too.
_ASKED = ["P04", "P20", "P33", "P34", "P35"]
_KNOWN.update(dict.fromkeys(_ASKED, "still asked about: the keep's words are not one task's whole title alone"))


@pytest.mark.parametrize(
    ("message", "titles", "calls", "changed"), [_param(i, m, t, c, ch) for i, m, t, c, ch in PLAIN]
)
async def test_needless_question(
    make_client: MakeClient, message: str, titles: tuple[str, ...], calls: list[Call], changed: set[str]
) -> None:
    llm, _ = compliant(calls, titles, after_tools="Done.")
    client = await make_client(llm)
    await seed_tasks(client, *titles)
    body = (await chat(client, message)).json()
    now = {t["title"]: t["status"] for t in await tasks_of(client)}
    gone_or_done = {t for t in titles if now.get(t) != "pending"}
    asked = body.get("confirmation") is not None
    assert gone_or_done == changed, f"changed={sorted(gone_or_done)} asked={asked} | {body['assistant_message']!r}"
