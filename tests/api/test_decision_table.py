"""The decision table (docs/guard.md), a row per decision, each played through the API in every
language that has a word file (rows about messages no file reads, in eight languages that have none).

Each case is a turn: the user's tasks, a message, a scripted model (its calls and words, complying
with whatever tool is forced on it), the settings; the test asserts the row decided in that turn (the
table's verdicts, heard as `decide` returns them) and what the user's tasks became."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.compliant import compliant
from support.fake_llm import ScriptedLLM, calls, completion, declares, tool_call

from backend.app.calls import verdicts
from backend.app.calls.decisions import Verdict
from backend.app.calls.facts import Facts


@dataclass(frozen=True)
class Phrases:
    """One language's ways of asking, and a model's ways of answering, as a user and a model would."""

    delete: str  # "{t}": delete it
    complete: str
    add: str
    edit_high: str  # give {t} high priority
    should_delete: str  # a question: should I delete {t}?
    not_but: str  # don't delete {t}; {u} is the one to go (no command verb in the second part)
    delete_and_add: str  # delete {t} and add {x}
    old_stuff: str  # delete what names no task
    thanks: str
    it: str  # the reference to the task just added, as a model passes it
    delete_it: str
    claimed: str  # the model's words: "{t} is deleted"
    back: str  # the model's words claiming nothing: a question back
    yes: str = ""  # a yes to a question (set below)
    everything: str = ""  # the whole list (set below)
    offer: str = ""  # a plain offer to delete “Gym” (set below)
    still: str = ""  # a question about how {t} stands: is it still on my list? (set below)
    keep: str = ""  # delete {t}, keep {u} (set below)
    strike: str = ""  # cross {t} off: done, or gone (a verb of two tools; set below)


PHRASES: dict[str, Phrases] = {
    "en": Phrases(
        "delete {t}",
        "mark {t} as done",
        "add {t}",
        "set {t} to high priority",
        "should I delete {t}?",
        "don't delete {t}, it's {u} that has to go",
        "delete {t} and add {x}",
        "delete the old stuff",
        "thanks!",
        "it",
        "delete it",
        "I deleted {t}.",
        "Which one do you mean?",
    ),
    "es": Phrases(
        "borra {t}",
        "marca {t} como hecha",
        "añade {t}",
        "pon {t} con prioridad alta",
        "¿debería borrar {t}?",
        "no borres {t}, es {u} lo que sobra",
        "borra {t} y añade {x}",
        "borra lo viejo",
        "¡gracias!",
        "eso",
        "borra eso",
        "He borrado {t}.",
        "¿Cuál quieres decir?",
    ),
    "fr": Phrases(
        "supprime {t}",
        "marque {t} comme faite",
        "ajoute {t}",
        "change la priorité de {t} en haute",
        "est-ce que je devrais supprimer {t} ?",
        "ne supprime pas {t}, c'est {u} qui doit partir",
        "supprime {t} et ajoute {x}",
        "supprime les vieux trucs",
        "merci !",
        "ça",
        "supprime ça",
        "J'ai supprimé {t}.",
        "Laquelle veux-tu dire ?",
    ),
    "de": Phrases(
        "lösche {t}",
        "markiere {t} als erledigt",
        "füge {t} hinzu",
        "setz {t} auf hohe Priorität",
        "soll ich {t} löschen?",
        "lösch {t} nicht, {u} muss weg",
        "lösche {t} und füge {x} hinzu",
        "lösche das alte Zeug",
        "danke!",
        "das",
        "lösch das",
        "Ich habe {t} gelöscht.",
        "Welche meinst du?",
    ),
    "pt": Phrases(
        "apague {t}",
        "conclua {t}",
        "adicione {t}",
        "mude a prioridade de {t} para alta",
        "devo apagar {t}?",
        "não apague {t}, é {u} que tem que sair",
        "apague {t} e adicione {x}",
        "apague as coisas velhas",
        "obrigado!",
        "isso",
        "apague isso",
        "Apaguei {t}.",
        "Qual você quer dizer?",
    ),
    "it": Phrases(
        "cancella {t}",
        "segna {t} come fatta",
        "aggiungi {t}",
        "imposta la priorità di {t} su alta",
        "dovrei cancellare {t}?",
        "non cancellare {t}, è {u} che deve sparire",
        "cancella {t} e aggiungi {x}",
        "cancella le cose vecchie",
        "grazie!",
        "quello",
        "cancella quello",
        "Ho cancellato {t}.",
        "Quale intendi?",
    ),
    "nl": Phrases(
        "verwijder {t}",
        "vink {t} af",
        "voeg {t} toe",
        "zet de prioriteit van {t} op hoog",
        "moet ik {t} verwijderen?",
        "verwijder {t} niet, het gaat om {u}",
        "verwijder {t} en voeg {x} toe",
        "verwijder de oude dingen",
        "bedankt!",
        "dat",
        "verwijder dat",
        "Ik heb {t} verwijderd.",
        "Welke bedoel je?",
    ),
    "sv": Phrases(
        "ta bort {t}",
        "bocka av {t}",
        "lägg till {t}",
        "ge {t} hög prioritet",
        "borde jag radera {t}?",
        "ta inte bort {t}, det är {u} som ska bort",
        "ta bort {t} och lägg till {x}",
        "ta bort de gamla grejerna",
        "tack!",
        "den",
        "ta bort den",
        "Jag har tagit bort {t}.",
        "Vilken menar du?",
    ),
    "ur": Phrases(
        "{t} delete kar do",
        "{t} complete kar do",
        "{t} add kar do",
        "{t} ki priority high kar do",
        "kya mujhe {t} delete karna chahiye?",
        "{t} delete mat karo, {u} ko hatana hai",
        "{t} delete kar do aur {x} add kar do",
        "purani cheezein delete kar do",
        "shukriya!",
        "isay",
        "isay delete kar do",
        "Maine {t} delete kar diya.",
        "Aap kaun sa matlab hai?",
    ),
}


YES = {
    "en": "yes please",
    "es": "sí, dale",
    "fr": "oui vas-y",
    "de": "ja, mach",
    "pt": "sim",
    "it": "sì grazie",
    "nl": "ja graag",
    "sv": "ja tack",
    "ur": "haan ji",
}
EVERYTHING = {
    "en": "everything",
    "es": "todo",
    "fr": "tout",
    "de": "alles",
    "pt": "tudo",
    "it": "tutto",
    "nl": "alles",
    "sv": "allt",
    "ur": "sab",
}
# A plain offer to delete Gym (A12 forces only what such a question offers).
OFFER = {
    "en": "Do you want me to delete “Gym”?",
    "es": "¿Quieres que elimine “Gym”?",
    "fr": "Voulez-vous que je supprime « Gym » ?",
    "de": "Soll ich „Gym“ löschen?",
    "pt": "Quer que eu apague “Gym”?",
    "it": "Vuoi che elimini “Gym”?",
    "nl": "Zal ik “Gym” verwijderen?",
    "sv": "Ska jag ta bort “Gym”?",
    "ur": "Kya main “Gym” hata doon?",
}
# A question about how a task stands (C20: never asked about, its state said).
STILL = {
    "en": "is {t} still on my list?",
    "es": "¿sigue {t} en la lista?",
    "fr": "{t} est toujours sur la liste ?",
    "de": "steht {t} noch auf der Liste?",
    "pt": "{t} ainda está na lista?",
    "it": "c'è ancora {t} in lista?",
    "nl": "staat {t} nog op de lijst?",
    "sv": "står {t} kvar på listan?",
    "ur": "kya {t} ab bhi list mein hai?",
}
# A delete beside a keep of one other task (T19: the delete runs). Spanish and Portuguese files read
# no keep that names a task ("borra gym, conserva taxes": an item of the delete that says more than a
# title, T13; "conserva de atún", "mantén la calma" are too common there to be read as keeps).
KEEP = {
    "en": "delete {t}, keep {u}",
    "es": "",
    "fr": "supprime {t}, garde {u}",
    "de": "lösche {t}, behalte {u}",
    "pt": "",
    "it": "cancella {t}, tieni {u}",
    "nl": "verwijder {t}, hou {u}",
    "sv": "ta bort {t}, behåll {u}",
    "ur": "{t} delete kar do, {u} ko rehne do",
}
# A verb that crosses a task off, done or gone (C21: a delete on it is asked). Urdu's file has none.
STRIKE = {
    "en": "strike off {t}",
    "es": "tacha {t}",
    "fr": "raye {t}",
    "de": "streich {t} durch",
    "pt": "risca {t}",
    "it": "depenna {t}",
    "nl": "streep {t} door",
    "sv": "stryk över {t}",
    "ur": "",
}
PHRASES = {
    k: dataclasses.replace(
        v, yes=YES[k], everything=EVERYTHING[k], offer=OFFER[k], still=STILL[k], keep=KEEP[k], strike=STRIKE[k]
    )
    for k, v in PHRASES.items()
}


@dataclass(frozen=True)
class Unread:
    """A language no word file reads: a request to delete {t}, to add {x}, a model's claim in it."""

    delete: str
    add: str
    edit_high: str
    question: str  # a question naming {t} ("is {t} still worth doing?")


