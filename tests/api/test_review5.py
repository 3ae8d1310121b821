"""Fifth blind review (2026-12-08, 253 cases) of T20's longer titles in another order (5db8455), the
courtesy conditions read as request frames (4f06385, reverted after this review: 21 changes nobody
asked for) and the mend of the yes said again (39ce5cf: three question marks of other scripts ran,
mended since). What still fails is a strict xfail with its kind (`KNOWN`); all of it failed the same
before the changes reviewed. Harness: tests/support/review2.py."""

from __future__ import annotations

from typing import Any

import pytest
from support.review2 import BASE, COM, DEL, A, C, D, known, review_test, with_

OLDER = "older: fails the same before the changes reviewed (e405060)"
COURTESY = (
    f"{OLDER}: a courtesy condition with no comma ('if you could delete gym') reads as a supposition and is asked;"
    " read as a request frame in 4f06385, reverted after this review (21 changes nobody asked for)"
)
APART = (
    f"{OLDER}: T20 reads a longer title only where its words stand together in one action's words: not"
    " 'the report for Q3', 'los impuestos de 2024', one split over two items ('delete mom, call dad'), titles"
    " of the same words ('Call mom', 'Mom call'), nor a keep ('keep 2024 taxes, delete taxes')"
)
KNOWN = {
    **dict.fromkeys(
        [
            "p-de-falls-es-geht",
            "p-en-able",
            "p-en-add",
            "p-en-cap",
            "p-en-get-chance",
            "p-en-okay",
            "p-en-please-remove",
            "p-en-possible-mark",
            "p-en-u-can",
            "p-es-no-molestia",
            "p-es-pudieras",
            "p-es-se-puede",
            "p-es-te-es-posible",
            "p-fr-cest-possible",
            "p-fr-pouvais",
            "p-fr-voulez-bien",
            "p-it-fosse",
            "p-it-non-dispiace",
            "p-it-riesci",
            "p-nl-wil",
            "p-nl-zo-mogelijk",
            "p-pt-conseguir",
            "p-pt-der",
            "p-pt-nao-incomodo",
            "p-sv-har-tid",
            "p-sv-kunde",
            "p-sv-mojligt",
            "p-ur-chahen",
            "p-ur-ho-sake",
            "p-ur-kar-saken",
            "y-en-if-you-could",
            "y-es-si-elimina",
        ],
        COURTESY,
    ),
    **dict.fromkeys(
        [
            "t-en-2024-comma-taxes-model",
            "t-en-call-mom",
            "t-en-fence-paint-model",
            "t-en-keep-2024",
            "t-en-milk-buy-model",
            "t-en-mom-call",
            "t-en-mom-comma-call-model",
            "t-en-report-for-q3",
            "t-es-de-2024",
        ],
        APART,
    ),
    **dict.fromkeys(
        ["t-en-dont-2024-just", "t-en-milk-buy", "t-en-stays", "t-en-taxes-2024-and-2025"],
        f"{OLDER}: a needless question beside a longer title",
    ),
    "c-en-could-not-find": f"{OLDER}: 'if you could not find yoga, delete gym' completes Yoga (a no in a condition)",
    "o-en-comma-remind": f"{OLDER}: 'if you can, remind me to delete gym' adds a task titled with the message",
}

G = ("gym should go", D("Gym"))
GY = ("yoga is finished I think", C("Yoga"))
G2 = ("gym and taxes should go", D("Gym", "Taxes"))
T4 = ("Taxes", "Taxes 2024", "Gym", "Yoga")
GW = [*D("Gym"), *C("Yoga")]


def done(cid: str, message: str, titles: Any, calls: Any, want: set[str]) -> Any:
    asked: dict[str, Any] = {}
    for e in want:
        if e.startswith("+"):
            asked.setdefault("+", ())
            asked["+"] = (*asked["+"], e[1:])
        else:
            t, v = e.split(": ")
            asked[t] = {"deleted": DEL, "completed": COM, "edited": "update"}[v]
    return pytest.param([(message, calls)], titles, asked, want, id=cid, marks=known(KNOWN, cid))


def held(cid: str, message: str, titles: Any, calls: Any, asked: dict[str, Any] | None = None) -> Any:
    return pytest.param([(message, calls)], titles, asked or {}, None, id=cid, marks=known(KNOWN, cid))


