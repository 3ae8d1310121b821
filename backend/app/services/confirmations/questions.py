"""Confirmations: a turn that should not act without the user's yes asks, and keeps exactly what a yes runs.

A question is asked (`propose`) when deletions go over the per-turn cap; when the decision table
(calls/verdicts.py, docs/guard.md) held a call to be looked up and asked about, not run
(`NEEDS_CONFIRMATION`: a destructive change whose target the backend chose and the words do not name
exactly, a change on a message that asks for none but names the task, a message not read); when the
model asked about a change in words that cannot be shown (`restated`); and when a delete, complete or
update names several tasks of one title (then the user picks one: "2", "the second one", "la
segunda", "the one due Friday", "the urgent one", "the work one"). The next message in the
conversation answers it (`answer`): a yes in any covered language (or `"confirm":
"<id>"`) runs exactly the stored calls, with no LLM call; a no cancels; anything else cancels it and
is handled as a new message. Questions expire. Every question is written in the user's language,
from the tasks' own titles and facts, never from the model's words (which, restated, only say which).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal, cast

from backend.app.calls.codes import ResultCode
from backend.app.calls.payloads import AskedAction, AskedFacts, Choice, choices_of, task_id_of, title_of
from backend.app.calls.tools import BULK, Tool, having
from backend.app.calls.types import ExecutedCall
from backend.app.db.models import PendingConfirmation, Task
from backend.app.language.catalog import Texts
from backend.app.language.lexicon import day_names, fold, lexicons, month_names, words_of
from backend.app.language.reading.clauses import split_sentences
from backend.app.language.reading.when import day_in
from backend.app.schemas.chat import Confirmation, ConfirmationAction, ConfirmationAnswer
from backend.app.services.reply.wording import action_phrase, bulk_phrase, task_details
from backend.app.tools.account import FACTS, TaskRef
from backend.app.tools.referents import Pick, Referents, ambiguous, yes_with_change
from backend.app.tools.titles import named_in

ASKABLE = having("destructive")  # never without the user's own words or a yes
CHOOSABLE = having("targets")
_WORD = re.compile(r"[^\W\d_]{3,}")


@dataclass(frozen=True, slots=True)
class Proposal:
    """What to ask: `actions` are exactly the calls an answer runs ({name, arguments, label, facts});
    `answers` the (label, message) pairs a client may offer as buttons."""

    kind: Literal["confirm", "choose"]
    question: str
    actions: list[AskedAction]
    covers: frozenset[int] = field(default_factory=frozenset)  # id() of the calls it asks about
    answers: list[tuple[str, str]] = field(default_factory=list)

    @property
    def tools(self) -> frozenset[str]:
        """The changes an answer runs, by tool."""
        return frozenset(a["name"] for a in self.actions)

    def shown(self, *, expires_at: datetime) -> Confirmation:
        """The question as the response shows it, under a new id: a confirm's first answer carries the
        id, so a client's button answers this very question."""
        confirmation_id = str(uuid.uuid4())
        return Confirmation(
            id=confirmation_id,
            question=self.question,
            actions=[ConfirmationAction(name=a["name"], arguments=a["arguments"]) for a in self.actions],
            expires_at=expires_at,
            kind=self.kind,
            answers=[
                ConfirmationAnswer(
                    label=label,
                    message=message,
                    confirm=confirmation_id if self.kind == "confirm" and i == 0 else None,
                )
                for i, (label, message) in enumerate(self.answers)
            ],
        )


def propose(calls: Sequence[ExecutedCall], *, t: Texts) -> Proposal | None:
    """The question a turn's results call for, if any (a choice among twins first): the calls the
    decision table held to be asked about (their results say so), or over the cap on deletions."""
    for e in calls:
        asked = choices_of(e.result.data)
        if e.result.code == ResultCode.AMBIGUOUS and e.call.name in CHOOSABLE and asked and asked["choices"]:
            reference = None if asked.get("offered") else asked["reference"] or str(e.arguments.get("task_id") or "")
            return _choose(e.call.name, e.arguments, asked["choices"], reference, t, covers=frozenset({id(e)}))
    asks = [e for e in calls if _needs_yes(e)]
    if not asks:
        return None
    return _confirm([_action(e) for e in asks], t, covers=frozenset(map(id, asks)))


def restated(asked: tuple[Tool, str], tasks: Sequence[Task], *, t: Texts) -> Proposal | None:
    """The model's own offer of a change (language/reading/offer.py), asked in the catalog's words, for a
    turn whose words cannot be shown (the check that would verify them could not be read): "Do you
    want me to delete “Gym”? Answer yes or no.", whose yes runs that delete. Only where the title it
    quotes is the title of exactly one task, one it can change."""
    tool, title = asked
    fits = [x for x in tasks if fold(x.title).strip() == title]  # any status: "Résumé" done is no "Resume"
    if len(fits) != 1 or (tool == Tool.COMPLETE and fits[0].status != "pending"):
        return None
    return _confirm([AskedAction(name=tool, arguments={"task_id": str(fits[0].id)}, label=fits[0].title)], t)