UNREAD: dict[str, Unread] = {
    "cs": Unread("smaž úkol {t}", "přidej {x}", "dej {t} vysokou prioritu", "má ještě {t} smysl?"),
    "pl": Unread("usuń zadanie {t}", "dopisz {x}", "ustaw {t} na wysoki priorytet", "czy {t} ma jeszcze sens?"),
    "id": Unread("hapus tugas {t}", "tambahkan {x}", "beri {t} prioritas tinggi", "apakah {t} masih perlu?"),
    "tr": Unread("{t} görevini sil", "{x} ekle", "{t} önceliğini yükselt", "{t} hâlâ gerekli mi?"),
    "ru": Unread("удали задачу {t}", "добавь {x}", "сделай {t} срочной", "{t} ещё нужно?"),
    "fi": Unread("poista tehtävä {t}", "lisää {x}", "nosta {t} kiireelliseksi", "kannattaako {t} vielä?"),
    "hu": Unread("töröld a {t} feladatot", "írd fel a listára: {x}", "tedd {t} sürgőssé", "megéri még {t}?"),
    "ja": Unread("{t}を消して", "{x}を追加して", "{t}を優先にして", "{t}はまだ必要かな？"),
}


@dataclass
class Case:
    message: str
    model: Any  # a ScriptedLLM's default answer, or a list of its items in order
    tasks: tuple[str, ...] = ("Gym", "Taxes", "Laundry")
    settings: dict[str, Any] = field(default_factory=dict)
    before: tuple[str, ...] = ()  # messages of earlier turns in the same conversation (model: the same)
    checker: Any = None
    # title -> "deleted" or "absent" (not there), "added" or "pending" (there, pending), "completed"
    changed: dict[str, str] | None = None


