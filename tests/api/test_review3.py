"""Third blind review (2026-12-07, adversarial, 276 cases) of rows T20 and C21, the keep closings
(`keep_after`), and row C22 with the condition words (reverted after this review). Each case: the
turns (message, the scripted model's calls), the tasks, what the user asked to change, and with
`done` the effects wanted at once, no question. Harness: tests/support/review2.py."""

from __future__ import annotations

from typing import Any

import pytest
from support.api import MakeClient
from support.review2 import BASE, COM, DEL, A, C, D, U, asked_for, run_case, with_


def done(case_id: str, message: str, titles: tuple[Any, ...], calls: Any, want: set[str]) -> Any:
    return done2(case_id, [(message, calls)], titles, want)


def done2(case_id: str, turns: list[tuple[str, Any]], titles: tuple[Any, ...], want: set[str]) -> Any:
    return pytest.param(turns, titles, asked_for(want), want, id=case_id, marks=_known(case_id))


def held(case_id: str, message: str, titles: tuple[Any, ...], calls: Any, asked: dict[str, Any]) -> Any:
    return pytest.param([(message, calls)], titles, asked, None, id=case_id, marks=_known(case_id))


def _known(case_id: str) -> list[Any]:
    why = KNOWN.get(case_id)
    return [pytest.mark.xfail(strict=True, reason=why)] if why else []


# What still fails (strict xfails), by kind. The reviewer's run on bf38a37 (before rows T20, C21 and
# the keep closings) and f92188b (with row C22 and condition words, reverted since: 22 of its 31
# regressions came from them) sorted every failing case; these are the ones failing now.
OLDER = "older: fails the same on bf38a37 (the review's STILL), or failed there and was fixed only by the reverted C22"
C21_ASKS = "C21 asks about a delete on a verb of two tools even where the rest says the task is to go ('for good')"
YES_LOOP = (
    "the change said again with no yes word ('just delete it') is a new message whose delete of 'it' is the"
    " backend's pick and asked again (T9); with one ('yes, delete it', 'sí, bórralo') it answers the question since"
    " 2026-12-07 (tests/api/test_yes_said_again.py)"
)
KNOWN = {
    **dict.fromkeys(
        [
            "c21-no-mark-done",
            "c21-strike-from-list",
            "c22-finished-taxes-alone",
            "c22-it-idem",
            "c22-no-longer-needed",
            "c22-same-goes",
            "c22-taxes-too-sentence",
            "cond-en-if-after-command",
            "cond-en-tell-me-if",
            "cond-fr-meme-si",
            "cond-fr-si-si",
            "cond-fr-si-so",
            "cond-sv-tankt-om",
            "keep-de-mal",
            "keep-de-noch",
            "keep-en-though",
            "keep-en-two-kept",
            "keep-nl-gewoon",
            "keep-nl-maar",
            "keep-nl-niet-staan",
            "keep-num-bare",
            "keep-num-item",
            "r2-btw",
            "r2-de-rest",
            "r2-en-rest-alone",
            "r2-fr-fini",
            "r2-if-whether-wondering",
            "r2-nl-rest",
            "r2-strike-then-its-done",
            "r2-sv-rest",
            "r2-ur-ho-gaya",
            "r3-c22-add-and-done",
            "r3-c22-done-with",
            "r3-keep-two-for-now",
            "r3-nl-two-staan",
            "r3-num-item-2-3",
            "r3-num-two-kept",
            "r3-sv-om-about-verb",
            "r3-sv-two-vara",
            "r3-title-if",
            "r3-what-if",
            "r4-c22-yes-complete-it",
            "r4-fr-title-voir-si",
            "r4-strike-no-complete-it",
            "r4-strike-no-its-done",
            "r5-de-lass-drin-stehen",
            "r5-fr-si-encore",
            "t20-remark-long-model-both",
        ],
        OLDER,
    ),
    **dict.fromkeys(["c21-strike-off-for-good", "r2-es-tacha-no-necesito", "r2-fr-raye-plus-besoin"], C21_ASKS),
    **dict.fromkeys(
        [
            "r2-strike-then-just-delete",
        ],
        YES_LOOP,
    ),
}