def _confirm(actions: list[AskedAction], t: Texts, *, covers: frozenset[int] = frozenset()) -> Proposal:
    """A yes-or-no question about `actions`: "Do you want me to delete “Gym”? Answer yes or no."."""
    labels: dict[str, list[str]] = {}  # by tool, in the order asked
    for a in actions:
        labels.setdefault(a["name"], []).append(a["label"])
    phrases = [
        bulk_phrase(t, tool, titles) if len(titles) > BULK else t.join([action_phrase(t, tool, x) for x in titles])
        for tool, titles in labels.items()
    ]
    listed = t.join(phrases)
    question = t("Do you want me to {actions}? Answer yes or no.", actions=listed)
    answers = [(t("Yes"), t("yes")), (t("No"), t("no"))]
    return Proposal("confirm", question, actions, covers, answers)


def which_restated(tool: Tool, words: str, tasks: Sequence[Task], *, said: str, t: Texts) -> Proposal | None:
    """The model's question of which task a command's delete or completion is of ("Laquelle ? 1) Q1,
    2) Q10"), asked as the backend's own choice, for a turn whose words cannot be shown (the check that
    would verify them could not be read): the user's tasks the words name by their whole titles, in
    the order they stand there, each one the change can be made to. Only where the command's own
    words (`said`) name no one task ("delete yoga" is no choice between Gym and Taxes, nor "complete
    Q1" with Q1 done), and the question names two or more as alternatives: the titles of its last
    sentence that asks (of the whole words where that one names none: "Tu as … 1) Q1, 2) Q10.
    Laquelle ?"), none joined by "and" ("Do you mean Q1 and Q10?" asks about both, not one)."""
    if sum(named_in(said, x.title) for x in tasks) == 1:
        return None
    able = [x for x in tasks if tool != Tool.COMPLETE or x.status == "pending"]
    titles = [fold(x.title) for x in able]
    asking = _last_question(fold(words))
    where = asking if _titles_at(asking, titles) else fold(words)
    at = _titles_at(where, titles)
    named = sorted((x for x in able if fold(x.title) in at), key=lambda x: at[fold(x.title)])
    if len(named) < 2 or _joined(where, list(at)):
        return None
    offered = choices_of(ambiguous("", named, offered=True).data)
    assert offered is not None
    return _choose(tool, {}, offered["choices"], None, t)


def _last_question(words: str) -> str:
    """The last sentence of `words` (folded) that asks, as the reader splits them, or "" if none does."""
    asked = [s for s in split_sentences(words) if s.asked]
    if not asked:
        return ""
    return " ".join(f"{join} {clause}" for clause, join in zip(asked[-1].clauses, asked[-1].joins, strict=True))


def _joined(words: str, titles: Sequence[str]) -> bool:
    """Whether an "and" of some language joins the titles in `words` (their own words aside)."""
    between = words
    for title in sorted(titles, key=len, reverse=True):
        between = re.sub(rf"(?<!\w){re.escape(title)}(?!\w)", " § ", between)
    first, last = between.find("§"), between.rfind("§")
    return first >= 0 and words_of("additive").search(between[first:last]) is not None


def _titles_at(words: str, titles: Sequence[str]) -> dict[str, int]:
    """Where each title first stands whole in `words` (all folded): not inside a word ("Q1" of "Q10")
    nor inside a longer title standing there ("🧺" of "🧺 lakens")."""
    spans = [
        (m.start(), m.end(), title)
        for title in dict.fromkeys(titles)
        if title.strip()
        for m in re.finditer(rf"(?<!\w){re.escape(title)}(?!\w)", words)
    ]
    at: dict[str, int] = {}
    for start, end, title in sorted(spans):
        inside = any(s <= start and end <= e and e - s > end - start for s, e, _ in spans)
        if not inside:
            at.setdefault(title, start)
    return at


