"""Fourth blind review (adversarial) of afc7941 + 6aa7b4b: what a message supposes names no task,
conditions govern the commands after them, and a yes said again with the change on a pointer.

Each case: turns (message, the scripted model's calls), the tasks, what the user asked to change,
and for `done` the effects wanted at once, with no question on the last turn.
Harness: tests/support/review2.py. The reviewer compared two checkouts (before and after the
change); after its report (2026-12-08) the change was mended: the yes said again runs only for a
question of one change and never beside a word of when ("sí, bórralo luego") or a full-width "？";
a condition naming no task ("once that's done") says when and governs nothing; one said to the
assistant is no condition; "j'ai failli", "ho quasi finito", "I almost finished" suppose. What still
fails is a strict xfail with its kind (`KNOWN`); all but two failed the same before the change.
"""

from __future__ import annotations

from typing import Any

from support.review2 import BASE, DEL, A, C, Cases, D, U, review_test, with_

G = ("gym should go", D("Gym"))  # the backend asks "Do you want me to delete “Gym”?"
GY = ("yoga is finished I think", C("Yoga"))  # ... "Do you want me to complete “Yoga”?"
G2 = ("gym and taxes should go", D("Gym", "Taxes"))  # ... delete “Gym” and delete “Taxes”?
TWINS = ("Gym", "Gym", "Yoga", "Taxes")


OLDER = "older: fails the same before the change (e405060)"
KNOWN = {
    **dict.fromkeys(
        [
            "c-de-sofern",
            "c-de-wenn-dann",
            "c-en-question",
            "c-es-en-cuanto",
            "c-fr-une-fois",
            "c-it-appena",
            "c-it-una-volta",
            "c-nl-als-dan",
            "c-nl-indien",
            "c-nl-wanneer",
            "c-ur-jab",
            "c-ur-jaise-hi",
            "ca-de-wenn",
            "ca-en-once",
            "ca-en-second-command",
            "ca-es-si",
            "ca-fr-si",
            "ca-it-se",
            "ca-nl-als",
            "ca-sv-om",
            "ca-ur-agar",
            "cu-en-after-i",
            "cu-es-en-cuanto",
            "cu-sv-efter-att",
            "cu-sv-sa-snart",
            "cu-ur-jaise-hi",
        ],
        f"{OLDER}: a condition the reader does not read as one (verb unread, after the command, word missing)",
    ),
    **dict.fromkeys(
        ("o-en-if-alone", "o-sv-om-alone"),
        f"{OLDER}: a condition alone in its message says what it says (as a title 'Once a week plants is done')",
    ),
    **dict.fromkeys(
        [
            "h-de-schon",
            "h-es-ya-hice",
            "h-fr-on-a",
            "h-fr-viens",
            "h-nl-gedaan",
            "h-sv-gjort",
            "h-ur-chuka",
            "h-ur-maine",
        ],
        f"{OLDER}: a past report whose verb the file does not read as past ('ya hice', 'hab … gemacht'): asked",
    ),
    **dict.fromkeys(
        ["r-de-weil", "r-es-como", "r-nl-nu", "r-nl-omdat", "r-pt-ja-que", "r-ur-kyunki"],
        f"{OLDER}: a cause ('weil', 'omdat', 'como', 'já que', 'kyunki', 'nu') is read as a report that governs",
    ),
    **dict.fromkeys(
        [
            "s-en-gonna",
            "s-en-intend",
            "s-en-need-to",
            "s-en-plan",
            "s-en-should",
            "s-en-still-have-to",
            "s-es-quiero-semana",
            "s-fr-dois",
        ],
        f"{OLDER}: a plan said with a verb out of a command's place ('I'm gonna', 'I need to', 'je dois') supposes"
        " nothing: the completion is grounded beside the command (row C12)",
    ),
    **dict.fromkeys(
        ["w-de-ob", "w-en-no-idea-if", "w-fr-aucune-idee-si", "w-it-non-so-se", "w-sv-undrar-om"],
        f"{OLDER}: 'if', 'ob', 'si', 'se', 'om' meaning whether ('no idea if yoga is done') read as what it states",
    ),
    **dict.fromkeys(
        [
            "y-de-klar-entfern",
            "y-en-dont-need",
            "y-en-no-comma",
            "y-en-right-away",
            "y-en-you-can",
            "y-es-no-comma",
            "y-es-no-lo-necesito",
            "y-es-ya",
            "y-it-no-comma",
            "y-nl-wis-maar",
            "y-two-both",
            "y-two-them",
        ],
        f"{OLDER}: a yes said with the change the rule does not take (no comma, a time or a reason beside, a verb"
        " read as more, or a question of two changes: 'them', 'both')",
    ),
    "p-ur-agar-mumkin": f"{OLDER}: a courtesy condition with no comma reads as a supposition (frames: 726ae64)",
    "p-en-if-not-deleted": f"{OLDER}: 'if gym isn't deleted yet, delete it': the negated state says no to the delete",
    "t-en-when-in-rome": f"{OLDER}: a title opening with a condition word ('When in Rome essay is finished')",
    **dict.fromkeys(
        ("t-en-after-party", "t-sv-om-oss"),
        "the cost of reading conditions (2026-12-07): a title opening with a condition word before a stated verb"
        " ('After party cleanup is done', 'Om oss-sidan är klar') is read as one: the command after it is asked",
    ),
}