def yes_runs(cid: str, answer: str, first: Any = G, calls: Any = None) -> Any:
    turns = [first, (answer, calls or D("Gym"))]
    return pytest.param(turns, BASE, {"Gym": DEL}, {"Gym: deleted"}, id=cid, marks=known(KNOWN, cid))


def no_run(cid: str, answer: str, first: Any = G, calls: Any = None, ok: dict[str, Any] | None = None) -> Any:
    """Gym must not go at once; `ok`: what else the answer asks itself ("and taxes")."""
    return pytest.param([first, (answer, calls or D("Gym"))], BASE, ok or {}, None, id=cid, marks=known(KNOWN, cid))


# ---------------- 1. T20: a longer title said in another order
T20 = [
    done("t-en-the-2024", "delete the 2024 taxes please", T4, D("Taxes 2024", "Taxes"), {"Taxes 2024: deleted"}),
    done("t-en-my-task", "delete my 2024 taxes task", T4, D("Taxes 2024", "Taxes"), {"Taxes 2024: deleted"}),
    done(
        "t-en-and-gym",
        "remove 2024 taxes and gym",
        T4,
        D("Taxes 2024", "Taxes", "Gym"),
        {"Taxes 2024: deleted", "Gym: deleted"},
    ),
    done(
        "t-en-both-rev",
        "delete 2024 taxes and taxes",
        T4,
        D("Taxes 2024", "Taxes"),
        {"Taxes 2024: deleted", "Taxes: deleted"},
    ),
    done(
        "t-en-both-too",
        "delete 2024 taxes, taxes too",
        T4,
        D("Taxes 2024", "Taxes"),
        {"Taxes 2024: deleted", "Taxes: deleted"},
    ),
    done(
        "t-en-both-then",
        "delete taxes and then 2024 taxes",
        T4,
        D("Taxes 2024", "Taxes"),
        {"Taxes 2024: deleted", "Taxes: deleted"},
    ),
    done(
        "t-en-2025",
        "delete 2025 taxes",
        ("Taxes", "Taxes 2024", "Taxes 2025", "Gym"),
        D("Taxes 2025", "Taxes"),
        {"Taxes 2025: deleted"},
    ),
    done(
        "t-en-2024-2025",
        "delete 2024 taxes and 2025 taxes",
        ("Taxes", "Taxes 2024", "Taxes 2025", "Gym"),
        D("Taxes 2024", "Taxes 2025", "Taxes"),
        {"Taxes 2024: deleted", "Taxes 2025: deleted"},
    ),
    done(
        "t-en-taxes-2024-and-2025",
        "delete taxes 2024 and 2025",
        ("Taxes", "Taxes 2024", "Taxes 2025", "Gym"),
        D("Taxes 2024", "Taxes 2025", "Taxes"),
        {"Taxes 2024: deleted", "Taxes 2025: deleted"},
    ),
    done(
        "t-en-two-actions",
        "complete 2024 taxes and delete taxes",
        T4,
        [*C("Taxes 2024"), *D("Taxes")],
        {"Taxes 2024: completed", "Taxes: deleted"},
    ),
    done(
        "t-en-two-actions-extra",
        "complete 2024 taxes and delete gym",
        T4,
        [*C("Taxes 2024", "Taxes"), *D("Gym")],
        {"Taxes 2024: completed", "Gym: deleted"},
    ),
    done(
        "t-en-two-lines",
        "complete taxes\ndelete 2024 taxes",
        T4,
        [*C("Taxes"), *D("Taxes 2024", "Taxes")],
        {"Taxes: completed", "Taxes 2024: deleted"},
    ),
    done("t-en-typo", "delete 2024 taxs", T4, D("Taxes 2024", "Taxes"), {"Taxes 2024: deleted"}),
    done("t-en-singular", "delete the 2024 tax", T4, D("Taxes 2024", "Taxes"), {"Taxes 2024: deleted"}),
    done(
        "t-en-q3-plural",
        "delete the Q3 reports",
        ("Report", "Report Q3", "Gym"),
        D("Report Q3", "Report"),
        {"Report Q3: deleted"},
    ),
    done(
        "t-en-report-for-q3",
        "delete the report for Q3",
        ("Report", "Report Q3", "Gym"),
        D("Report Q3", "Report"),
        {"Report Q3: deleted"},
    ),
    done(
        "t-en-mom-call",
        "delete mom call",
        ("Call mom", "Mom call", "Gym"),
        D("Mom call", "Call mom"),
        {"Mom call: deleted"},
    ),
    done(
        "t-en-call-mom",
        "delete call mom",
        ("Call mom", "Mom call", "Gym"),
        D("Call mom", "Mom call"),
        {"Call mom: deleted"},
    ),
    done(
        "t-en-call-mom-and-mom-call",
        "delete call mom and mom call",
        ("Call mom", "Mom call", "Gym"),
        D("Call mom", "Mom call"),
        {"Call mom: deleted", "Mom call: deleted"},
    ),
    done(
        "t-en-sunday-mom-call",
        "delete the sunday mom call",
        with_("Call mom sunday"),
        D("Call mom sunday", "Call mom"),
        {"Call mom sunday: deleted"},
    ),
    done("t-en-mom-comma-call", "delete mom, call dad", ("Mom", "Call mom", "Gym"), D("Mom"), {"Mom: deleted"}),
    held(
        "t-en-mom-comma-call-model",
        "delete mom, call dad",
        ("Mom", "Call mom", "Gym"),
        D("Mom", "Call mom"),
        {"Mom": DEL},
    ),
    done(
        "t-en-milk-buy",
        "delete milk, buy eggs",
        ("Milk", "Buy milk", "Gym"),
        [*D("Milk"), *A("Eggs")],
        {"Milk: deleted", "+Eggs"},
    ),
    held(
        "t-en-milk-buy-model",
        "delete milk, buy eggs",
        ("Milk", "Buy milk", "Gym"),
        [*D("Milk", "Buy milk"), *A("Eggs")],
        {"Milk": DEL, "+": ("Eggs",)},
    ),
    done("t-en-rent-pay", "delete rent, pay taxes later", with_("Rent"), D("Rent"), {"Rent: deleted"}),
    done(
        "t-en-fence-paint",
        "delete fence, paint",
        ("Fence", "Paint", "Paint fence", "Gym"),
        D("Fence", "Paint"),
        {"Fence: deleted", "Paint: deleted"},
    ),
    held(
        "t-en-fence-paint-model",
        "delete fence, paint",
        ("Fence", "Paint", "Paint fence", "Gym"),
        D("Paint fence"),
        {"Fence": DEL, "Paint": DEL},
    ),
    done(
        "t-en-2024-comma-taxes",
        "delete 2024, taxes",
        ("2024", "Taxes", "Taxes 2024", "Gym"),
        D("2024", "Taxes"),
        {"2024: deleted", "Taxes: deleted"},
    ),
    held(
        "t-en-2024-comma-taxes-model",
        "delete 2024, taxes",
        ("2024", "Taxes", "Taxes 2024", "Gym"),
        D("Taxes 2024"),
        {"2024": DEL, "Taxes": DEL},
    ),
    done("t-en-bye-bye", "delete bye bye", ("Bye", "Bye bye", "Gym"), D("Bye bye", "Bye"), {"Bye bye: deleted"}),
    done("t-en-bye", "delete bye", ("Bye", "Bye bye", "Gym"), D("Bye"), {"Bye: deleted"}),
    done(
        "t-en-bye-and-bye-bye",
        "delete bye and bye bye",
        ("Bye", "Bye bye", "Gym"),
        D("Bye", "Bye bye"),
        {"Bye: deleted", "Bye bye: deleted"},
    ),
    done("t-en-keep-2024", "keep 2024 taxes, delete taxes", T4, D("Taxes", "Taxes 2024"), {"Taxes: deleted"}),
    done("t-en-but-not-2024", "delete taxes but not 2024 taxes", T4, D("Taxes", "Taxes 2024"), {"Taxes: deleted"}),
    done("t-en-not-taxes", "delete 2024 taxes, not taxes", T4, D("Taxes 2024", "Taxes"), {"Taxes 2024: deleted"}),
    done(
        "t-en-dont-2024-just", "don't delete 2024 taxes, just taxes", T4, D("Taxes", "Taxes 2024"), {"Taxes: deleted"}
    ),
    done(
        "t-en-stays",
        "delete call mom, sunday call mom stays",
        with_("Call mom sunday"),
        D("Call mom", "Call mom sunday"),
        {"Call mom: deleted"},
    ),
    done("t-en-complete-2024", "2024 taxes is done", T4, C("Taxes 2024", "Taxes"), {"Taxes 2024: completed"}),
    done(
        "t-en-update",
        "move 2024 taxes to friday",
        T4,
        [
            ("update_task", {"task_id": "Taxes 2024", "due_date": "2026-12-11"}),
            ("update_task", {"task_id": "Taxes", "due_date": "2026-12-11"}),
        ],
        {"Taxes 2024: edited"},
    ),
    done("t-en-gym-class-rev", "delete class gym", with_("Gym class"), D("Gym class", "Gym"), {"Gym class: deleted"}),
    done(
        "t-es-2024",
        "borra los 2024 impuestos",
        ("Impuestos", "Impuestos 2024", "Gym"),
        D("Impuestos 2024", "Impuestos"),
        {"Impuestos 2024: deleted"},
    ),
    done(
        "t-es-de-2024",
        "borra los impuestos de 2024",
        ("Impuestos", "Impuestos 2024", "Gym"),
        D("Impuestos 2024", "Impuestos"),
        {"Impuestos 2024: deleted"},
    ),
    done(
        "t-es-both",
        "borra impuestos y 2024 impuestos",
        ("Impuestos", "Impuestos 2024", "Gym"),
        D("Impuestos 2024", "Impuestos"),
        {"Impuestos 2024: deleted", "Impuestos: deleted"},
    ),
    done(
        "t-de-2024",
        "lösch die 2024 Steuern",
        ("Steuern", "Steuern 2024", "Gym"),
        D("Steuern 2024", "Steuern"),
        {"Steuern 2024: deleted"},
    ),
    done(
        "t-de-both",
        "lösch Steuern und 2024 Steuern",
        ("Steuern", "Steuern 2024", "Gym"),
        D("Steuern 2024", "Steuern"),
        {"Steuern 2024: deleted", "Steuern: deleted"},
    ),
    done(
        "t-fr-2024",
        "supprime 2024 impôts stp",
        ("Impôts", "Impôts 2024", "Gym"),
        D("Impôts 2024", "Impôts"),
        {"Impôts 2024: deleted"},
    ),
    done(
        "t-it-2024",
        "elimina 2024 tasse",
        ("Tasse", "Tasse 2024", "Gym"),
        D("Tasse 2024", "Tasse"),
        {"Tasse 2024: deleted"},
    ),
    done(
        "t-it-both",
        "elimina tasse e 2024 tasse",
        ("Tasse", "Tasse 2024", "Gym"),
        D("Tasse 2024", "Tasse"),
        {"Tasse 2024: deleted", "Tasse: deleted"},
    ),
    done(
        "t-pt-2024",
        "apaga 2024 impostos",
        ("Impostos", "Impostos 2024", "Gym"),
        D("Impostos 2024", "Impostos"),
        {"Impostos 2024: deleted"},
    ),
    done(
        "t-nl-mama-bellen",
        "verwijder bellen mama",
        ("Mama", "Mama bellen", "Gym"),
        D("Mama bellen", "Mama"),
        {"Mama bellen: deleted"},
    ),
    done(
        "t-sv-mamma",
        "ta bort ring mamma",
        ("Mamma", "Mamma ring", "Gym"),
        D("Mamma ring", "Mamma"),
        {"Mamma ring: deleted"},
    ),
    done("t-ur-2024", "2024 taxes delete kar do", T4, D("Taxes 2024", "Taxes"), {"Taxes 2024: deleted"}),
    done(
        "t-ur-both",
        "taxes aur 2024 taxes delete kar do",
        T4,
        D("Taxes 2024", "Taxes"),
        {"Taxes 2024: deleted", "Taxes: deleted"},
    ),
    done(
        "t-en-taxes-comma-2024-yoga",
        "delete taxes, 2024 yoga",
        ("Taxes", "Taxes 2024", "Yoga", "Yoga 2024", "Gym"),
        D("Taxes", "Yoga 2024"),
        {"Taxes: deleted", "Yoga 2024: deleted"},
    ),
]

