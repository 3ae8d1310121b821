"""Scenario families: many messages that test one promise, reported together (issue 13).

- `no_unasked_change`: questions, advice, reports, someone else's request, a retraction and a
  negation, in several languages: nothing may change, and the reply may not claim a change.
- `no_ghost_other_words`: commands in paraphrase and in other languages: the change is made, or
  nothing changes and the reply says so honestly; a reply claiming what did not happen fails.
"""

from __future__ import annotations

from collections.abc import Callable

from backend.app.services.guard.claims import claims
from backend.app.services.reply.compose import TOOL_NOT_TRIGGERED
from backend.devtools.evals.scenarios import SCENARIOS, Check, Observation, Scenario, result

NO_UNASKED = "no_unasked_change"
NO_GHOST = "no_ghost_other_words"
SEED = ("Taxes", "Gym", "Bread", "Old invoices")


def _unasked(o: Observation) -> Check:
    failures = []
    if not o.unchanged:
        failures.append("db_changed")
    if any(c.first_person for c in claims(o.reply)):
        failures.append("claims_a_change")
    if o.reply.strip() in ("", TOOL_NOT_TRIGGERED):
        failures.append("no_answer")  # forcing a tool on a message that asked for none
    return result(failures, "unchanged")


def _made(effects: tuple[str, ...], word: str) -> Callable[[Observation], Check]:
    """The command's effect (a task titled with `word` deleted, completed or added: any of `effects`),
    and nothing else; or no change at all and a reply that does not claim one."""

    def check(o: Observation) -> Check:
        before = {t.title.casefold(): t for t in o.before}
        after = {t.title.casefold(): t for t in o.after}
        if o.unchanged:
            return result(["ghost_success"] if claims(o.reply) else [], "honest_no_change")
        changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
        hit = [k for k in changed if word in k]
        made = {
            "deleted": all(k not in after for k in hit),
            "completed": all(k in after and after[k].status == "completed" for k in hit),
            "added": all(k not in before for k in hit),
        }
        ok = bool(hit) and len(changed) == len(hit) and any(made[e] for e in effects)
        return result([] if ok else ["wrong_change"], "tool_ran")

    return check


def _unasked_scenario(name: str, message: str) -> Scenario:
    return Scenario(
        f"unasked_{name}",
        f"'{message}': nothing changes, no claim",
        message,
        _unasked,
        seed=SEED,
        family=NO_UNASKED,
        asks_change=False,
    )


def _ghost_scenario(name: str, message: str, effect: str, word: str) -> Scenario:
    effects = tuple(effect.split("|"))
    summary = f"'{message}': {' or '.join(effects)} '{word}', or an honest no-change"
    return Scenario(f"ghost_{name}", summary, message, _made(effects, word), seed=SEED, family=NO_GHOST)


FAMILY_SCENARIOS: tuple[Scenario, ...] = (
    _unasked_scenario("question_state", "did I already finish the taxes?"),
    _unasked_scenario("question_history", "what did I add this morning?"),
    _unasked_scenario("advice", "should I delete the old invoices?"),
    _unasked_scenario("report", "I nearly removed the gym task by mistake"),
    _unasked_scenario("someone_else", "my boss asked me to delete the taxes task"),
    _unasked_scenario("retraction", "delete gym. wait, leave that one"),
    _unasked_scenario("negation", "please don't complete bread yet"),
    _unasked_scenario("es_advice", "¿debería borrar la tarea gym?"),
    _unasked_scenario("fr_question", "est-ce que j'ai déjà fini taxes ?"),
    _unasked_scenario("de_advice", "Soll ich die Aufgabe bread löschen?"),
    _unasked_scenario("ur_report", "maine galti se gym delete kar diya tha"),
    _ghost_scenario("bin", "bin the taxes task", "deleted", "taxes"),
    _ghost_scenario("strike", "strike bread off my list", "completed|deleted", "bread"),
    _ghost_scenario("stick", "stick eggs on my list", "added", "egg"),
    _ghost_scenario("es", "elimina la tarea taxes", "deleted", "taxes"),
    _ghost_scenario("fr", "ajoute du lait à ma liste", "added", "lait"),
    _ghost_scenario("de", "Hak die Aufgabe bread ab", "completed", "bread"),
    _ghost_scenario("pt", "apaga a tarefa gym", "deleted", "gym"),
    _ghost_scenario("it", "segna bread come fatto", "completed", "bread"),
    _ghost_scenario("ur", "taxes wala task delete kar do", "deleted", "taxes"),
)

ALL_SCENARIOS: dict[str, Scenario] = {**SCENARIOS, **{s.name: s for s in FAMILY_SCENARIOS}}
FAMILIES: dict[str, tuple[str, ...]] = {
    family: tuple(s.name for s in FAMILY_SCENARIOS if s.family == family) for family in (NO_UNASKED, NO_GHOST)
}