_cases = Cases(KNOWN)
done, done2, held, held2 = _cases.done, _cases.done2, _cases.held, _cases.held2


def yes_runs(case_id: str, answer: str) -> Any:
    """The answer to "delete Gym?" is a yes with the change: Gym deleted at once."""
    return done2(case_id, [G, (answer, D("Gym"))], BASE, {"Gym: deleted"})


def yes_runs_complete(case_id: str, answer: str) -> Any:
    return done2(case_id, [GY, (answer, C("Yoga"))], BASE, {"Yoga: completed"})


def no_run(case_id: str, answer: str, calls: Any = None) -> Any:
    """The answer is no plain yes (later, no, keep, other tool, ...): Gym must not go at once,
    whatever the model does on it (it deletes Gym by default)."""
    return held2(case_id, [G, (answer, D("Gym") if calls is None else calls)], BASE, {})


W = [*D("Gym"), *C("Yoga")]  # the model deletes Gym and completes Yoga
WANT_G = {"Gym: deleted"}
WANT_GY = {"Gym: deleted", "Yoga: completed"}
ONLY_G = {"Gym": DEL}

YES_RUNS = [
    yes_runs("y-en-yeah", "yeah, delete it"),
    yes_runs("y-en-ok", "ok, delete it"),
    yes_runs("y-en-please", "yes, please delete it"),
    yes_runs("y-en-no-comma", "yes delete it"),
    yes_runs("y-en-two-sentences", "Yes. Delete it."),
    yes_runs("y-en-now", "yes, delete it now"),
    yes_runs("y-en-thanks", "yes, delete it, thanks"),
    yes_runs("y-en-want-you", "yes, I want you to delete it"),
    yes_runs("y-en-right-away", "yes, delete it right away"),
    yes_runs("y-en-dont-need", "yes, delete it, I don't need it anymore"),
    yes_runs("y-en-you-can", "yes, you can delete it"),
    yes_runs("y-es-eliminalo", "sí, elimínalo"),
    yes_runs("y-es-claro", "claro, bórralo"),
    yes_runs("y-es-vale-quitalo", "vale, quítalo"),
    yes_runs("y-es-ya", "sí, bórralo ya"),
    yes_runs("y-es-no-comma", "sí bórralo"),
    yes_runs("y-es-no-lo-necesito", "sí, bórralo, ya no lo necesito"),
    yes_runs("y-de-klar-entfern", "klar, entfern es"),
    yes_runs("y-de-sofort", "ja, lösch es sofort"),
    yes_runs("y-fr-efface", "oui, efface-le"),
    yes_runs("y-fr-daccord", "d'accord, supprime-le"),
    yes_runs("y-fr-maintenant", "oui, supprime-le maintenant"),
    yes_runs("y-it-eliminalo", "sì, eliminalo"),
    yes_runs("y-it-no-comma", "sì cancellalo"),
    yes_runs("y-pt-apague", "sim, apague"),
    yes_runs("y-pt-agora", "sim, apaga agora"),
    yes_runs("y-nl-verwijder-het", "ja, verwijder het"),
    yes_runs("y-nl-wis-maar", "oké, wis het maar"),
    yes_runs("y-sv-radera", "ja, radera den"),
    yes_runs("y-sv-nu", "ja, ta bort den nu"),
    yes_runs("y-ur-haan", "haan, delete kar do"),
    yes_runs("y-ur-abhi", "haan, abhi delete kar do"),
    yes_runs_complete("yc-en", "yes, mark it complete"),
    yes_runs_complete("yc-es", "sí, márcalo como hecho"),
    yes_runs_complete("yc-fr", "oui, marque-le comme fait"),
    yes_runs_complete("yc-sv", "ja, markera den som klar"),
    yes_runs_complete("yc-it", "sì, segnalo come fatto"),
    yes_runs_complete("yc-ur", "haan, complete kar do"),
    done2("y-de-question", [("Gym sollte weg", D("Gym")), ("ja, lösch es", D("Gym"))], BASE, WANT_G),
    done2("y-two-them", [G2, ("yes, delete them", D("Gym", "Taxes"))], BASE, {"Gym: deleted", "Taxes: deleted"}),
    done2("y-two-both", [G2, ("yes, delete both", D("Gym", "Taxes"))], BASE, {"Gym: deleted", "Taxes: deleted"}),
]