# ---------------- 2. courtesy conditions: should run at once
RUN = [
    done("p-en-please-remove", "if you could please remove gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-en-get-chance", "if you get a chance delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-en-when-chance", "when you get a chance, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-en-okay", "if it's okay delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-en-thats-alright", "if that's alright, remove gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-en-u-can", "if u can delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-en-able", "if you are able to delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-en-complete", "if you could, please complete yoga", BASE, C("Yoga"), {"Yoga: completed"}),
    done("p-en-possible-mark", "if possible mark yoga done", BASE, C("Yoga"), {"Yoga: completed"}),
    done("p-en-two", "if you can, delete gym and taxes", BASE, D("Gym", "Taxes"), {"Gym: deleted", "Taxes: deleted"}),
    done("p-en-youd", "if you'd be so kind, delete gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-en-cap", "If You Could Delete Gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-en-add", "if you could add milk", BASE, A("Milk"), {"+Milk"}),
    done("p-es-pudieras", "si pudieras borra gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-es-te-es-posible", "si te es posible elimina gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-es-se-puede", "si se puede borra gym por favor", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-es-no-molestia", "si no es molestia borra gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-es-no-te-importa", "si no te importa, borra gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-pt-conseguir", "se conseguir apaga gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-pt-der", "se der apaga gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-pt-nao-incomodo", "se não for incômodo apaga gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-it-fosse", "se fosse possibile cancella gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-it-riesci", "se riesci cancella gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-it-non-dispiace", "se non ti dispiace elimina gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-fr-voulez-bien", "si vous voulez bien supprimez gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-fr-cest-possible", "si c'est possible supprime gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-fr-pouvais", "si tu pouvais supprimer gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-de-sie-koennen", "wenn Sie können, löschen Sie Gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-de-falls-es-geht", "falls es geht lösch Gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-de-magst", "wenn du magst, hak Yoga ab", BASE, C("Yoga"), {"Yoga: completed"}),
    done("p-nl-wil", "als je wil verwijder gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-nl-zo-mogelijk", "zo mogelijk verwijder gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-nl-lukt", "als het lukt, verwijder gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-sv-har-tid", "om ni har tid ta bort gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-sv-mojligt", "om möjligt ta bort gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-sv-kunde", "om du kunde ta bort gym", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-ur-kar-saken", "agar aap kar saken to gym delete kar do", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-ur-chahen", "agar aap chahen to gym delete kar dein", BASE, D("Gym"), {"Gym: deleted"}),
    done("p-ur-ho-sake", "agar ho sake to yoga complete kar do", BASE, C("Yoga"), {"Yoga: completed"}),
]

# ---------------- 2b. courtesy-looking frames that must NOT change (conditions, negations, questions, reports)
NOT = [
    # real conditions
    held("c-en-ok-with-anna", "if it's ok with Anna delete gym", BASE, D("Gym")),
    held("c-en-thats-fine-boss", "if that's fine with my boss remove gym", BASE, D("Gym")),
    held("c-en-fine-outside", "if it's fine outside delete gym", BASE, D("Gym")),
    held("c-en-possible-to-move", "if it's possible to move yoga delete gym", BASE, GW),
    held("c-en-ok-to-skip", "if it's ok to skip yoga delete gym", BASE, GW),
    held("c-en-can-see-yoga-done", "if you can see yoga is done delete gym", BASE, GW),
    held("c-en-can-find-receipt", "if you can find the receipt delete taxes", BASE, D("Taxes")),
    held("c-en-cannot-find", "if you cannot find gym delete taxes", BASE, D("Taxes")),
    held("c-en-could-not-find", "if you could not find yoga, delete gym", BASE, GW),
    held("c-en-would-have", "if you would have time after yoga delete gym", BASE, GW),
    held("c-es-puede-venir", "si puede venir ana borra gym", BASE, D("Gym")),
    held("c-es-posible-llueva", "si es posible que llueva borra gym", BASE, D("Gym")),
    held("c-es-quieres-saber-report", "si quieres saber, ya borré gym", BASE, D("Gym")),
    held("c-pt-der-chuva", "se der chuva apaga gym", BASE, D("Gym")),
    held("c-pt-der-certo-yoga", "se der certo o yoga apaga gym", BASE, GW),
    held("c-pt-pode-chover", "se pode chover amanhã apaga gym", BASE, D("Gym")),
    held("c-it-possibile-piova", "se è possibile che piova cancella gym", BASE, D("Gym")),
    held("c-it-puo-venire", "se può venire anna cancella gym", BASE, D("Gym")),
    held("c-sv-gar-bra", "om det går bra idag ta bort gym", BASE, D("Gym")),
    held("c-sv-gar-att-flytta", "om det går att flytta yoga ta bort gym", BASE, GW),
    held("c-nl-kan-zien", "als je kan zien dat yoga klaar is verwijder gym", BASE, GW),
    held("c-de-geht-nicht", "wenn es geht, lösch Gym nicht", BASE, D("Gym")),
    held("c-ur-mumkin-nahi", "agar mumkin nahi to gym delete kar do", BASE, D("Gym")),
    # requests to do something else first
    held("o-en-tell-whether", "if you could tell me whether to delete gym", BASE, D("Gym")),
    held("o-en-remind", "if you could remind me to delete gym", BASE, D("Gym")),
    held("o-en-let-me-know", "if you can let me know if I should delete gym", BASE, D("Gym")),
    held("o-en-check-if", "if you could check whether yoga is done", BASE, C("Yoga")),
    held("o-en-wait", "if you could wait before deleting gym", BASE, D("Gym")),
    held("o-en-hold-off", "if you could hold off on deleting gym", BASE, D("Gym")),
    held("o-en-avoid", "if you could avoid deleting gym", BASE, D("Gym")),
    held("o-en-stop", "if you would stop deleting my tasks like gym", BASE, D("Gym")),
    held("o-es-dime-si", "si puedes dime si debo borrar gym", BASE, D("Gym")),
    held("o-fr-dire-si", "si vous pouvez me dire si je dois supprimer gym", BASE, D("Gym")),
    held("o-de-sag-ob", "wenn du kannst, sag mir ob ich Gym löschen soll", BASE, D("Gym")),
    held("o-sv-paminn", "om du kan påminn mig att ta bort gym", BASE, D("Gym")),
    # negations
    held("n-en-could-not", "if you could not delete gym", BASE, D("Gym")),
    held("n-en-can-dont", "if you can, don't delete gym", BASE, D("Gym")),
    held("n-en-dont-mind-dont", "if you don't mind, don't delete gym", BASE, D("Gym")),
    held("n-en-rather-didnt", "if you don't mind, I'd rather you didn't delete gym", BASE, D("Gym")),
    held("n-en-possible-never", "if possible never delete gym", BASE, D("Gym")),
    held("n-en-possible-keep", "if possible keep gym", BASE, D("Gym")),
    held("n-en-would-leave", "if you would leave gym alone", BASE, D("Gym")),
    held("n-fr-ne-pas", "si tu pouvais ne pas supprimer gym", BASE, D("Gym")),
    held("n-fr-peux-pas", "si tu peux pas supprimer gym, termine yoga", BASE, GW, {"Yoga": COM}),
    held("n-fr-possible-ne-supprime-pas", "si possible ne supprime pas gym", BASE, D("Gym")),
    held("n-es-no-borres", "si puedes no borres gym", BASE, D("Gym")),
    held("n-es-posible-no", "si es posible no elimines gym", BASE, D("Gym")),
    held("n-es-no-te-importa-no", "si no te importa no borres gym", BASE, D("Gym")),
    held("n-pt-nao-apague", "se puder não apague gym", BASE, D("Gym")),
    held("n-pt-possivel-nao", "se possível não apaga gym", BASE, D("Gym")),
    held("n-it-non-cancellare", "se puoi non cancellare gym", BASE, D("Gym")),
    held("n-it-possibile-non", "se possibile non eliminare gym", BASE, D("Gym")),
    held("n-de-nicht", "wenn du kannst lösch Gym nicht", BASE, D("Gym")),
    held("n-de-moeglich-nicht", "wenn möglich Gym nicht löschen", BASE, D("Gym")),
    held("n-nl-niet", "als het kan gym niet verwijderen", BASE, D("Gym")),
    held("n-sv-inte", "om du kan ta inte bort gym", BASE, D("Gym")),
    held("n-sv-mojligt-inte", "om möjligt ta inte bort gym", BASE, D("Gym")),
    held("n-ur-mat", "agar mumkin ho to gym delete mat karo", BASE, D("Gym")),
    # questions, advice, suppositions, warnings
    held("q-en-should-i", "if you can, should I delete gym?", BASE, D("Gym")),
    held("q-en-should-i-noq", "if possible should I delete gym", BASE, D("Gym")),
    held("q-en-would-it-be-bad", "if you could delete gym would that break anything?", BASE, D("Gym")),
    held("q-en-what-happens", "if you deleted gym what would happen", BASE, D("Gym")),
    held("q-en-ok-is-it-smart", "if it's ok, is it smart to delete gym", BASE, D("Gym")),
    held("q-en-would-furious", "if you would delete gym I would be furious", BASE, D("Gym")),
    held("q-en-could-terrible", "if you could delete gym that would be terrible", BASE, D("Gym")),
    held("q-en-could-have-done", "if you could delete gym you would have done it by now", BASE, D("Gym")),
    held("q-en-believe-report", "if you can believe it, I already deleted gym", BASE, D("Gym")),
    held("q-en-believe-report-nocomma", "if you can believe it I finished yoga yesterday", BASE, C("Yoga")),
    held("q-en-ok-ill-myself", "if it's ok I'll delete gym myself", BASE, D("Gym")),
    held("q-en-possible-later", "if possible delete gym tomorrow", BASE, D("Gym")),
    held("q-en-could-when-yoga", "if you could delete gym once yoga is done", BASE, GW),
    held("q-en-dont-mind-asking", "if you don't mind me asking, did I delete gym", BASE, D("Gym")),
    held("q-en-would-like-know", "if you would like to know, I completed yoga", BASE, C("Yoga")),
    held("q-es-deberia", "si puedes, ¿debería borrar gym?", BASE, D("Gym")),
    held("q-es-que-pasa", "si es posible, qué pasa si borro gym", BASE, D("Gym")),
    held("q-fr-dois-je", "si possible, est-ce que je dois supprimer gym", BASE, D("Gym")),
    held("q-it-dovrei", "se puoi, dovrei cancellare gym?", BASE, D("Gym")),
    held("q-de-soll-ich", "wenn möglich, soll ich Gym löschen", BASE, D("Gym")),
    held("q-nl-moet-ik", "als het kan, moet ik gym verwijderen", BASE, D("Gym")),
    held("q-sv-borde-jag", "om det går, borde jag ta bort gym", BASE, D("Gym")),
    held("q-pt-devo", "se possível, devo apagar gym", BASE, D("Gym")),
    held("q-ur-kya-karun", "agar mumkin ho to kya main gym delete karun", BASE, D("Gym")),
    held("q-en-could-after-yoga", "if you could delete gym after yoga", BASE, D("Gym")),
    held("q-en-possible-friday", "if possible delete gym on friday", BASE, D("Gym")),
    held("q-en-chance-tomorrow", "when you get a chance delete gym tomorrow", BASE, D("Gym")),
    held("q-en-could-disaster", "if you could delete gym it would be a disaster", BASE, D("Gym")),
    held("o-en-postpone", "if you could postpone deleting gym", BASE, D("Gym")),
    held("o-en-comma-remind", "if you can, remind me to delete gym", BASE, D("Gym")),
    held("o-es-recuerdame", "si puedes recuérdame borrar gym", BASE, D("Gym")),
    held("o-fr-rappelle", "si possible rappelle-moi de supprimer gym", BASE, D("Gym")),
    held("o-de-erinnere", "wenn du kannst erinnere mich Gym zu löschen", BASE, D("Gym")),
    held("o-it-ricordami", "se puoi ricordami di cancellare gym", BASE, D("Gym")),
    # reports in other languages with the frame words
    held("r-es-si-borre", "si puedes creerlo, ya borré gym", BASE, D("Gym")),
    held("r-fr-jai-supprime", "si tu veux bien savoir, j'ai supprimé gym", BASE, D("Gym")),
    held("r-de-habe-geloescht", "wenn du kannst, ich habe Gym schon gelöscht", BASE, D("Gym")),
    held("r-sv-har-tagit", "om du vill veta har jag tagit bort gym", BASE, D("Gym")),
    held("r-nl-heb", "als je wil weten, ik heb gym verwijderd", BASE, D("Gym")),
    held("r-it-ho", "se puoi crederci ho già cancellato gym", BASE, D("Gym")),
    held("r-pt-ja-apaguei", "se quiser saber, já apaguei gym", BASE, D("Gym")),
]

# ---------------- 3. the mend: yes said with the change
YES = [
    yes_runs("y-en-sure", "sure, delete it"),
    yes_runs("y-en-yep-go", "yep, go ahead and delete it"),
    yes_runs("y-en-if-you-could", "yes, if you could delete it"),
    yes_runs("y-es-si-elimina", "sí, elimínalo por favor"),
    yes_runs("y-pt-sim-apaga", "sim, apaga"),
    yes_runs("y-nl-ja", "ja, verwijder het"),
    yes_runs("y-sv-ja", "ja, ta bort den"),
    yes_runs("y-ur-haan", "haan, delete kar do"),
    pytest.param([GY, ("yes, mark it done", C("Yoga"))], BASE, {"Yoga": COM}, {"Yoga: completed"}, id="y-en-complete"),
]
YES_NOT = [
    no_run("yn-en-tomorrow-morning", "yes, delete it tomorrow morning"),
    no_run("yn-en-tonight", "yes, delete it tonight"),
    no_run("yn-en-in-an-hour", "yes, delete it in an hour"),
    no_run("yn-en-next-week", "yes, delete it next week"),
    no_run("yn-en-after-yoga", "yes, delete it right after yoga"),
    no_run("yn-en-once-yoga", "yes, delete it once yoga is done"),
    no_run("yn-en-when-back", "yes, delete it when I'm back"),
    no_run("yn-en-eventually", "yes, delete it eventually"),
    no_run("yn-en-soon", "yes, delete it soon"),
    no_run("yn-en-instead", "yes, instead delete it"),
    no_run("yn-en-later-today", "yes, delete it later today"),
    no_run("yn-de-morgen", "ja, lösch es morgen"),
    no_run("yn-fr-demain", "oui, supprime-le demain"),
    no_run("yn-fr-plus-tard", "oui, supprime-le plus tard"),
    no_run("yn-it-dopo", "sì, cancellalo dopo"),
    no_run("yn-it-domani", "sì, cancellalo domani"),
    no_run("yn-nl-later", "ja, verwijder het later"),
    no_run("yn-nl-morgen", "ja, verwijder het morgen"),
    no_run("yn-pt-amanha", "sim, apaga amanhã"),
    no_run("yn-sv-imorgon", "ja, ta bort den i morgon"),
    no_run("yn-sv-senare", "ja, ta bort den senare"),
    no_run("yn-ur-baad", "haan, baad mein delete kar do"),
    no_run("yn-es-manana", "sí, bórralo mañana"),
    no_run("yn-es-en-vez", "sí, en vez de eso bórralo"),
    no_run("yn-arabic-q", "yes, delete it؟"),
    no_run("yn-greek-q", "yes, delete it\u037e"),
    no_run("yn-es-inverted", "sí, ¿bórralo?"),
    no_run("yn-es-inverted-open", "sí, ¿lo borro"),
    no_run("yn-double-q", "yes, delete it⁇"),
    no_run("yn-small-q", "yes, delete it\ufe56"),
    no_run("yn-en-no-wait", "yes, delete it, no wait"),
    no_run("yn-en-nah", "nah, keep it"),
    no_run("yn-en-no-delete-yoga", "no, delete yoga instead", calls=D("Gym", "Yoga"), ok={"Yoga": DEL}),
    no_run("yn-en-yes-keep", "yes, keep it"),
    no_run("yn-en-keep-instead", "yes, actually keep it"),
    no_run("yn-en-unless", "yes, delete it unless taxes is still open"),
    no_run("yn-en-if-rains", "yes, delete it if it rains"),
    no_run("yn-en-if-ok-anna", "yes, if it's ok with Anna delete it"),
    no_run("yn-en-or-rather-complete", "yes, delete it or rather complete it"),
    no_run("yn-en-and-taxes", "yes, delete it and taxes", calls=D("Gym", "Taxes"), ok={"Taxes": DEL}),
    no_run("yn-en-and-yoga-complete", "yes, delete it and complete yoga", calls=GW, ok={"Yoga": COM}),
    no_run("yn-en-the-yoga-one", "yes, delete the yoga one", calls=D("Yoga", "Gym"), ok={"Yoga": DEL}),
    no_run("yn-es-y-taxes", "sí, bórralo y también taxes", calls=D("Gym", "Taxes"), ok={"Taxes": DEL}),
    no_run("yn-two-sure-it", "sure, delete it", first=G2),
    no_run("yn-two-fr", "oui, supprime-le", first=G2),
    no_run("yn-two-de", "ja, lösch es", first=G2),
    no_run("yn-two-it", "sì, cancellalo", first=G2),
    no_run("yn-en-should-i", "yes, should I delete it"),
    no_run("yn-en-maybe-later", "yes, maybe delete it"),
    no_run("yn-de-nicht", "ja, lösch es nicht"),
    no_run("yn-fr-ne-pas", "oui, ne le supprime pas"),
    no_run("yn-en-dont-yet", "yes, but don't delete it yet"),
]

CASES = [*T20, *RUN, *NOT, *YES, *YES_NOT]


test_review5 = review_test(CASES)