CASES = [
    # ---------------- T20: longer titles
    done("t20-prefix-old-gym", "delete old gym", with_("Old gym"), D("Old gym", "Gym"), {"Old gym: deleted"}),
    done("t20-suffix-hot-yoga", "delete hot yoga", with_("Hot yoga"), D("Hot yoga", "Yoga"), {"Hot yoga: deleted"}),
    done(
        "t20-gym-bag-and-gym",
        "delete gym bag and gym",
        with_("Gym bag"),
        D("Gym bag", "Gym"),
        {"Gym bag: deleted", "Gym: deleted"},
    ),
    done(
        "t20-comma-list",
        "delete gym, gym bag",
        with_("Gym bag"),
        D("Gym", "Gym bag"),
        {"Gym bag: deleted", "Gym: deleted"},
    ),
    done(
        "t20-gym-then-bag",
        "delete gym and the gym bag",
        with_("Gym bag"),
        D("Gym", "Gym bag"),
        {"Gym bag: deleted", "Gym: deleted"},
    ),
    done("t20-plural", "delete gym classes", with_("Gym class"), D("Gym class", "Gym"), {"Gym class: deleted"}),
    done("t20-caps", "DELETE GYM CLASS", with_("Gym class"), D("Gym class", "Gym"), {"Gym class: deleted"}),
    done(
        "t20-class-suffix-task",
        "delete gym class",
        ("Gym class", "Class", "Gym"),
        D("Gym class", "Class"),
        {"Gym class: deleted"},
    ),
    done("t20-number-gym-2", "delete gym 2", with_("Gym 2"), D("Gym 2", "Gym"), {"Gym 2: deleted"}),
    done(
        "t20-item-1-and-10",
        "complete item 1 and item 10",
        ("Item 1", "Item 10", "Gym"),
        C("Item 1", "Item 10"),
        {"Item 1: completed", "Item 10: completed"},
    ),
    done("t20-item-10-only", "delete item 10", ("Item 1", "Item 10", "Gym"), D("Item 10"), {"Item 10: deleted"}),
    done(
        "t20-reordered-2024",
        "delete 2024 taxes",
        ("Taxes", "Taxes 2024", "Gym"),
        D("Taxes 2024", "Taxes"),
        {"Taxes 2024: deleted"},
    ),
    done(
        "t20-accents",
        "supprime cours de theatre",
        ("Théâtre", "Cours de théâtre", "Gym"),
        D("Cours de théâtre", "Théâtre"),
        {"Cours de théâtre: deleted"},
    ),
    done(
        "t20-de-hyphen",
        "lösch die Gym-Klasse",
        ("Gym", "Gym-Klasse", "Yoga"),
        D("Gym-Klasse", "Gym"),
        {"Gym-Klasse: deleted"},
    ),
    done(
        "t20-remark-long-delete-short",
        "gym class got cancelled, so delete gym",
        with_("Gym class"),
        D("Gym"),
        {"Gym: deleted"},
    ),
    held(
        "t20-remark-long-model-both",
        "gym class got cancelled, so delete gym",
        with_("Gym class"),
        D("Gym", "Gym class"),
        {"Gym": DEL},
    ),
    done("t20-not-short", "delete gym class, not gym", with_("Gym class"), D("Gym class"), {"Gym class: deleted"}),
    done(
        "t20-move-long-delete-short",
        "move gym class to friday and delete gym",
        with_("Gym class"),
        [*U("Gym class", due_date="2026-12-11"), *D("Gym")],
        {"Gym class: edited", "Gym: deleted"},
    ),
    done(
        "t20-complete-long-delete-short",
        "mark gym class done and delete gym",
        with_("Gym class"),
        [*C("Gym class"), *D("Gym")],
        {"Gym class: completed", "Gym: deleted"},
    ),
    done(
        "t20-dentist",
        "cancel dentist appointment and dentist",
        ("Dentist", "Dentist appointment", "Gym"),
        D("Dentist appointment", "Dentist"),
        {"Dentist: deleted", "Dentist appointment: deleted"},
    ),
    done(
        "t20-es-both-comma",
        "borra yoga, clase de yoga",
        with_("Clase de yoga"),
        D("Yoga", "Clase de yoga"),
        {"Yoga: deleted", "Clase de yoga: deleted"},
    ),
    done(
        "t20-it-too",
        "cancella lezione di yoga e anche yoga",
        with_("Lezione di yoga"),
        D("Lezione di yoga", "Yoga"),
        {"Yoga: deleted", "Lezione di yoga: deleted"},
    ),
    done(
        "t20-nl-both",
        "verwijder yoga les en yoga",
        with_("Yoga les"),
        D("Yoga les", "Yoga"),
        {"Yoga: deleted", "Yoga les: deleted"},
    ),
    done(
        "t20-sv-both",
        "ta bort yoga pass och yoga",
        with_("Yoga pass"),
        D("Yoga pass", "Yoga"),
        {"Yoga: deleted", "Yoga pass: deleted"},
    ),
    done(
        "t20-pt-both",
        "apaga aula de yoga e yoga também",
        with_("Aula de yoga"),
        D("Aula de yoga", "Yoga"),
        {"Yoga: deleted", "Aula de yoga: deleted"},
    ),
    done(
        "t20-ur-both",
        "gym class aur gym dono delete kar do",
        with_("Gym class"),
        D("Gym class", "Gym"),
        {"Gym: deleted", "Gym class: deleted"},
    ),
    done(
        "t20-the-gym-task",
        "delete the gym task and the gym class task",
        with_("Gym class"),
        D("Gym", "Gym class"),
        {"Gym: deleted", "Gym class: deleted"},
    ),
    done(
        "t20-email-boss",
        "email boss is done, delete email",
        ("Email", "Email boss", "Gym"),
        [*C("Email boss"), *D("Email")],
        {"Email boss: completed", "Email: deleted"},
    ),
    # ---------------- C21: verbs of two tools
    done(
        "c21-en-mixed",
        "strike off gym and delete taxes",
        BASE,
        [*C("Gym"), *D("Taxes")],
        {"Gym: completed", "Taxes: deleted"},
    ),
    done(
        "c21-de-mixed",
        "streich Gym durch und lösch Taxes",
        BASE,
        [*C("Gym"), *D("Taxes")],
        {"Gym: completed", "Taxes: deleted"},
    ),
    done(
        "c21-nl-mixed",
        "streep gym door en verwijder taxes",
        BASE,
        [*C("Gym"), *D("Taxes")],
        {"Gym: completed", "Taxes: deleted"},
    ),
    done(
        "c21-sv-mixed",
        "stryk över gym och ta bort taxes",
        BASE,
        [*C("Gym"), *D("Taxes")],
        {"Gym: completed", "Taxes: deleted"},
    ),
    done(
        "c21-pt-mixed", "apaga gym e risca taxes", BASE, [*D("Gym"), *C("Taxes")], {"Gym: deleted", "Taxes: completed"}
    ),
    done(
        "c21-it-mixed",
        "cancella gym e depenna taxes",
        BASE,
        [*D("Gym"), *C("Taxes")],
        {"Gym: deleted", "Taxes: completed"},
    ),
    done(
        "c21-es-delete-first",
        "borra gym y tacha taxes",
        BASE,
        [*D("Gym"), *C("Taxes")],
        {"Gym: deleted", "Taxes: completed"},
    ),
    held("c21-en-delete-and-strike", "delete gym, strike off taxes", BASE, D("Gym", "Taxes"), {"Gym": DEL}),
    done("c21-strike-from-list", "strike gym from the list", BASE, D("Gym"), {"Gym: deleted"}),
    done("c21-strike-off-for-good", "strike gym off the list for good, I quit going", BASE, D("Gym"), {"Gym: deleted"}),
    done("c21-sv-stryk-plain", "stryk gym från listan", BASE, D("Gym"), {"Gym: deleted"}),
    done("c21-de-streich-plain", "streich Gym von der Liste", BASE, D("Gym"), {"Gym: deleted"}),
    done("c21-es-tacha-two", "tacha gym y yoga", BASE, C("Gym", "Yoga"), {"Gym: completed", "Yoga: completed"}),
    done2(
        "c21-no-mark-done", [("strike off gym", D("Gym")), ("no, mark it as done", C("Gym"))], BASE, {"Gym: completed"}
    ),
    done("c21-strike-keep", "strike off gym, keep taxes", BASE, C("Gym"), {"Gym: completed"}),
    done(
        "c21-fr-raye-long",
        "raye cours de gym",
        with_("Cours de gym"),
        C("Cours de gym", "Gym"),
        {"Cours de gym: completed"},
    ),
    held("c21-es-tacha-delete-long", "tacha clase de yoga", with_("Clase de yoga"), D("Clase de yoga", "Yoga"), {}),
    done("c21-de-done-remark-delete", "streich Gym durch, ist erledigt", BASE, C("Gym"), {"Gym: completed"}),
    # ---------------- Keeps
    done("keep-en-tomorrow", "delete gym, leave taxes for tomorrow", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-en-complete", "mark gym done, leave taxes alone", BASE, C("Gym"), {"Gym: completed"}),
    done(
        "keep-en-edit", "move gym to friday, leave taxes alone", BASE, U("Gym", due_date="2026-12-11"), {"Gym: edited"}
    ),
    done("keep-en-first", "leave taxes alone, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-en-for-now-first", "keep taxes for now, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-en-though", "delete gym, keep taxes though", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-en-pls", "delete gym but keep taxes pls", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-en-hold-off", "delete gym, hold off on taxes for now", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-en-two-kept", "delete gym, leave taxes and yoga alone", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-en-untouched", "delete gym and leave taxes untouched", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-en-where-it-is", "delete gym, leave taxes where it is", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-en-as-it-is-model-both", "delete gym, leave taxes as it is", BASE, D("Gym"), {"Gym: deleted"}),
    held(
        "keep-en-alone-model-edit",
        "delete gym, leave taxes alone",
        BASE,
        [*D("Gym"), *U("Taxes", due_date="2026-12-11")],
        {"Gym": DEL},
    ),
    done(
        "keep-num-short-long",
        "delete taxes, keep taxes 2024",
        ("Taxes", "Taxes 2024", "Gym"),
        D("Taxes"),
        {"Taxes: deleted"},
    ),
    held(
        "keep-num-short-long-model-both",
        "delete taxes, keep taxes 2024",
        ("Taxes", "Taxes 2024", "Gym"),
        D("Taxes", "Taxes 2024"),
        {"Taxes": DEL},
    ),
    done(
        "keep-num-bare",
        "delete taxes 2023 but keep 2024",
        ("Taxes 2023", "Taxes 2024", "Gym"),
        D("Taxes 2023"),
        {"Taxes 2023: deleted"},
    ),
    done(
        "keep-num-item", "delete item 1, keep item 10", ("Item 1", "Item 10", "Gym"), D("Item 1"), {"Item 1: deleted"}
    ),
    held(
        "keep-num-item-model-both",
        "delete item 1, keep item 10",
        ("Item 1", "Item 10", "Gym"),
        D("Item 1", "Item 10"),
        {"Item 1": DEL},
    ),
    done("keep-de-mal", "lösch Gym, lass Taxes mal stehen", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-de-article", "lösch Gym, lass die Taxes stehen", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-de-noch", "lösch Gym, lass Taxes noch drin", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-de-complete", "hak Gym ab, lass Taxes in Ruhe", BASE, C("Gym"), {"Gym: completed"}),
    done("keep-nl-maar", "verwijder gym, laat taxes maar staan", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-nl-gewoon", "verwijder gym en laat taxes gewoon staan", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-nl-complete", "vink gym af, laat taxes staan", BASE, C("Gym"), {"Gym: completed"}),
    done("keep-sv-complete", "bocka av gym, låt taxes vara", BASE, C("Gym"), {"Gym: completed"}),
    done("keep-sv-vill-inte-ha-kvar", "jag vill inte ha gym kvar, ta bort den", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-sv-vill-inte-ha-kvar2", "ta bort gym, jag vill inte ha gym kvar", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-sv-ha-kvar-plain", "ta bort gym, men ha kvar taxes", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-nl-niet-staan", "verwijder gym, laat hem niet staan", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-es-paz", "borra gym, deja taxes en paz", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-pt-quieto", "apaga gym, deixa taxes quieto", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-fr-comme-ca", "supprime gym, laisse taxes comme ça", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-it-cosi", "cancella gym, lascia taxes così", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-ur", "gym delete kar do, taxes ko rehne do abhi", BASE, D("Gym"), {"Gym: deleted"}),
    done("keep-fr-raye", "raye gym, laisse taxes tranquille", BASE, C("Gym"), {"Gym: completed"}),
    # ---------------- Conditions that are polite frames / other meanings
    done("cond-en-if-you-can", "if you can, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-en-if-you-can-nocomma", "if you can please delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done(
        "cond-en-if-possible",
        "if possible delete gym and taxes",
        BASE,
        D("Gym", "Taxes"),
        {"Gym: deleted", "Taxes: deleted"},
    ),
    done("cond-en-if-possible-comma", "if possible, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-en-if-ok", "if that's ok, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-en-dont-mind", "if you don't mind, mark yoga done", BASE, C("Yoga"), {"Yoga: completed"}),
    done("cond-en-after", "delete gym if you can", BASE, D("Gym"), {"Gym: deleted"}),
    done(
        "cond-en-have-time",
        "delete gym, and if you have time, complete taxes",
        BASE,
        [*D("Gym"), *C("Taxes")],
        {"Gym: deleted", "Taxes: completed"},
    ),
    done(
        "cond-en-once-added",
        "once you've added milk, delete gym",
        BASE,
        [*A("Milk"), *D("Gym")],
        {"+Milk", "Gym: deleted"},
    ),
    done("cond-en-at-once", "at once, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-en-unless-disagree", "unless you disagree, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-en-check-if", "check if gym is done and delete taxes", BASE, D("Taxes"), {"Taxes: deleted"}),
    done(
        "cond-en-let-me-know-if", "let me know if yoga is done, and delete taxes", BASE, D("Taxes"), {"Taxes: deleted"}
    ),
    held("cond-en-tell-me-if", "tell me if gym is done", BASE, C("Gym"), {}),
    held("cond-en-whether-ask", "can you tell me if i finished yoga", BASE, C("Yoga"), {}),
    done(
        "cond-en-new-sentence",
        "If it rains, add umbrella. Delete gym.",
        BASE,
        [*A("Umbrella"), *D("Gym")],
        {"+Umbrella", "Gym: deleted"},
    ),
    done("cond-en-even-if", "even if it's not done, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-en-once-again", "once again, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-en-if-edit-add", "if it rains, add umbrella and move gym to friday", BASE, A("Umbrella"), {"+Umbrella"}),
    done2("cond-en-yes", [("if yoga is done, delete gym", D("Gym")), ("yes", "Ok.")], BASE, {"Gym: deleted"}),
    done2("cond-sv-ja", [("om yoga är klar, ta bort gym", D("Gym")), ("ja", "Ok.")], BASE, {"Gym: deleted"}),
    done2("cond-fr-oui", [("si yoga est fait, supprime gym", D("Gym")), ("oui", "Ok.")], BASE, {"Gym: deleted"}),
    held("cond-en-if-model-edit", "if yoga is done, move gym to friday", BASE, U("Gym", due_date="2026-12-11"), {}),
    held("cond-en-if-after-command", "delete gym if yoga is done", BASE, D("Gym"), {}),
    held("cond-en-unless", "unless taxes is done, delete gym", BASE, D("Gym"), {}),
    done("cond-fr-si-tu-peux", "si tu peux, supprime gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-fr-si-possible", "si possible supprime gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-fr-si-yes", "si, supprime gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-fr-si-si", "si si supprime gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-fr-si-so", "gym c'est si nul supprime le", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-fr-sil-te-plait", "s'il te plaît supprime gym", BASE, D("Gym"), {"Gym: deleted"}),
    done(
        "cond-fr-sil-vous-plait",
        "s'il vous plait, supprime gym et taxes",
        BASE,
        D("Gym", "Taxes"),
        {"Gym: deleted", "Taxes: deleted"},
    ),
    done("cond-fr-meme-si", "même si c'est pas fait supprime gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-fr-si-tu-veux-bien", "si tu veux bien, marque yoga comme fait", BASE, C("Yoga"), {"Yoga: completed"}),
    done("cond-sv-om-du-kan", "om du kan, ta bort gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-sv-om-mojligt", "kan du om möjligt ta bort gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-sv-tankt-om", "jag har tänkt om så ta bort gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-sv-om-about", "uppgiften om gym, ta bort den", ("Gym", "Taxes", "Yoga"), D("Gym"), {"Gym: deleted"}),
    done(
        "cond-sv-skriv-om",
        "skriv om gym till gympass och ta bort yoga",
        BASE,
        [*U("Gym", title="Gympass"), *D("Yoga")],
        {"Gym: edited", "Yoga: deleted"},
    ),
    done("cond-sv-om-en-timme", "ta bort gym och påminn mig om taxes", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-es-si-puedes", "si puedes, borra gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-de-wenn-du-kannst", "wenn du kannst, lösch Gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-it-se-puoi", "se puoi, cancella gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("cond-ur-agar-ho-sake", "agar ho sake to gym delete kar do", BASE, D("Gym"), {"Gym: deleted"}),
    # ---------------- C22: changes beside a command that the user did ask for
    done(
        "c22-yoga-is-done-too",
        "delete gym. yoga is done too",
        BASE,
        [*D("Gym"), *C("Yoga")],
        {"Gym: deleted", "Yoga: completed"},
    ),
    done(
        "c22-finished-taxes",
        "delete gym. I've finished taxes",
        BASE,
        [*D("Gym"), *C("Taxes")],
        {"Gym: deleted", "Taxes: completed"},
    ),
    done("c22-finished-taxes-alone", "I've finished taxes", BASE, C("Taxes"), {"Taxes: completed"}),
    done("c22-same-for", "remove gym, same for taxes", BASE, D("Gym", "Taxes"), {"Gym: deleted", "Taxes: deleted"}),
    done(
        "c22-same-goes",
        "delete gym, and the same goes for taxes",
        BASE,
        D("Gym", "Taxes"),
        {"Gym: deleted", "Taxes: deleted"},
    ),
    done(
        "c22-taxes-too-sentence", "delete gym. Taxes too.", BASE, D("Gym", "Taxes"), {"Gym: deleted", "Taxes: deleted"}
    ),
    done(
        "c22-taxes-as-well",
        "delete gym, taxes as well please",
        BASE,
        D("Gym", "Taxes"),
        {"Gym: deleted", "Taxes: deleted"},
    ),
    done("c22-ampersand", "delete gym & taxes", BASE, D("Gym", "Taxes"), {"Gym: deleted", "Taxes: deleted"}),
    done("c22-plus", "delete gym + taxes", BASE, D("Gym", "Taxes"), {"Gym: deleted", "Taxes: deleted"}),
    done("c22-then", "delete gym and then taxes", BASE, D("Gym", "Taxes"), {"Gym: deleted", "Taxes: deleted"}),
    done(
        "c22-no-longer-needed",
        "delete gym, taxes is not needed anymore either",
        BASE,
        D("Gym", "Taxes"),
        {"Gym: deleted", "Taxes: deleted"},
    ),
    done(
        "c22-complete-yoga-too",
        "mark gym done, yoga too",
        BASE,
        C("Gym", "Yoga"),
        {"Gym: completed", "Yoga: completed"},
    ),
    done("c22-yoga-done-comma", "add milk, yoga is done", BASE, [*A("Milk"), *C("Yoga")], {"+Milk", "Yoga: completed"}),
    done(
        "c22-de-dasselbe", "lösch Gym, dasselbe für Taxes", BASE, D("Gym", "Taxes"), {"Gym: deleted", "Taxes: deleted"}
    ),
    done(
        "c22-de-yoga-erledigt",
        "lösch Gym, Yoga ist erledigt",
        BASE,
        [*D("Gym"), *C("Yoga")],
        {"Gym: deleted", "Yoga: completed"},
    ),
    done(
        "c22-es-lo-mismo", "borra gym, lo mismo con taxes", BASE, D("Gym", "Taxes"), {"Gym: deleted", "Taxes: deleted"}
    ),
    done(
        "c22-es-yoga-hecho",
        "borra gym, yoga ya está hecho",
        BASE,
        [*D("Gym"), *C("Yoga")],
        {"Gym: deleted", "Yoga: completed"},
    ),
    done(
        "c22-fr-pareil", "supprime gym, pareil pour taxes", BASE, D("Gym", "Taxes"), {"Gym: deleted", "Taxes: deleted"}
    ),
    done(
        "c22-fr-yoga-fait",
        "supprime gym, yoga c'est fait",
        BASE,
        [*D("Gym"), *C("Yoga")],
        {"Gym: deleted", "Yoga: completed"},
    ),
    done("c22-it-idem", "cancella gym, idem per taxes", BASE, D("Gym", "Taxes"), {"Gym: deleted", "Taxes: deleted"}),
    done("c22-nl-ook", "verwijder gym, taxes ook", BASE, D("Gym", "Taxes"), {"Gym: deleted", "Taxes: deleted"}),
    done("c22-sv-ocksa", "ta bort gym, taxes också", BASE, D("Gym", "Taxes"), {"Gym: deleted", "Taxes: deleted"}),
    done("c22-pt-tambem", "apaga gym, taxes também", BASE, D("Gym", "Taxes"), {"Gym: deleted", "Taxes: deleted"}),
    done("c22-ur-bhi", "gym delete kar do, taxes bhi", BASE, D("Gym", "Taxes"), {"Gym: deleted", "Taxes: deleted"}),
    done2(
        "c22-yes",
        [("delete gym, I might finish yoga tomorrow", [*D("Gym"), *C("Yoga")]), ("yes", "Ok.")],
        BASE,
        {"Gym: deleted", "Yoga: completed"},
    ),
    held("c22-might-delete", "add milk, I might delete taxes later", BASE, [*A("Milk"), *D("Taxes")], {"+": ("Milk",)}),
    held("c22-yoga-was-fun", "complete gym. yoga was fun", BASE, C("Gym", "Yoga"), {"Gym": COM}),
    # ---------------- round 2
    done(
        "r2-if-whether-sure", "not sure if I need gym anymore, but delete taxes", BASE, D("Taxes"), {"Taxes: deleted"}
    ),
    done("r2-if-whether-dunno", "I don't know if yoga is done but delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-if-whether-see", "see if yoga is done and add milk", BASE, A("Milk"), {"+Milk"}),
    done(
        "r2-if-whether-wondering",
        "wondering if gym is still on, anyway complete yoga",
        BASE,
        C("Yoga"),
        {"Yoga: completed"},
    ),
    done("r2-fr-dis-moi-si", "dis-moi si yoga est fait et supprime gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-fr-sais-pas-si", "je sais pas si j'ai fini yoga mais supprime gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-sv-kolla-om", "kolla om yoga är klar och ta bort gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-sv-vet-inte-om", "jag vet inte om yoga är klar men ta bort gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-once-and-for-all", "once and for all, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-as-soon-as-you-can", "as soon as you can, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done(
        "r2-if-not-trouble",
        "if it's not too much trouble, delete gym and add milk",
        BASE,
        [*D("Gym"), *A("Milk")],
        {"Gym: deleted", "+Milk"},
    ),
    done("r2-if-able", "if you're able to, mark gym done", BASE, C("Gym"), {"Gym: completed"}),
    done(
        "r2-delete-then-if-add",
        "delete gym and if yoga is done, add stretching",
        BASE,
        [*D("Gym"), *A("Stretching")],
        {"Gym: deleted", "+Stretching"},
    ),
    done("r2-delete-if-ok-after", "delete gym, if that's ok", BASE, D("Gym"), {"Gym: deleted"}),
    done(
        "r2-sv-om-du-vill",
        "ta bort gym och om du vill även taxes",
        BASE,
        D("Gym", "Taxes"),
        {"Gym: deleted", "Taxes: deleted"},
    ),
    done(
        "r2-fr-si-tu-peux-2",
        "supprime gym et si tu peux, raye yoga",
        BASE,
        [*D("Gym"), *C("Yoga")],
        {"Gym: deleted", "Yoga: completed"},
    ),
    # reports of completion beside a command
    done(
        "r2-gym-done-delete-taxes",
        "gym is done. delete taxes",
        BASE,
        [*C("Gym"), *D("Taxes")],
        {"Gym: completed", "Taxes: deleted"},
    ),
    done(
        "r2-btw", "delete taxes, gym's done btw", BASE, [*D("Taxes"), *C("Gym")], {"Taxes: deleted", "Gym: completed"}
    ),
    done(
        "r2-finished-yoga-excl",
        "finished yoga! also delete gym",
        BASE,
        [*C("Yoga"), *D("Gym")],
        {"Yoga: completed", "Gym: deleted"},
    ),
    done(
        "r2-es-termine",
        "ya terminé yoga, borra gym",
        BASE,
        [*C("Yoga"), *D("Gym")],
        {"Yoga: completed", "Gym: deleted"},
    ),
    done(
        "r2-de-erledigt",
        "Yoga hab ich erledigt, lösch Gym",
        BASE,
        [*C("Yoga"), *D("Gym")],
        {"Yoga: completed", "Gym: deleted"},
    ),
    done(
        "r2-fr-fini", "j'ai fini yoga, supprime gym", BASE, [*C("Yoga"), *D("Gym")], {"Yoga: completed", "Gym: deleted"}
    ),
    done("r2-sv-klar", "yoga är klar, ta bort gym", BASE, [*C("Yoga"), *D("Gym")], {"Yoga: completed", "Gym: deleted"}),
    done(
        "r2-nl-klaar",
        "yoga is klaar, verwijder gym",
        BASE,
        [*C("Yoga"), *D("Gym")],
        {"Yoga: completed", "Gym: deleted"},
    ),
    done(
        "r2-it-finito",
        "ho finito yoga, cancella gym",
        BASE,
        [*C("Yoga"), *D("Gym")],
        {"Yoga: completed", "Gym: deleted"},
    ),
    done(
        "r2-pt-terminei", "terminei yoga, apaga gym", BASE, [*C("Yoga"), *D("Gym")], {"Yoga: completed", "Gym: deleted"}
    ),
    done(
        "r2-ur-ho-gaya",
        "yoga ho gaya, gym delete kar do",
        BASE,
        [*C("Yoga"), *D("Gym")],
        {"Yoga: completed", "Gym: deleted"},
    ),
    # keeps that keep no title / keep verbs with other meanings
    done("r2-leave-me-alone", "leave me alone, just delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-de-lass-mich", "lass mich in Ruhe und lösch einfach Gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-nl-laat-me", "laat me met rust en verwijder gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-sv-inga-pass-kvar", "ta bort gym, har inga pass kvar", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-en-rest-alone", "delete gym, leave the rest alone", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-de-rest", "lösch Gym, lass den Rest stehen", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-nl-rest", "verwijder gym, laat de rest staan", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-sv-rest", "ta bort gym, låt resten vara", BASE, D("Gym"), {"Gym: deleted"}),
    done(
        "r2-let-be-due",
        "delete gym, let taxes be due friday",
        BASE,
        [*D("Gym"), *U("Taxes", due_date="2026-12-11")],
        {"Gym: deleted", "Taxes: edited"},
    ),
    done(
        "r2-keep-as-is-move",
        "keep taxes as is but move gym to friday",
        BASE,
        U("Gym", due_date="2026-12-11"),
        {"Gym: edited"},
    ),
    done("r2-keep-long-title", "delete gym, keep gym class", with_("Gym class"), D("Gym"), {"Gym: deleted"}),
    held(
        "r2-keep-long-title-model-both",
        "delete gym, keep gym class",
        with_("Gym class"),
        D("Gym", "Gym class"),
        {"Gym": DEL},
    ),
    done("r2-not-gym-bag", "delete gym but not gym bag", with_("Gym bag"), D("Gym"), {"Gym: deleted"}),
    held(
        "r2-not-gym-bag-model-both", "delete gym but not gym bag", with_("Gym bag"), D("Gym", "Gym bag"), {"Gym": DEL}
    ),
    # two-way verbs with context that says which
    done("r2-es-tacha-no-necesito", "tacha gym de la lista, ya no lo necesito", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-fr-raye-plus-besoin", "raye gym, j'en ai plus besoin", BASE, D("Gym"), {"Gym: deleted"}),
    done("r2-strike-off-its-done", "strike off gym, it's done", BASE, C("Gym"), {"Gym: completed"}),
    held("r2-strike-off-and-delete", "strike off taxes and remove gym", BASE, D("Taxes", "Gym"), {"Gym": DEL}),
    held("r2-de-streich-und-loesch", "lösch Gym und streich Taxes durch", BASE, D("Gym", "Taxes"), {"Gym": DEL}),
    done2(
        "r2-strike-then-just-delete",
        [("strike off gym", D("Gym")), ("just delete it", D("Gym"))],
        BASE,
        {"Gym: deleted"},
    ),
    done2(
        "r2-strike-then-its-done", [("tacha gym", D("Gym")), ("no, ya está hecho", C("Gym"))], BASE, {"Gym: completed"}
    ),
    # ---------------- round 3
    done("r3-check-if-complete", "check if taxes is due and mark gym done", BASE, C("Gym"), {"Gym: completed"}),
    done("r3-ask-if", "ask mom if she's coming and delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r3-fr-verifie-si", "vérifie si yoga est fait et supprime gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r3-sv-se-om", "se om yoga är klar och bocka av gym", BASE, C("Gym"), {"Gym: completed"}),
    done(
        "r3-title-if",
        "mark see if gym is open as done",
        ("See if gym is open", "Taxes", "Yoga"),
        C("See if gym is open"),
        {"See if gym is open: completed"},
    ),
    done(
        "r3-title-if-delete",
        "delete ask if rent is due",
        ("Ask if rent is due", "Taxes", "Yoga"),
        D("Ask if rent is due"),
        {"Ask if rent is due: deleted"},
    ),
    done(
        "r3-title-once",
        "once a week plants is done",
        ("Once a week plants", "Taxes"),
        C("Once a week plants"),
        {"Once a week plants: completed"},
    ),
    done(
        "r3-sv-title-om",
        "fråga om lönen är klar, bocka av den",
        ("Fråga om lönen", "Gym"),
        C("Fråga om lönen"),
        {"Fråga om lönen: completed"},
    ),
    done(
        "r3-sv-om-about-verb",
        "uppgiften om tandläkaren kan du ta bort",
        ("Tandläkaren", "Gym"),
        D("Tandläkaren"),
        {"Tandläkaren: deleted"},
    ),
    done(
        "r3-fr-title-si",
        "supprime demander si loyer payé",
        ("Demander si loyer payé", "Gym"),
        D("Demander si loyer payé"),
        {"Demander si loyer payé: deleted"},
    ),
    done("r3-fr-si-long", "c'est si long, supprime yoga", BASE, D("Yoga"), {"Yoga: deleted"}),
    done("r3-what-if", "what if you just delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r3-if-you-could", "if you could delete gym that'd be great", BASE, D("Gym"), {"Gym: deleted"}),
    done(
        "r3-if-you-could-2",
        "if you could delete gym and taxes, thanks",
        BASE,
        D("Gym", "Taxes"),
        {"Gym: deleted", "Taxes: deleted"},
    ),
    done("r3-if-you-would", "if you would, mark yoga done", BASE, C("Yoga"), {"Yoga: completed"}),
    done("r3-fr-si-tu-pouvais", "si tu pouvais supprimer gym ce serait top", BASE, D("Gym"), {"Gym: deleted"}),
    done("r3-sv-om-du-kunde", "om du kunde ta bort gym vore det toppen", BASE, D("Gym"), {"Gym: deleted"}),
    done("r3-if-edit-polite", "if you can, move gym to friday", BASE, U("Gym", due_date="2026-12-11"), {"Gym: edited"}),
    done("r3-once-youre-done", "once you're done, mark yoga complete", BASE, C("Yoga"), {"Yoga: completed"}),
    # keeps of two titles with a closing word
    done("r3-keep-two-for-now", "delete gym, keep taxes and yoga for now", BASE, D("Gym"), {"Gym: deleted"}),
    done("r3-nl-two-staan", "verwijder gym, laat taxes en yoga staan", BASE, D("Gym"), {"Gym: deleted"}),
    done("r3-sv-two-vara", "ta bort gym, låt taxes och yoga vara", BASE, D("Gym"), {"Gym: deleted"}),
    done("r3-de-two-stehen", "lösch Gym, lass Taxes und Yoga stehen", BASE, D("Gym"), {"Gym: deleted"}),
    done(
        "r3-num-item-2-3", "delete item 2, keep item 3", ("Item 2", "Item 3", "Gym"), D("Item 2"), {"Item 2: deleted"}
    ),
    done(
        "r3-num-two-kept",
        "delete taxes 2023, keep taxes 2024 and 2025",
        ("Taxes 2023", "Taxes 2024", "Taxes 2025"),
        D("Taxes 2023"),
        {"Taxes 2023: deleted"},
    ),
    done(
        "r3-keep-long-of-short-alone",
        "delete gym, leave gym class alone",
        with_("Gym class"),
        D("Gym"),
        {"Gym: deleted"},
    ),
    done("r3-de-keep-long", "lösch Gym, lass Gym Tasche stehen", with_("Gym Tasche"), D("Gym"), {"Gym: deleted"}),
    done(
        "r3-keep-short-del-long",
        "delete gym class, keep gym",
        with_("Gym class"),
        D("Gym class"),
        {"Gym class: deleted"},
    ),
    held(
        "r3-keep-short-del-long-both",
        "delete gym class, keep gym",
        with_("Gym class"),
        D("Gym class", "Gym"),
        {"Gym class": DEL},
    ),
    # T20 deeper
    done(
        "r3-t20-three-levels",
        "delete hot yoga class",
        ("Yoga", "Yoga class", "Hot yoga class", "Gym"),
        D("Hot yoga class", "Yoga class", "Yoga"),
        {"Hot yoga class: deleted"},
    ),
    done(
        "r3-t20-complete-both-named",
        "mark yoga mat and yoga done",
        with_("Yoga mat"),
        C("Yoga mat", "Yoga"),
        {"Yoga mat: completed", "Yoga: completed"},
    ),
    done(
        "r3-t20-ones",
        "delete the gym one and the gym class one",
        with_("Gym class"),
        D("Gym", "Gym class"),
        {"Gym: deleted", "Gym class: deleted"},
    ),
    done(
        "r3-t20-two-sentences",
        "delete gym class. delete gym too.",
        with_("Gym class"),
        D("Gym class", "Gym"),
        {"Gym: deleted", "Gym class: deleted"},
    ),
    done(
        "r3-t20-es-tambien",
        "borra clase de yoga y también yoga",
        with_("Clase de yoga"),
        D("Clase de yoga", "Yoga"),
        {"Yoga: deleted", "Clase de yoga: deleted"},
    ),
    done(
        "r3-t20-fr-aussi",
        "supprime cours de yoga et yoga aussi",
        with_("Cours de yoga"),
        D("Cours de yoga", "Yoga"),
        {"Yoga: deleted", "Cours de yoga: deleted"},
    ),
    # C21 / C22 follow-ups
    done2(
        "r3-de-streich-nein-loesch",
        [("streich Gym durch", D("Gym")), ("ja, lösch es", D("Gym"))],
        BASE,
        {"Gym: deleted"},
    ),
    done2(
        "r3-c22-then-yes-complete",
        [("ya terminé yoga, borra gym", [*C("Yoga"), *D("Gym")]), ("sí", "Ok.")],
        BASE,
        {"Gym: deleted", "Yoga: completed"},
    ),
    done(
        "r3-c22-done-with",
        "delete gym, also done with yoga",
        BASE,
        [*D("Gym"), *C("Yoga")],
        {"Gym: deleted", "Yoga: completed"},
    ),
    done(
        "r3-c22-add-and-done", "add milk, and I did yoga", BASE, [*A("Milk"), *C("Yoga")], {"+Milk", "Yoga: completed"}
    ),
    # ---------------- round 4
    done2(
        "r4-strike-yes-delete-it", [("strike off gym", D("Gym")), ("yes, delete it", D("Gym"))], BASE, {"Gym: deleted"}
    ),
    done2(
        "r4-strike-yes-please-delete",
        [("please strike gym off the list", D("Gym")), ("yes please delete gym", D("Gym"))],
        BASE,
        {"Gym: deleted"},
    ),
    done2("r4-es-si-borralo", [("tacha gym", D("Gym")), ("sí, bórralo", D("Gym"))], BASE, {"Gym: deleted"}),
    done2("r4-fr-oui-supprime", [("raye gym", D("Gym")), ("oui, supprime-le", D("Gym"))], BASE, {"Gym: deleted"}),
    done2("r4-sv-ja-ta-bort", [("stryk över gym", D("Gym")), ("ja, ta bort den", D("Gym"))], BASE, {"Gym: deleted"}),
    done2(
        "r4-strike-no-complete-it",
        [("strike off gym", D("Gym")), ("no, complete it", C("Gym"))],
        BASE,
        {"Gym: completed"},
    ),
    done2(
        "r4-strike-no-its-done",
        [("strike through gym", D("Gym")), ("no, it's done", C("Gym"))],
        BASE,
        {"Gym: completed"},
    ),
    done2(
        "r4-c22-yes-complete-it",
        [("delete gym. yoga is done too", [*D("Gym"), *C("Yoga")]), ("yes, complete it", C("Yoga"))],
        BASE,
        {"Gym: deleted", "Yoga: completed"},
    ),
    done2(
        "r4-cond-yes-delete-it",
        [("if yoga is done, delete gym", D("Gym")), ("yes, delete it", D("Gym"))],
        BASE,
        {"Gym: deleted"},
    ),
    done2(
        "r4-t20-yes-delete-it",
        [("delete gym class", D("Gym")), ("yes, delete it", D("Gym class"))],
        with_("Gym class"),
        {"Gym class: deleted"},
    ),
    done(
        "r4-title-once-home",
        "call mom once home is done",
        ("Call mom once home", "Gym"),
        C("Call mom once home"),
        {"Call mom once home: completed"},
    ),
    done(
        "r4-title-unless",
        "finished pay rent unless late, delete gym",
        ("Pay rent unless late", "Gym", "Yoga"),
        [*C("Pay rent unless late"), *D("Gym")],
        {"Pay rent unless late: completed", "Gym: deleted"},
    ),
    done(
        "r4-fr-title-voir-si",
        "voir si le loyer est payé, c'est fait",
        ("Voir si le loyer est payé", "Gym"),
        C("Voir si le loyer est payé"),
        {"Voir si le loyer est payé: completed"},
    ),
    done(
        "r4-sv-title-prata-om",
        "prata om budget är gjort",
        ("Prata om budget", "Gym"),
        C("Prata om budget"),
        {"Prata om budget: completed"},
    ),
    done(
        "r4-sv-title-om-delete",
        "ta bort prata om budget och gym",
        ("Prata om budget", "Gym", "Yoga"),
        D("Prata om budget", "Gym"),
        {"Prata om budget: deleted", "Gym: deleted"},
    ),
    done(
        "r4-title-if-complete-report",
        "see if gym is open is done, delete taxes",
        ("See if gym is open", "Taxes", "Yoga"),
        [*C("See if gym is open"), *D("Taxes")],
        {"See if gym is open: completed", "Taxes: deleted"},
    ),
    done(
        "r4-title-if-plain-complete",
        "complete ask if rent is due",
        ("Ask if rent is due", "Taxes", "Yoga"),
        C("Ask if rent is due"),
        {"Ask if rent is due: completed"},
    ),
    done(
        "r4-title-if-delete-plain-mark",
        "mark ask if rent is due done",
        ("Ask if rent is due", "Taxes", "Yoga"),
        C("Ask if rent is due"),
        {"Ask if rent is due: completed"},
    ),
    done(
        "r4-cond-add-delete-same-msg",
        "if it rains, add umbrella, and delete gym",
        BASE,
        [*A("Umbrella"), *D("Gym")],
        {"+Umbrella", "Gym: deleted"},
    ),
    done(
        "r4-cond-semicolon",
        "if it rains add umbrella; delete gym",
        BASE,
        [*A("Umbrella"), *D("Gym")],
        {"+Umbrella", "Gym: deleted"},
    ),
    done("r4-cond-but", "if it's sunny I'll go out, but delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r4-cond-because", "since yoga is done, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r4-cond-now-that", "now that yoga is done, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r4-fr-puisque", "puisque yoga est fait, supprime gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r4-sv-eftersom", "eftersom yoga är klar, ta bort gym", BASE, D("Gym"), {"Gym: deleted"}),
    # ---------------- round 5
    done("r5-if-still-on-list", "if gym is still on my list, delete it", BASE, D("Gym"), {"Gym: deleted"}),
    done("r5-fr-si-encore", "si gym est encore dans la liste, supprime-le", BASE, D("Gym"), {"Gym: deleted"}),
    done("r5-sv-om-kvar", "om gym finns kvar, ta bort den", BASE, D("Gym"), {"Gym: deleted"}),
    done2(
        "r5-plain-c13-yes-delete-it",
        [("gym should go", D("Gym")), ("yes, delete it", D("Gym"))],
        BASE,
        {"Gym: deleted"},
    ),
    done("r5-keep-me-posted", "keep me posted, and delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("r5-leave-note", "delete gym and leave taxes for next week", BASE, D("Gym"), {"Gym: deleted"}),
    done("r5-de-lass-drin-stehen", "lösch Gym, lass Yoga drin stehen", BASE, D("Gym"), {"Gym: deleted"}),
    done("r5-nl-voor-nu", "verwijder gym, hou taxes voor nu", BASE, D("Gym"), {"Gym: deleted"}),
    done("r5-sv-tills-vidare", "ta bort gym, behåll taxes tills vidare", BASE, D("Gym"), {"Gym: deleted"}),
    done(
        "r5-fr-si-possible-comma",
        "si possible, supprime gym et taxes",
        BASE,
        D("Gym", "Taxes"),
        {"Gym: deleted", "Taxes: deleted"},
    ),
    done(
        "r5-en-once-done-complete", "I'm done with yoga once and for all, delete it", BASE, D("Yoga"), {"Yoga: deleted"}
    ),
]


@pytest.mark.parametrize(("turns", "titles", "asked", "want"), CASES)
async def test_review3(
    make_client: MakeClient,
    turns: list[tuple[str, Any]],
    titles: tuple[Any, ...],
    asked: dict[str, Any],
    want: set[str] | None,
) -> None:
    await run_case(make_client, turns, titles, asked, want)