YES_NOT = [
    # when: later, then, after, a day
    no_run("yn-es-luego", "sí, bórralo luego"),
    no_run("yn-es-luego-head", "sí, luego bórralo"),
    no_run("yn-es-despues", "sí, bórralo después"),
    no_run("yn-es-despues-head", "sí, después bórralo"),
    no_run("yn-es-mas-tarde", "sí, bórralo más tarde"),
    no_run("yn-pt-depois", "sim, apaga depois"),
    no_run("yn-pt-depois-head", "sim, depois apaga"),
    no_run("yn-sv-sen", "ja, ta bort den sen"),
    no_run("yn-sv-sedan-head", "ja, sedan ta bort den"),
    no_run("yn-it-poi", "sì, cancellalo poi"),
    no_run("yn-de-danach", "ja, lösch es danach"),
    no_run("yn-de-spaeter", "ja, lösch es später"),
    no_run("yn-nl-daarna", "ja, verwijder het daarna"),
    no_run("yn-fr-ensuite", "oui, supprime-le ensuite"),
    no_run("yn-en-afterwards", "yes, delete it afterwards"),
    no_run("yn-en-friday", "yes, delete it on friday"),
    no_run("yn-ur-kal", "haan, kal delete kar do"),
    # conditions
    no_run("yn-en-if-i", "yes, delete it if I don't go"),
    no_run("yn-es-si-no-voy", "sí, bórralo si no voy"),
    # the user will do it
    no_run("yn-en-myself", "yes, I'll delete it myself"),
    # no
    no_run("yn-en-dont-yet", "yes, don't delete it yet"),
    no_run("yn-es-no-borres", "sí, no lo borres todavía"),
    no_run("yn-sv-inte", "ja, ta inte bort den än"),
    no_run("yn-ur-mat", "haan, abhi delete mat karo"),
    # keep
    no_run("yn-en-but-keep", "yes but keep it for now"),
    no_run("yn-de-behalte", "ja, behalte es"),
    # another tool
    no_run("yn-en-mark-done", "yes, mark it done", C("Gym")),
    no_run("yn-es-completalo", "sí, complétalo", C("Gym")),
    # a task of its own, another one
    no_run("yn-en-other-one", "yes, delete the other one"),
    # questions, retractions, suppositions
    no_run("yn-en-fullwidth-q", "yes, delete it？"),
    no_run("yn-en-should-i", "yes, should I delete it"),
    no_run("yn-en-jk", "yes, delete it jk"),
    no_run("yn-es-mejor-no", "sí, bórralo... mejor no"),
    no_run("yn-en-maybe", "yes, maybe delete it"),
    # two tasks asked, "it" is one of them; twins asked which
    held2("yn-two-it", [G2, ("yes, delete it", D("Gym"))], BASE, {}),
    held2("yn-two-one-of-them", [G2, ("yes, delete one of them", D("Gym"))], BASE, {}),
    held2("yn-twins-yes-delete-it", [("delete gym", D("Gym")), ("yes, delete it", D("Gym"))], TWINS, {}),
    held2("yn-twins-si-borralo", [("delete gym", D("Gym")), ("sí, bórralo", D("Gym"))], TWINS, {}),
    no_run("yn-en-ok-later", "ok, delete it later"),
    held2("yn-es-complete-despues", [GY, ("sí, márcalo como hecho después", C("Yoga"))], BASE, {}),
    held2("yn-two-es-borralo", [G2, ("sí, bórralo", D("Gym"))], BASE, {}),
    held2("yn-two-sv-ta-bort-den", [G2, ("ja, ta bort den", D("Gym"))], BASE, {}),
    # a delete said to a completion question
    held2("yn-complete-q-delete-it", [GY, ("yes, delete it", D("Yoga"))], BASE, {}),
]