def _c(message: str, model: Any, **kw: Any) -> Case:
    return Case(message, model, **kw)


def one(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return calls((name, arguments))


def words(text: str) -> dict[str, Any]:
    return completion(text)


WITH_FILES = list(PHRASES)
_THREE = ("Gym", "Taxes", "Laundry")  # a case's tasks
# Each row: how a turn in a language with a word file meets it.
ROWS: dict[str, Callable[[Phrases], Case]] = {
    "L1": lambda p: _c(
        p.add.format(t="milk"),
        [completion(tool_calls=[tool_call("add_task", '{"title": ', raw=True)]), one("add_task", {"title": "milk"})],
        changed={"milk": "added"},
    ),
    "L2": lambda p: _c(
        p.add.format(t="milk"), [one("add_to_list", {"title": "milk"}), one("add_task", {"title": "milk"})]
    ),
    "L3": lambda p: _c(p.delete.format(t="Gym"), [one("list_tasks", {}), one("list_tasks", {})], changed={}),
    "L4": lambda p: _c(
        p.delete.format(t="Gym"),
        [calls(("delete_task", {"task_id": "Gym"}), ("list_tasks", {}))],
        settings={"max_tool_calls_per_step": 1},
        changed={"Gym": "deleted"},
    ),
    "L5": lambda p: _c(
        p.delete.format(t="Gym"),
        [calls(("delete_task", {"task_id": "Gym"}), ("list_tasks", {}))],
        settings={"budget_max_tool_calls": 1},
        changed={"Gym": "deleted"},
    ),
    "L6": lambda p: _c(
        p.delete.format(t="Gym") + ", " + p.delete.format(t="Taxes"),
        [calls(("delete_task", {"task_id": "Gym"}), ("delete_task", {"task_id": "Taxes"}))],
        settings={"max_destructive_calls_per_turn": 1},
        changed={"Gym": "deleted", "Taxes": "pending"},
    ),
    "L7": lambda p: _c(p.delete.format(t="Gym"), [one("delete_task", {"task_id": "Gym"})], changed={"Gym": "deleted"}),
    "C1": lambda p: _c(p.delete.format(t="Gym"), [one("list_tasks", {}), one("delete_task", {"task_id": "Gym"})]),
    "C2": lambda p: _c(
        p.thanks, [one("delete_task", {"task_id": "Gym"})], settings={"tool_policy": "auto"}, changed={"Gym": "deleted"}
    ),
    "C3": lambda p: _c(
        p.yes,
        [words(p.should_delete.format(t="Gym")), one("delete_task", {"task_id": "Gym"})],
        before=(p.thanks,),
        checker=declares(),  # the question claims nothing: it is shown
        changed={"Gym": "deleted"},
    ),
    "C7": lambda p: _c(p.delete.format(t="Gym"), None, changed={"Gym": "deleted"}),  # claims, then complies
    "C8": lambda p: _c(p.add.format(t="milk"), [one("add_task", {"title": "milk"})], changed={"milk": "added"}),
    "C21": lambda p: _c(p.strike.format(t="Gym"), [one("delete_task", {"task_id": "Gym"})], changed={"Gym": "pending"}),
    "C9": lambda p: _c(p.delete.format(t="Gym"), [one("delete_task", {"task_id": "Gym"})], changed={"Gym": "deleted"}),
    "C10": lambda p: _c(
        p.complete.format(t="Gym"),
        [one("update_task", {"task_id": "Gym", "status": "completed"})],
        changed={"Gym": "completed"},
    ),
    "C11": lambda p: _c(
        p.delete.format(t="Gym"),
        [one("update_task", {"task_id": "Gym", "tags": []})],
        changed={"Gym": "pending"},
    ),
    "C12": lambda p: _c(
        p.add.format(t="milk"),
        [calls(("add_task", {"title": "milk"}), ("delete_task", {"task_id": "Gym"}))],
        changed={"milk": "added", "Gym": "pending"},
    ),
    "C13": lambda p: _c(
        p.should_delete.format(t="Gym"), [one("delete_task", {"task_id": "Gym"})], changed={"Gym": "pending"}
    ),
    "C20": lambda p: _c(p.still.format(t="Gym"), [one("delete_task", {"task_id": "Gym"})], changed={"Gym": "pending"}),
    "C14": lambda p: _c(
        p.not_but.format(t="Gym", u="Laundry"),
        [one("delete_task", {"task_id": "Laundry"})],
        changed={"Gym": "pending", "Laundry": "pending"},
    ),
    "C15": lambda p: _c(p.thanks, [one("add_task", {"title": "thanks"})], changed={}),
    "T1": lambda p: _c(
        p.delete.format(t="Taxes"), [one("delete_task", {"task_id": "21648537900"})], changed={"Taxes": "deleted"}
    ),
    "T2": lambda p: _c(p.delete.format(t="Yoga"), [one("delete_task", {"task_id": "Yoga"})], changed={}),
    "T3": lambda p: _c(
        p.delete.format(t="Gym"),
        [one("delete_task", {"task_id": "Gym"})],
        settings={"tool_policy": "auto"},
        changed={"Gym": "deleted"},
    ),
    "T4": lambda p: _c(
        p.add.format(t='"call Gym"'),
        [calls(("add_task", {"title": "call Gym"}), ("delete_task", {"task_id": "Gym"}))],
        changed={"call Gym": "added", "Gym": "pending"},
    ),
    "T17": lambda p: _c(
        p.still.format(t="Gym"), [one("complete_task", {"task_id": "Gym"})], changed={"Gym": "pending"}
    ),
    "T18": lambda p: _c(
        p.still.format(t="Gym"), [one("delete_task", {"task_id": "Taxes"})], changed={"Taxes": "pending"}
    ),
    "T19": lambda p: _c(
        p.keep.format(t="Gym", u="Taxes"), [one("delete_task", {"task_id": "Gym"})], changed={"Gym": "deleted"}
    ),
    "T5": lambda p: _c(
        p.should_delete.format(t="Gym"), [one("delete_task", {"task_id": "Gym"})], changed={"Gym": "pending"}
    ),
    "T6": lambda p: _c(
        p.should_delete.format(t="Gym"), [one("delete_task", {"task_id": "Taxes"})], changed={"Taxes": "pending"}
    ),
    "T15": lambda p: _c(
        p.yes,
        [words(p.should_delete.format(t=p.everything)), calls(*[("delete_task", {"task_id": t}) for t in _THREE])],
        before=(p.thanks,),
        checker=declares(),
        changed=dict.fromkeys(_THREE, "deleted"),
    ),
    "T16": lambda p: _c(
        p.delete.format(t=p.everything),
        [calls(*[("delete_task", {"task_id": t}) for t in _THREE])],
        changed=dict.fromkeys(_THREE, "pending"),
    ),
    "T7": lambda p: _c(p.thanks, [one("delete_task", {"task_id": "Gym"})], changed={"Gym": "pending"}),
    "T8": lambda p: _c(p.delete.format(t="Gym"), None, changed={"Gym": "deleted"}),  # forced, the title exact
    "T9": lambda p: _c(
        p.delete_it,
        [one("add_task", {"title": "milk"}), one("delete_task", {"task_id": p.it})],
        before=(p.add.format(t="milk"),),
        changed={"milk": "pending"},
    ),
    "T10": lambda p: _c(
        p.edit_high.format(t="dentist"),
        [one("update_task", {"task_id": "21648537900", "priority": "high"})],
        tasks=("Dentist appointment", "Gym"),
        changed={"Dentist appointment": "pending"},
    ),
    "T11": lambda p: _c(p.delete.format(t="Gym"), [one("delete_task", {"task_id": "Gym"})], changed={"Gym": "deleted"}),
    "T12": lambda p: _c(
        p.delete.format(t="Gym"),
        [one("delete_task", {"task_id": "Taxes"})],
        changed={"Gym": "pending", "Taxes": "pending"},
    ),
    "T20": lambda p: _c(
        p.delete.format(t="Gym class"),
        [calls(("delete_task", {"task_id": "Gym class"}), ("delete_task", {"task_id": "Gym"}))],
        tasks=("Gym", "Gym class", "Taxes"),
        changed={"Gym class": "deleted", "Gym": "pending"},
    ),
    "T13": lambda p: _c(p.old_stuff, [one("delete_task", {"task_id": "Gym"})], changed={"Gym": "pending"}),
    "T14": lambda p: _c(
        p.add.format(t="milk"),
        [calls(("add_task", {"title": "milk"}), ("update_task", {"task_id": "Gym", "priority": "high"}))],
        changed={"milk": "added"},
    ),
    "V1": lambda p: _c(p.add.format(t="milk"), [one("add_task", {"title": "milk"})], changed={"milk": "added"}),
    "V2": lambda p: _c(
        p.add.format(t='"pay rent"'), [one("add_task", {"title": "pay rent now"})], changed={"pay rent": "added"}
    ),
    "V3": lambda p: _c(p.add.format(t="milk"), [one("add_task", {"title": "21648537900"})], changed={"milk": "added"}),
    "V4": lambda p: _c(p.delete.format(t="Gym"), [one("add_task", {"title": "Gym"})], changed={"Gym": "pending"}),
    "V5": lambda p: _c(
        p.add.format(t="milk"),
        [calls(("add_task", {"title": "milk"}), ("add_task", {"title": "Lorem ipsum"}))],
        changed={"milk": "added"},
    ),
    "V6": lambda p: _c(
        p.add.format(t="milk"), [one("add_task", {"title": "milk", "tags": ["items"]})], changed={"milk": "added"}
    ),
    "A1": lambda p: _c(p.delete.format(t="Gym"), [words(p.claimed.format(t="Gym"))], settings={"tool_policy": "auto"}),
    "A2": lambda p: _c(p.delete.format(t="Gym"), [one("list_tasks", {}), words(p.back)], changed={"Gym": "pending"}),
    "A3": lambda p: _c(p.delete.format(t="Gym"), "ghost", changed={"Gym": "pending"}),
    "A4": lambda p: _c(
        p.delete_and_add.format(t="Gym", x="milk"),
        [one("add_task", {"title": "milk"}), words(p.claimed.format(t="Gym")), words(p.claimed.format(t="Gym"))],
        changed={"milk": "added", "Gym": "pending"},
    ),
    "A5": lambda p: _c(p.delete.format(t="Gym"), None, changed={"Gym": "deleted"}),
    "A6": lambda p: _c(p.delete.format(t="Gym"), [words("👍")], changed={"Gym": "pending"}),
    "A7": lambda p: _c(
        p.delete.format(t="Gym"), [words(p.back)], settings={"reply_check": "lists"}, changed={"Gym": "pending"}
    ),
    "A12": lambda p: _c(
        p.yes,
        [
            words(p.offer),
            words(p.claimed.format(t="Gym")),
            one("delete_task", {"task_id": "Gym"}),
        ],
        before=(p.thanks,),
        checker=_honest(p.claimed.format(t="Gym"), ("delete", "Gym")),  # the question claims nothing
        changed={"Gym": "deleted"},
    ),
    "A11": lambda p: _c(
        p.should_delete.format(t="Gym"),
        [words(p.claimed.format(t="Gym"))],
        checker=declares(("delete", "Gym")),  # honest: the words claim the delete
        changed={"Gym": "pending"},
    ),
    "R1": lambda p: _c(p.thanks, [one("add_task", {"title": "milk"})], changed={}),
    "R2": lambda p: _c(p.delete.format(t="Gym"), [one("delete_task", {"task_id": "Gym"})], changed={"Gym": "deleted"}),
}

# Rows about messages no word file reads: played in eight languages that have none.
UNREAD_ROWS: dict[str, Callable[[Unread], Case]] = {
    "C4": lambda u: _c(u.add.format(x='"pay rent"'), "ghost-add", changed={"pay rent": "absent"}),
    "C5": lambda u: _c(u.add.format(x="pay rent"), "ghost-add", changed={}),
    "C6": lambda u: _c(u.delete.format(t="Gym"), None, changed={"Gym": "pending"}),
    "C16": lambda u: _c(
        u.add.format(x="pay rent"), [one("add_task", {"title": u.add.format(x="pay rent")})], changed={}
    ),
    "C17": lambda u: _c(u.delete.format(t="Gym"), [one("delete_task", {"task_id": "Gym"})], changed={"Gym": "pending"}),
    "C18": lambda u: _c(
        u.add.format(x="pay rent"), [one("add_task", {"title": "pay rent"})], changed={"pay rent": "added"}
    ),
    "C19": lambda u: _c(
        u.edit_high.format(t="Gym"),
        [one("update_task", {"task_id": "Gym", "priority": "high"})],
        changed={"Gym": "pending"},
    ),
    "A8": lambda u: _c(u.delete.format(t="Gym"), "ghost", changed={"Gym": "pending"}),
    "A9": lambda u: _c(u.delete.format(t="Gym"), "ghost-two", changed={"Gym": "pending"}),
    "A10": lambda u: _c(u.delete.format(t="Gym"), "ghost-two", changed={"Gym": "pending"}),
}


def _honest(claim: str, *done: tuple[str, str]) -> Callable[[dict[str, Any]], Any]:
    """A checker that says the words claim `done` where they hold `claim`, else nothing."""

    def check(body: dict[str, Any]) -> Any:
        words = " ".join(str(m.get("content") or "") for m in body["messages"])
        return (declares(*done) if claim in words else declares())(body)

    return check


@pytest.fixture
def heard(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The rows of every verdict the table gives in the test, in order (`decide` wherever it was imported)."""
    seen: list[str] = []
    real = verdicts.decide

    def spy(facts: Facts) -> Verdict:
        verdict = real(facts)
        seen.append(verdict.rule)
        return verdict

    for module in list(sys.modules.values()):
        if getattr(module, "decide", None) is real:
            monkeypatch.setattr(module, "decide", spy)
    yield seen


def _model(case: Case, claim: str, back: str, tasks: tuple[str, ...]) -> tuple[ScriptedLLM, Any]:
    """The case's scripted model: a list of answers, or a compliant model that first claims (`None`:
    claims, then complies when forced; "ghost": claims, and talks even when forced)."""
    if case.model is None:
        llm, _ = compliant([], tasks, ghost=claim)
        return llm, declares(("delete", "Gym"))
    if case.model == "ghost":
        return ScriptedLLM(default=completion(claim)), declares(("delete", "Gym"))
    if case.model == "ghost-add":
        llm, _ = compliant([], tasks, ghost=claim)
        return llm, declares(("add", "pay rent"))
    if case.model == "ghost-two":
        llm, _ = compliant([], tasks, ghost=claim, takes_way_out=True)
        return llm, declares(("delete", "Gym"), ("complete", "Taxes"))
    return ScriptedLLM(*case.model, default=completion(back)), None


async def _play(make_client: MakeClient, case: Case, claim: str, back: str = "?") -> dict[str, Any]:
    llm, checker = _model(case, claim, back, case.tasks)
    llm.checker = case.checker or checker or llm.checker
    client = await make_client(llm, **case.settings)
    await seed_tasks(client, *case.tasks)
    conversation = None
    for earlier in case.before:
        conversation = (await chat(client, earlier, conversation_id=conversation)).json()["conversation_id"]
    body: dict[str, Any] = (await chat(client, case.message, conversation_id=conversation)).json()
    if case.changed is not None:
        now = {t["title"]: t["status"] for t in await tasks_of(client)}
        expected = dict.fromkeys(case.tasks, "pending") | {
            title: {"deleted": None, "absent": None, "added": "pending"}.get(state, state)
            for title, state in case.changed.items()
        }
        assert now == {t: s for t, s in expected.items() if s is not None}, body["assistant_message"]
    return body


@pytest.mark.parametrize("lang", WITH_FILES)
@pytest.mark.parametrize("row", list(ROWS))
async def test_a_row_of_the_table_in_each_language(
    make_client: MakeClient, heard: list[str], row: str, lang: str
) -> None:
    phrases = PHRASES[lang]
    if row == "T19" and not phrases.keep:
        pytest.skip(f"{lang}: no keep that names a task is read (KEEP above)")
    if row == "C21" and not phrases.strike:
        pytest.skip(f"{lang}: no verb of two tools (STRIKE above)")
    body = await _play(make_client, ROWS[row](phrases), phrases.claimed.format(t="Gym"), phrases.back)
    assert row in heard, (heard, body["assistant_message"], body["execution_metadata"]["guard"])


@pytest.mark.parametrize("lang", list(UNREAD))
@pytest.mark.parametrize("row", list(UNREAD_ROWS))
async def test_a_row_about_an_unread_message_in_languages_no_file_reads(
    make_client: MakeClient, heard: list[str], row: str, lang: str
) -> None:
    claim = {
        "A8": "I deleted Gym.",  # a claim the lists read, of one kind
        "A9": "Done! I deleted Gym and completed Taxes.",  # of two kinds: the check says which
        "A10": "Done! I deleted Gym and completed Taxes.",
    }.get(row, "Hotovo ✓")
    body = await _play(make_client, UNREAD_ROWS[row](UNREAD[lang]), claim)
    assert body["execution_metadata"]["intent"]["kind"] == "chat", body["execution_metadata"]["intent"]
    assert row in heard, (heard, body["assistant_message"], body["execution_metadata"]["guard"])


def test_every_row_is_played() -> None:
    played = set(ROWS) | set(UNREAD_ROWS)
    assert played == {row.id for rows in verdicts.TABLE.values() for row in rows}