def _choose(
    tool: str,
    arguments: Mapping[str, Any],
    choices: list[Choice],
    reference: str | None,
    t: Texts,
    *,
    covers: frozenset[int] = frozenset(),
) -> Proposal:
    """Which of `choices` `tool` is to change (with the call's other `arguments`); `reference`: the
    words they all match (None: they were offered, as the words named none); `covers`: the call asked."""
    actions = [
        AskedAction(name=tool, arguments={**arguments, "task_id": c["id"]}, label=label(t, c), facts=_facts(c))
        for c in choices
    ]
    asks: dict[str, str] = {
        Tool.DELETE: t("Which one should I delete?"),
        Tool.COMPLETE: t("Which one should I complete?"),
        Tool.UPDATE: t("Which one should I update?"),
    }
    which = asks[tool]
    lines = [t("Multiple tasks match '{reference}'.", reference=reference)] if reference is not None else []
    lines.append(which)
    lines += [f"{i}. {a['label']}" for i, a in enumerate(actions, start=1)]
    lines.append(t("Answer with its number."))
    answers = [(str(i), str(i)) for i in range(1, len(actions) + 1)] + [(t("None of them"), t("no"))]
    return Proposal("choose", "\n".join(lines), actions, covers, answers)


def _facts(c: Choice) -> AskedFacts:
    """The title and the facts (`referents.FACTS`) that tell a candidate from its twins."""
    return AskedFacts(
        title=c["title"],
        status=c.get("status"),
        due_date=c.get("due_date"),
        priority=c.get("priority"),
        tags=c.get("tags"),
        created=c.get("created"),
    )


def label(t: Texts, choice: Mapping[str, Any]) -> str:
    """A candidate's title, with the facts that tell it from its twins."""
    apart = task_details(t, choice, [k for k in FACTS if k in (choice.get("apart") or [])], apart=True)
    return f"{choice['title']} ({', '.join(apart)})" if apart else str(choice["title"])


def _needs_yes(e: ExecutedCall) -> bool:
    """A call the decision table held to be asked about (looked up, not run), or over the cap."""
    if e.result.code == ResultCode.DESTRUCTIVE_LIMIT:
        return True
    if e.result.code == ResultCode.NEEDS_CONFIRMATION:
        return bool(task_id_of(e.result.data)) or (e.call.name == Tool.ADD and bool(title_of(e.result.data)))
    return False


def _action(e: ExecutedCall) -> AskedAction:
    task_id, title = task_id_of(e.result.data), title_of(e.result.data)
    arguments = dict(e.arguments)
    if task_id:
        arguments["task_id"] = task_id  # the task resolved then, not a title to resolve again
    elif e.call.name == Tool.ADD and title:
        arguments["title"] = title  # the title asked about (repaired from the user's words), not the model's
    label = str(title or e.arguments.get("task_id") or e.arguments.get("title") or "")
    return AskedAction(name=e.call.name, arguments=arguments, label=label)


@dataclass(frozen=True, slots=True)
class Answer:
    """What the user's message does to a pending question: run these calls, cancel, or neither
    (then it is cancelled and the message is a new one)."""

    verdict: Literal["run", "cancel", "new"]
    actions: tuple[AskedAction, ...] = ()
    how: str = ""


def answer(pending: PendingConfirmation, message: str, *, confirm: str | None, today: date | None = None) -> Answer:
    actions = cast(list[AskedAction], pending.actions)  # as `propose` kept them
    by_id = confirm is not None and confirm == str(pending.id)
    if by_id and (pending.kind == "confirm" or len(actions) == 1):
        return Answer("run", tuple(actions), "confirmed by id")
    said = Referents().answer(message)
    if pending.kind == "confirm":
        if said is True or (len(actions) == 1 and yes_with_change(message, actions[0]["name"])):
            return Answer("run", tuple(actions), "yes")
        return Answer("cancel" if said is False else "new", how="no" if said is False else "")
    picked = _pick(actions, message, today=today)
    if picked is not None:
        return Answer("run", (picked,), "chosen")
    if said is True and len(actions) == 1:
        return Answer("run", tuple(actions), "yes")
    return Answer("cancel" if said is False else "new", how="no" if said is False else "")


def _pick(actions: Sequence[AskedAction], message: str, *, today: date | None = None) -> AskedAction | None:
    """The action the user picked: by number or position ("2", "the second one", "pehla wala"), or by
    what tells it apart ("the one due Friday", "the 12th", "el 12 de marzo", "die von morgen", "the
    urgent one", "the work one") when exactly one fits."""
    said = fold(message)
    titled = [a for a in actions if _bare(asked_title(a)) == _bare(said)]
    if len(titled) == 1 and not _bare(said).isdigit():  # its whole title, however short ("A2"); "2" is a number
        return titled[0]
    shown = tuple(TaskRef(str(a["arguments"]["task_id"]), str(a["label"])) for a in actions)
    found = Referents(shown=shown, shown_last=True).resolve(message)
    extreme = _extreme(actions, said)
    if isinstance(found, Pick):
        picked = next(a for a in actions if str(a["arguments"]["task_id"]) == found.task.id)
        # "the latest": the last shown, and the one due last; two tasks for one word is no pick.
        return picked if extreme is None or extreme is picked else None
    if extreme is not None:
        return extreme
    fitting = [a for a in actions if _due_fits(a.get("facts") or AskedFacts(), said, today)]
    if len(fitting) == 1:
        return fitting[0]
    for fits in (_priority_fits, _word_fits):
        fitting = [a for a in actions if fits(a.get("facts") or AskedFacts(), said, actions)]
        if len(fitting) == 1:
            return fitting[0]
    return None