# ---- What is supposed, planned or asked beside a command names no task to change (claim 1)
SUPPOSED = [
    held("s-en-gonna", "delete gym, I'm gonna finish yoga later", BASE, W, ONLY_G),
    held("s-en-plan", "delete gym; I plan to complete yoga tonight", BASE, W, ONLY_G),
    held("s-en-intend", "delete gym. I intend to complete yoga this weekend", BASE, W, ONLY_G),
    held("s-en-need-to", "delete gym, I need to finish yoga", BASE, W, ONLY_G),
    held("s-en-still-have-to", "delete gym, I still have to finish yoga", BASE, W, ONLY_G),
    held("s-en-should", "delete gym, I should finish yoga soon", BASE, W, ONLY_G),
    held("s-en-tomorrow-ill", "delete gym and tomorrow I'll delete taxes", BASE, D("Gym", "Taxes"), ONLY_G),
    held("s-en-might-add", "add milk, I might delete taxes later", BASE, [*A("Milk"), *D("Taxes")], {"+": ("Milk",)}),
    held("s-en-is-yoga-done", "delete gym, is yoga done?", BASE, W, ONLY_G),
    held("s-en-when-q", "when is yoga due? delete gym", BASE, W, ONLY_G),
    held("s-es-voy", "borra gym, voy a terminar yoga mañana", BASE, W, ONLY_G),
    held("s-es-tengo-que", "borra gym, tengo que terminar yoga", BASE, W, ONLY_G),
    held("s-es-pienso", "borra gym, pienso completar yoga el sábado", BASE, W, ONLY_G),
    held("s-es-quiero-semana", "borra gym, quiero terminar yoga esta semana", BASE, W, ONLY_G),
    held("s-es-a-lo-mejor", "borra gym, a lo mejor completo yoga luego", BASE, W, ONLY_G),
    held("s-pt-vou", "apaga gym, vou concluir yoga amanhã", BASE, W, ONLY_G),
    held("s-pt-pretendo", "apaga gym, pretendo terminar yoga", BASE, W, ONLY_G),
    held("s-pt-tenho-que", "apaga gym, ainda tenho que terminar yoga", BASE, W, ONLY_G),
    held("s-pt-ia", "adiciona leite, eu ia apagar taxes", BASE, [*A("Leite"), *D("Taxes")], {"+": ("Leite",)}),
    held("s-de-werde", "lösch Gym, ich werde Yoga morgen abschließen", BASE, W, ONLY_G),
    held(
        "s-de-wollte", "füg Milch hinzu, ich wollte Taxes löschen", BASE, [*A("Milch"), *D("Taxes")], {"+": ("Milch",)}
    ),
    held("s-fr-compte", "supprime gym, je compte finir yoga demain", BASE, W, ONLY_G),
    held("s-fr-oublie", "supprime gym, j'ai oublié de finir yoga", BASE, W, ONLY_G),
    held("s-fr-failli", "supprime gym, j'ai failli finir yoga", BASE, W, ONLY_G),
    held("s-fr-intention", "supprime gym, j'ai l'intention de terminer yoga ce soir", BASE, W, ONLY_G),
    held("s-fr-presque", "supprime gym, j'ai presque fini yoga", BASE, W, ONLY_G),
    held(
        "s-fr-avais-prevu",
        "ajoute du lait, j'avais prévu de supprimer taxes",
        BASE,
        [*A("Lait"), *D("Taxes")],
        {"+": ("Lait", "du lait")},
    ),
    held("s-fr-dois", "supprime gym, je dois encore finir yoga", BASE, W, ONLY_G),
    held("s-it-intenzione", "cancella gym, ho intenzione di finire yoga", BASE, W, ONLY_G),
    held("s-it-quasi", "cancella gym, ho quasi finito yoga", BASE, W, ONLY_G),
    held("s-it-gia-quasi", "cancella gym, ho già quasi finito yoga", BASE, W, ONLY_G),
    held("s-it-programma", "cancella gym, ho in programma di completare yoga domani", BASE, W, ONLY_G),
    held(
        "s-it-deciso",
        "aggiungi latte, ho deciso di eliminare taxes domani",
        BASE,
        [*A("Latte"), *D("Taxes")],
        {"+": ("Latte",)},
    ),
    held("s-it-devo", "cancella gym, devo ancora finire yoga", BASE, W, ONLY_G),
    held("s-nl-ga", "verwijder gym, ik ga yoga morgen afronden", BASE, W, ONLY_G),
    held("s-nl-wellicht", "verwijder gym, wellicht rond ik yoga vandaag af", BASE, W, ONLY_G),
    held("s-sv-ska", "ta bort gym, jag ska göra klart yoga ikväll", BASE, W, ONLY_G),
    held("s-ur-socha", "gym delete kar do, maine socha yoga complete karun", BASE, W, ONLY_G),
    held(
        "s-ur-irada", "gym delete kar do, maine taxes delete karne ka irada kiya hai", BASE, D("Gym", "Taxes"), ONLY_G
    ),
    held("s-ur-karunga", "gym delete kar do, yoga kal complete karunga", BASE, W, ONLY_G),
    held("s-ur-nahi-kiya", "gym delete kar do, maine abhi yoga complete nahi kiya", BASE, W, ONLY_G),
    held("s-add-cond", "if yoga is done, add stretching", BASE, [*A("Stretching"), *C("Yoga")], {"+": ("Stretching",)}),
]

