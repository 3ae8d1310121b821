"""A title named inside a longer title the user named is not named (issue 48 #3: exact titles win).

With tasks *Gym* and *Gym class*, "delete gym class" names *Gym class*; its "gym" is not the user
naming *Gym*. A model that also (or only) deletes *Gym* must not have that run: the change the words
name is run or asked about, the other is refused. Where the user names the shorter title apart
("delete gym and gym class"), or no task has the longer title, both behave as before. Written before
the change, in nine languages; the harness is tests/support/review2.py (the effects after the last
turn, no change the user did not ask for, and with `want` those effects at once, no question).
"""

from __future__ import annotations

from support.review2 import BASE, COM, DEL, UPD, A, C, Cases, D, U, review_test, with_

_cases = Cases()
done, done2, held = _cases.done, _cases.done2, _cases.held2  # `held` of turns

CASES = [
    # -- The model changes the longer title the user named and the shorter one inside it.
    done("en-gym-class", "delete gym class", with_("Gym class"), D("Gym class", "Gym"), {"Gym class: deleted"}),
    done(
        "en-yoga-mat-task",
        "please remove the yoga mat task",
        with_("Yoga mat"),
        D("Yoga mat", "Yoga"),
        {"Yoga mat: deleted"},
    ),
    done("en-pay-rent", "mark pay rent as done", with_("Rent"), C("Pay rent", "Rent"), {"Pay rent: completed"}),
    done(
        "en-call-mom-back",
        "tick off call mom back",
        with_("Call mom back"),
        C("Call mom back", "Call mom"),
        {"Call mom back: completed"},
    ),
    done(
        "en-taxes-2024", "get rid of taxes 2024", with_("Taxes 2024"), D("Taxes 2024", "Taxes"), {"Taxes 2024: deleted"}
    ),
    done("en-typo", "delete gym clss", with_("Gym class"), D("Gym class", "Gym"), {"Gym class: deleted"}),
    done(
        "en-move",
        "move gym class to friday",
        with_("Gym class"),
        U("Gym class", "Gym", due_date="2026-12-11"),
        {"Gym class: edited"},
    ),
    done("de-tasche", "lösch Gym Tasche", with_("Gym Tasche"), D("Gym Tasche", "Gym"), {"Gym Tasche: deleted"}),
    done(
        "de-miete",
        "hak Miete zahlen ab",
        ("Miete zahlen", "Miete", "Yoga"),
        C("Miete zahlen", "Miete"),
        {"Miete zahlen: completed"},
    ),
    done(
        "es-clase",
        "borra clase de yoga",
        with_("Clase de yoga"),
        D("Clase de yoga", "Yoga"),
        {"Clase de yoga: deleted"},
    ),
    done(
        "es-alquiler",
        "marca pagar alquiler como hecha",
        ("Pagar alquiler", "Alquiler", "Gym"),
        C("Pagar alquiler", "Alquiler"),
        {"Pagar alquiler: completed"},
    ),
    done(
        "fr-cours",
        "supprime la tâche cours de yoga",
        with_("Cours de yoga"),
        D("Cours de yoga", "Yoga"),
        {"Cours de yoga: deleted"},
    ),
    done(
        "it-lezione",
        "elimina lezione di yoga",
        with_("Lezione di yoga"),
        D("Lezione di yoga", "Yoga"),
        {"Lezione di yoga: deleted"},
    ),
    done("pt-aula", "apaga aula de yoga", with_("Aula de yoga"), D("Aula de yoga", "Yoga"), {"Aula de yoga: deleted"}),
    done("nl-les", "verwijder yoga les", with_("Yoga les"), D("Yoga les", "Yoga"), {"Yoga les: deleted"}),
    done("sv-pass", "ta bort yoga pass", with_("Yoga pass"), D("Yoga pass", "Yoga"), {"Yoga pass: deleted"}),
    done("ur-class", "gym class delete kar do", with_("Gym class"), D("Gym class", "Gym"), {"Gym class: deleted"}),
    # -- The model changes only the shorter title: it is asked about the user's task, or refused.
    held("en-only-short", [("delete gym class", D("Gym"))], with_("Gym class"), {"Gym class": DEL}),
    held("de-only-short", [("lösch Gym Tasche", D("Gym"))], with_("Gym Tasche"), {"Gym Tasche": DEL}),
    held(
        "es-only-short",
        [("marca pagar alquiler como hecha", C("Alquiler"))],
        ("Pagar alquiler", "Alquiler"),
        {"Pagar alquiler": COM},
    ),
    held(
        "en-rename-short",
        [("rename gym class to spin class", U("Gym", title="Spin class"))],
        with_("Gym class"),
        {"Gym class": UPD},
    ),
    done2(
        "en-only-short-yes",
        [("delete gym class", D("Gym")), ("yes", "Ok.")],
        with_("Gym class"),
        {"Gym class: deleted"},
    ),
    done2(
        "de-only-short-ja",
        [("lösch Gym Tasche", D("Gym")), ("ja", "Ok.")],
        with_("Gym Tasche"),
        {"Gym Tasche: deleted"},
    ),
    # -- Controls: the shorter title named apart, or no longer title among the tasks.
    done(
        "en-both",
        "delete gym and gym class",
        with_("Gym class"),
        D("Gym", "Gym class"),
        {"Gym: deleted", "Gym class: deleted"},
    ),
    done(
        "en-both-after",
        "delete gym class, and gym too",
        with_("Gym class"),
        D("Gym class", "Gym"),
        {"Gym: deleted", "Gym class: deleted"},
    ),
    done(
        "de-both",
        "lösch Gym Tasche und Gym",
        with_("Gym Tasche"),
        D("Gym Tasche", "Gym"),
        {"Gym: deleted", "Gym Tasche: deleted"},
    ),
    done(
        "es-both",
        "borra yoga y clase de yoga",
        with_("Clase de yoga"),
        D("Yoga", "Clase de yoga"),
        {"Yoga: deleted", "Clase de yoga: deleted"},
    ),
    done("en-no-longer-task", "delete gym class", BASE, D("Gym"), {"Gym: deleted"}),
    done("en-short-named", "delete gym", with_("Gym class"), D("Gym"), {"Gym: deleted"}),
    held("en-short-named-long-changed", [("delete gym", D("Gym class"))], with_("Gym class"), {"Gym": DEL}),
    done("en-rent", "complete rent", ("Pay rent", "Rent", "Gym"), C("Rent"), {"Rent: completed"}),
    # a longer title that is the command's verb and the title names no other task: the verb is the command's
    done("en-verb-title", "delete gym", ("Gym", "Delete gym", "Yoga"), D("Gym"), {"Gym: deleted"}),
    done("en-complete-report", "complete report", ("Report", "Complete report"), C("Report"), {"Report: completed"}),
    done("de-verb-title", "lösch Gym", ("Gym", "Lösch Gym", "Yoga"), D("Gym"), {"Gym: deleted"}),
    # "Item 1" is no part of "Item 10" (its number differs): the model's extra delete is asked about, as before.
    held("en-item-10", [("delete item 10", D("Item 10", "Item 1"))], ("Item 1", "Item 10", "Gym"), {"Item 10": DEL}),
    done("en-item-1", "delete item 1", ("Item 1", "Item 10", "Gym"), D("Item 1"), {"Item 1: deleted"}),
    done(
        "en-add-beside",
        "add gym class and delete gym",
        BASE,
        [*A("Gym class"), *D("Gym")],
        {"Gym: deleted", "+Gym class"},
    ),
]


test_a_title_inside_the_named_one_is_not_named = review_test(CASES)