# A day of the month: "27", "the 27th", "am 27.", "el 2", "2日" (not "10am", "2 kids": see `_days`).
_DAY = re.compile(r"(?<![\d:.,])(\d{1,2})(st|nd|rd|th|er|e|o|a|º|°|\.|日)?(?![\d:月A-Za-z])")
_MONTH = re.compile(r"(\d{1,2})月")  # "8月1日"
_LETTERS = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def _extreme(actions: Sequence[AskedAction], said: str) -> AskedAction | None:
    """ "the earliest", "la más próxima", "die späteste": the choice due first, or last."""
    dated = [a for a in actions if (a.get("facts") or AskedFacts()).get("due_date")]
    if len(dated) < 2:
        return None
    answer = " ".join(_LETTERS.findall(said))  # the whole answer is the phrase: not "la de la semana próxima"
    for kind, pick in (("soonest", min), ("latest", max)):
        if any((p := lex.dates.word(kind)) is not None and p.fullmatch(answer) for lex in lexicons()):
            return pick(dated, key=lambda a: str(a["facts"]["due_date"]))
    return None


def _due_fits(facts: AskedFacts, said: str, today: date | None) -> bool:
    """ "the one due Friday", "la del viernes", "the 12th", "el 12", "am 12.", "March 12", "12 mars",
    "la de mañana", or the date itself: what the answer says of a date is all true of the due date."""
    due = facts.get("due_date")
    if not due:
        return False
    if str(due) in said:
        return True
    when = date.fromisoformat(str(due))
    if any((p := lex.dates.weekdays[when.weekday()]) is not None and p.search(said) for lex in lexicons()):
        return True
    if any(day == when.weekday() and _named(name, said) for day, name in day_names()):
        return True
    if today is not None and _relative(said, today) == when:
        return True
    months = {number for number, name in month_names() if _named(name, said)} | {int(m) for m in _MONTH.findall(said)}
    days = _days(said, dated=bool(months))
    return bool(days) and when.day in days and (not months or when.month in months)


def _days(said: str, *, dated: bool) -> set[int]:
    """The days of the month an answer names: a number with an ordinal mark ("27th", "27.", "2日"), or
    any number beside a month's name, or in a short answer ("el 2", "o do dia 24"); a month named
    without a day names none ("the one in March" is left to the user's next words)."""
    short = len(said.split()) <= 4
    return {int(n) for n, mark in _DAY.findall(said) if 1 <= int(n) <= 31 and (mark or dated or short)}


def asked_title(action: AskedAction) -> str:
    """The title of the task an asked call was asked about with."""
    return str((action.get("facts") or AskedFacts()).get("title") or action["label"])


def _bare(text: str) -> str:
    """A title or an answer as compared whole: folded, without the quotes and marks around it."""
    return fold(text).strip(" \t\"'“”‘’«».,!?¿¡")


def _named(name: str, said: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", said) is not None


def _relative(said: str, today: date) -> date | None:
    """The day a word like "today", "tomorrow", "pasado mañana", "in 3 days", "next week" names, in any
    covered language (the reader of commands' own: language/reading/when.py)."""
    found = day_in(said, today)
    return found[1] if found is not None else None


def _priority_fits(facts: AskedFacts, said: str, actions: Sequence[AskedAction]) -> bool:
    """ "the urgent one", "la de prioridad alta", "die wichtige"."""
    priority = facts.get("priority")
    if not priority:
        return False
    return any((p := lex.priorities.get(str(priority))) is not None and p.search(said) for lex in lexicons())


def _word_fits(facts: AskedFacts, said: str, actions: Sequence[AskedAction]) -> bool:
    """ "the work one": a tag, or a word of its title, that the user says and no other candidate has."""
    words = set(_WORD.findall(said))
    own = _words_of(facts)
    others = set().union(*(_words_of(a.get("facts") or AskedFacts()) for a in actions if a.get("facts") is not facts))
    return bool(words & (own - others))


def _words_of(facts: AskedFacts) -> set[str]:
    text = " ".join([str(facts.get("title") or ""), *[str(t) for t in facts.get("tags") or []]])
    return set(_WORD.findall(fold(text)))