# ---- What the user says happened beside a command still names its task
HAPPENED = [
    done("h-en-finished", "delete gym, I finished yoga this morning", BASE, W, WANT_GY),
    done("h-es-ya-hice", "borra gym, ya hice yoga", BASE, W, WANT_GY),
    done("h-es-complete", "completé yoga, elimina gym", BASE, W, WANT_GY),
    done("h-pt-ja", "apaga gym, já terminei yoga", BASE, W, WANT_GY),
    done("h-de-habe", "lösch Gym, ich habe Yoga erledigt", BASE, W, WANT_GY),
    done("h-de-schon", "Yoga hab ich schon gemacht, lösch Gym", BASE, W, WANT_GY),
    done("h-fr-termine", "supprime gym, j'ai terminé yoga", BASE, W, WANT_GY),
    done("h-fr-on-a", "on a fini yoga, supprime gym", BASE, W, WANT_GY),
    done("h-fr-viens", "je viens de finir yoga, supprime gym", BASE, W, WANT_GY),
    done("h-it-completato", "cancella gym, ho completato yoga", BASE, W, WANT_GY),
    done("h-nl-afgerond", "verwijder gym, ik heb yoga afgerond", BASE, W, WANT_GY),
    done("h-nl-gedaan", "yoga heb ik gedaan, verwijder gym", BASE, W, WANT_GY),
    done("h-sv-gjort", "ta bort gym, jag har gjort klart yoga", BASE, W, WANT_GY),
    done("h-ur-maine", "maine yoga kar liya, gym hata do", BASE, W, WANT_GY),
    done("h-ur-chuka", "gym delete kar do, yoga ho chuka hai", BASE, W, WANT_GY),
    done("h-es-se-termino", "ya se terminó yoga, borra gym", BASE, W, WANT_GY),
    done("h-es-se-completo", "se completó yoga, borra gym", BASE, W, WANT_GY),
    done("h-es-se-termino-plain", "se terminó yoga, borra gym", BASE, W, WANT_GY),
    done("h-it-si-e-concluso", "si è concluso yoga, cancella gym", BASE, W, WANT_GY),
    # since / because: the reason is a report
    done("r-en-as", "as yoga is done, delete gym", BASE, W, WANT_GY),
    done("r-de-da", "da Yoga erledigt ist, lösch Gym", BASE, W, WANT_GY),
    done("r-de-weil", "weil Yoga schon fertig ist, lösch Gym", BASE, W, WANT_GY),
    done("r-nl-omdat", "omdat yoga klaar is, verwijder gym", BASE, W, WANT_GY),
    done("r-nl-nu", "nu yoga klaar is, verwijder gym", BASE, W, WANT_GY),
    done("r-es-como", "como yoga ya está hecho, borra gym", BASE, W, WANT_GY),
    done("r-pt-ja-que", "já que yoga está feito, apaga gym", BASE, W, WANT_GY),
    done("r-fr-comme", "comme yoga est fait, supprime gym", BASE, W, WANT_GY),
    done("r-ur-kyunki", "kyunki yoga ho gaya hai, gym delete kar do", BASE, W, WANT_GY),
]

# ---- A condition on a task before the command: nothing at once (Yoga is pending: the condition
# does not hold, so deleting Gym now is unasked as much as completing Yoga) (claim 2)
CONDITIONS = [
    held("c-en-ifs", "if yoga's done, delete gym", BASE, W, {}),
    held("c-en-if-then", "if yoga is complete then remove gym", BASE, W, {}),
    held("c-en-in-case", "in case yoga is finished, delete gym", BASE, W, {}),
    held("c-en-assuming", "assuming yoga is done, delete gym", BASE, W, {}),
    held("c-en-provided", "provided yoga is completed, remove gym", BASE, W, {}),
    held("c-en-whenever", "whenever yoga gets done, delete gym", BASE, W, {}),
    held("c-en-after", "after yoga is finished, delete gym", BASE, W, {}),
    held("c-en-two-commands", "if yoga is done, delete gym and taxes", BASE, [*D("Gym", "Taxes"), *C("Yoga")], {}),
    held("c-en-was", "if yoga was completed yesterday, delete gym", BASE, W, {}),
    held("c-en-question", "when yoga is done, can you delete gym?", BASE, W, {}),
    held("c-en-my", "once my yoga is done, delete gym", BASE, W, {}),
    held("c-en-only-if", "only if yoga is finished, delete gym", BASE, W, {}),
    held("c-en-edit", "once yoga is done, move gym to friday", BASE, [*U("Gym"), *C("Yoga")], {}),
    held("c-es-si-ya", "si yoga ya está listo, borra gym", BASE, W, {}),
    held("c-es-en-cuanto", "en cuanto yoga esté completo, elimina gym", BASE, W, {}),
    held("c-es-una-vez", "una vez que yoga esté hecho, borra gym", BASE, W, {}),
    held("c-de-falls-schon", "falls Yoga schon erledigt wurde, lösche Gym", BASE, W, {}),
    held("c-de-sofern", "sofern Yoga fertig ist, lösch Gym", BASE, W, {}),
    held("c-de-wenn-dann", "wenn Yoga fertig ist, dann lösch Gym", BASE, W, {}),
    held("c-fr-une-fois", "une fois yoga terminé, supprime gym", BASE, W, {}),
    held("c-fr-lorsque", "lorsque yoga est fini, supprime gym", BASE, W, {}),
    held("c-fr-au-cas-ou", "au cas où yoga est fait, supprime gym", BASE, W, {}),
    held("c-it-appena", "appena yoga è completato, elimina gym", BASE, W, {}),
    held("c-it-nel-caso", "nel caso yoga sia finito, cancella gym", BASE, W, {}),
    held("c-it-una-volta", "una volta che yoga è fatto, cancella gym", BASE, W, {}),
    held("c-pt-caso", "caso yoga esteja feito, apaga gym", BASE, W, {}),
    held("c-pt-assim-que", "assim que yoga estiver pronto, apaga gym", BASE, W, {}),
    held("c-nl-indien", "indien yoga klaar is, verwijder gym", BASE, W, {}),
    held("c-nl-als-dan", "als yoga af is, dan verwijder gym", BASE, W, {}),
    held("c-nl-wanneer", "wanneer yoga gedaan is, verwijder gym", BASE, W, {}),
    held("c-sv-sa-fort", "så fort yoga är gjord, ta bort gym", BASE, W, {}),
    held("c-sv-om-gjord", "om yoga är gjord, radera gym", BASE, W, {}),
    held("c-ur-agar", "agar yoga ho gaya hai to gym delete kar do", BASE, W, {}),
    held("c-ur-jab", "jab yoga complete ho jaye to gym delete kar dena", BASE, W, {}),
    held("c-ur-jaise-hi", "jaise hi yoga ho jaye, gym hata do", BASE, W, {}),
    # after the command, in its clause
    held("ca-en-once", "remove gym once yoga is finished", BASE, W, {}),
    held("ca-de-wenn", "lösch Gym, wenn Yoga erledigt ist", BASE, W, {}),
    held("ca-fr-si", "supprime gym si yoga est fait", BASE, W, {}),
    held("ca-sv-om", "ta bort gym om yoga är klar", BASE, W, {}),
    held("ca-es-si", "borra gym si yoga está hecho", BASE, W, {}),
    held("ca-it-se", "cancella gym se yoga è fatto", BASE, W, {}),
    held("ca-nl-als", "verwijder gym als yoga klaar is", BASE, W, {}),
    held("ca-ur-agar", "gym delete kar do agar yoga ho gaya ho", BASE, W, {}),
    held(
        "ca-en-second-command",
        "delete gym, and complete taxes if yoga is done",
        BASE,
        [*D("Gym"), *C("Taxes", "Yoga")],
        ONLY_G,
    ),
    # one clause: said alone
    held("o-en-if-alone", "if yoga is done", BASE, C("Yoga"), {}),
    held("o-de-wenn-alone", "wenn Yoga erledigt ist", BASE, C("Yoga"), {}),
    held("o-sv-om-alone", "om yoga är klar", BASE, C("Yoga"), {}),
    # the condition is the user's own (claim 2 leaves the command as it is): Yoga must not complete
    held("cu-en-once-ive", "once I've finished yoga, delete gym", BASE, W, ONLY_G),
    held("cu-en-as-soon-as", "as soon as I've completed yoga, remove gym", BASE, W, ONLY_G),
    held("cu-en-after-i", "after I've done yoga, delete gym", BASE, W, ONLY_G),
    held("cu-en-unless-i", "unless I've finished yoga by friday, delete gym", BASE, W, ONLY_G),
    held("cu-fr-des-que", "dès que j'ai fini yoga, supprime gym", BASE, W, ONLY_G),
    held("cu-it-appena", "appena ho finito yoga, cancella gym", BASE, W, ONLY_G),
    held("cu-it-dopo-che", "dopo che ho completato yoga, cancella gym", BASE, W, ONLY_G),
    held("cu-de-nachdem", "nachdem ich Yoga erledigt habe, lösch Gym", BASE, W, ONLY_G),
    held("cu-sv-sa-snart", "så snart jag gjort klart yoga, ta bort gym", BASE, W, ONLY_G),
    held("cu-sv-efter-att", "efter att jag gjort klart yoga, ta bort gym", BASE, W, ONLY_G),
    held("cu-nl-indien", "indien ik yoga afrond, verwijder gym", BASE, W, ONLY_G),
    held("cu-pt-assim-que", "assim que eu terminar yoga, apaga gym", BASE, W, ONLY_G),
    held("cu-es-en-cuanto", "en cuanto termine yoga, borra gym", BASE, W, ONLY_G),
    held("cu-ur-jaise-hi", "jaise hi main yoga khatam kar lun, gym hata do", BASE, W, ONLY_G),
]

# ---- Conditions meant as "please do it", sequences, "whether", titles, questions: no question
PLEASE = [
    done(
        "p-en-once-thats-done",
        "delete taxes, and once that's done, delete gym",
        BASE,
        D("Taxes", "Gym"),
        {"Taxes: deleted", "Gym: deleted"},
    ),
    done("p-en-when-thats-done", "complete yoga, and when that's done, delete gym", BASE, W, WANT_GY),
    done(
        "p-de-wenn-das",
        "lösch Taxes und wenn das erledigt ist, lösch Gym",
        BASE,
        D("Taxes", "Gym"),
        {"Taxes: deleted", "Gym: deleted"},
    ),
    done(
        "p-fr-une-fois-fait",
        "supprime taxes, et une fois que c'est fait, supprime gym",
        BASE,
        D("Taxes", "Gym"),
        {"Taxes: deleted", "Gym: deleted"},
    ),
    done("p-en-after-completing", "after completing yoga, delete gym", BASE, W, WANT_GY),
    done("p-en-once-youve-marked", "once you've marked yoga done, delete gym", BASE, W, WANT_GY),
    done(
        "p-sv-nar-det-ar-klart",
        "ta bort taxes, och när det är klart, ta bort gym",
        BASE,
        D("Taxes", "Gym"),
        {"Taxes: deleted", "Gym: deleted"},
    ),
    done(
        "p-it-quando-fatto",
        "cancella taxes e, quando è fatto, cancella gym",
        BASE,
        D("Taxes", "Gym"),
        {"Taxes: deleted", "Gym: deleted"},
    ),
    done("p-en-after-you-complete", "after you complete yoga, delete gym", BASE, W, WANT_GY),
    done("p-de-wenn-du-abgehakt", "wenn du Yoga abgehakt hast, lösch Gym", BASE, W, WANT_GY),
    done("p-en-if-not-deleted", "if gym isn't deleted yet, delete it", BASE, D("Gym"), WANT_G),
    done("p-en-if-fine", "if that's fine with you, remove gym", BASE, D("Gym"), WANT_G),
    done("p-fr-si-cest-possible", "si c'est possible, supprime gym", BASE, D("Gym"), WANT_G),
    done("p-es-si-es-posible", "si es posible, borra gym", BASE, D("Gym"), WANT_G),
    done("p-pt-se-puder", "se puder, apaga gym", BASE, D("Gym"), WANT_G),
    done("p-ur-agar-mumkin", "agar mumkin ho to gym delete kar do", BASE, D("Gym"), WANT_G),
    done("p-en-when-a-sec", "when you have a sec, delete gym", BASE, D("Gym"), WANT_G),
    done("p-es-cuando-puedas", "cuando puedas, borra gym", BASE, D("Gym"), WANT_G),
    # "if"/"om"/"ob"/"se" meaning whether: the command runs, the model's Yoga does not
    done("w-en-no-idea-if", "no idea if yoga is done, but delete gym", BASE, W, WANT_G),
    done("w-de-ob", "keine Ahnung, ob Yoga erledigt ist, aber lösch Gym", BASE, W, WANT_G),
    done("w-sv-undrar-om", "undrar om yoga är klar, men ta bort gym", BASE, W, WANT_G),
    done("w-fr-aucune-idee-si", "aucune idée si yoga est fait, supprime gym", BASE, W, WANT_G),
    done("w-it-non-so-se", "non so se yoga è finito, ma cancella gym", BASE, W, WANT_G),
    # a question beside the command: the model's Yoga does not complete
    held("q-es-cuando", "¿cuándo vence yoga? borra gym", BASE, W, ONLY_G),
    held("q-de-wann", "wann ist Yoga fällig? lösch Gym", BASE, W, ONLY_G),
    held("q-ur-kab", "yoga kab due hai? gym delete kar do", BASE, W, ONLY_G),
    # condition words in titles
    done(
        "t-en-after-party",
        "After party cleanup is done, delete gym",
        with_("After party cleanup"),
        [*C("After party cleanup"), *D("Gym")],
        {"After party cleanup: completed", "Gym: deleted"},
    ),
    done(
        "t-en-once-thanks",
        "Once a week plants is done. Thanks!",
        with_("Once a week plants"),
        C("Once a week plants"),
        {"Once a week plants: completed"},
    ),
    done(
        "t-en-once-ok",
        "ok, once a week plants is done",
        with_("Once a week plants"),
        C("Once a week plants"),
        {"Once a week plants: completed"},
    ),
    done(
        "t-en-when-in-rome",
        "When in Rome essay is finished, remove gym",
        with_("When in Rome essay"),
        [*C("When in Rome essay"), *D("Gym")],
        {"When in Rome essay: completed", "Gym: deleted"},
    ),
    done(
        "t-en-if-then",
        "If-then planning is done; delete gym",
        with_("If-then planning"),
        [*C("If-then planning"), *D("Gym")],
        {"If-then planning: completed", "Gym: deleted"},
    ),
    done(
        "t-de-wenn-dann",
        "Wenn-Dann-Plan ist erledigt, lösch Gym",
        with_("Wenn-Dann-Plan"),
        [*C("Wenn-Dann-Plan"), *D("Gym")],
        {"Wenn-Dann-Plan: completed", "Gym: deleted"},
    ),
    done(
        "t-sv-om-oss",
        "Om oss-sidan är klar, ta bort gym",
        with_("Om oss-sidan"),
        [*C("Om oss-sidan"), *D("Gym")],
        {"Om oss-sidan: completed", "Gym: deleted"},
    ),
    done(
        "t-it-se-una-notte",
        "Se una notte d'inverno è finito, cancella gym",
        with_("Se una notte d'inverno"),
        [*C("Se una notte d'inverno"), *D("Gym")],
        {"Se una notte d'inverno: completed", "Gym: deleted"},
    ),
    done(
        "t-nl-als-dan",
        "Als-dan lijst is klaar, verwijder gym",
        with_("Als-dan lijst"),
        [*C("Als-dan lijst"), *D("Gym")],
        {"Als-dan lijst: completed", "Gym: deleted"},
    ),
]

CASES = [*YES_RUNS, *YES_NOT, *SUPPOSED, *HAPPENED, *CONDITIONS, *PLEASE]


test_review4 = review_test(CASES)
