"""Reading a chat message: which task actions it asks for, if any.

The execution guard forces a tool only for a clear command, so the reader leans towards "not a
command" whenever a message could be anything else. A question of any form, advice-seeking, a
report or a hypothetical, a negation and a retraction never ask for a change, whatever verb they
contain ("did I already finish the taxes?", "should I delete the old invoices?", "I nearly removed
the gym task", "wait, leave that one").

The words come from the language files (`language/data/*.toml`); the rules are the same for every
language. This module applies them to a message; `clauses.py` reads one clause (rules 2 and 4):

1. Quoted text ('...' or "...") is a title, never scanned (an action keeps it in its `object`: the
   quote belongs to the clause it stands in).
2. The message is cut into sentences and clauses. In each clause the leftmost verb form, in any
   covered language, names the tool; the words around it say whether the clause asks for it
   (`en.toml` explains the forms). When languages disagree, a reading that does not ask wins.
3. A clause without a verb after a command in the same sentence is another item of it ("add milk,
   eggs and bread"), unless it only qualifies ("add call mom tomorrow, high priority").
4. "remove the tag from X" and "add a note to X" are edits of X (update_task), not deletes or adds.
5. A retraction takes back the commands before it in the message.
6. A message made only of small talk (thanks, greetings, acknowledgements, in any covered
   language) is `small_talk`: it asks for nothing, whatever a model makes of it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache

from backend.app.calls.tools import Tool, having
from backend.app.language.lexicon import fold, lexicon
from backend.app.language.reading.asks import Action, Intent, Kind
from backend.app.language.reading.clauses import (
    ITEM_TOOLS,
    Reading,
    Sentence,
    is_item,
    listed_item,
    only_fillers,
    opens_titles,
    read_clause,
    short,
    split_sentences,
    whole,
)
from backend.app.language.reading.exceptions import gives_value, in_clause, in_verbless
from backend.app.language.reading.keeps import kept_words, named_words
from backend.app.language.reading.naming import names_something
from backend.app.language.reading.negation import Scope, and_joined, declines, verbs_of
from backend.app.language.reading.quoted import PLACEHOLDER, placeheld_field, restored, unquoted
from backend.app.language.reading.state import asks_how_it_stands, questions_of_state

_TARGETS = having("targets")  # the tools that change existing tasks: what an exception leaves out of
_LOSING = having("destructive")  # a delete, a completion: what a keep beside it may take back
_NOT_ASKING = ("question", "report", "chat", "small_talk")  # not a command, a no, nor advice (state.py)


@cache
def verb_last(code: str) -> bool:
    """Whether the language may put a command's verb last ("milk add kar do", "Milch hinzufügen")."""
    return (lex := lexicon(code)) is not None and lex.verb_last()


def classify(message: str) -> Intent:
    """Read one chat message; never raises."""
    text, typed = placeheld_field(message)
    sentences = split_sentences(text)
    intent, free = _classify(sentences, alone=_one_clause(sentences))
    intent = _how_it_stands(intent, sentences)
    free_text = unquoted(" ".join(free if intent.needs_tool else [text]))
    actions = tuple(
        dataclasses.replace(
            a,
            text=short(restored(a.text, typed)),
            object=restored(a.object, typed),
            clause=restored(a.clause, typed),
        )
        for a in intent.actions
    )
    # What a no names: its clauses, and the quotes in them as typed ("delete \"Gym\"... wait, no").
    said_no = [(typed[int(i)], c) for c in intent.declined for i in PLACEHOLDER.findall(c) if int(i) < len(typed)]
    declined = tuple(unquoted(c) for c in intent.declined) + tuple(q for q, _ in said_no)
    of = dict(intent.declined_tools)
    to = [(unquoted(c), of[c]) for c in intent.declined if c in of] + [(q, of[c]) for q, c in said_no if c in of]
    return dataclasses.replace(
        intent,
        actions=actions,
        free=free_text,
        quotes=tuple(typed),
        declined=declined,
        declined_tools=tuple(to),
        supposed=tuple(unquoted(c) for c in intent.supposed),
        kept=tuple(restored(k, typed) for k in intent.kept),
        kept_beside=tuple(dataclasses.replace(a, clause=restored(a.clause, typed)) for a in intent.kept_beside),
    )


@dataclass
class _Found:
    """What `_classify` has read so far of a message."""

    actions: list[Action] = dataclasses.field(default_factory=list)
    free: list[str] = dataclasses.field(default_factory=list)  # the clauses no action took
    reasons: list[str] = dataclasses.field(default_factory=list)
    other: tuple[Kind, str] | None = None  # the first reading that asks for nothing, if no command stands
    languages: list[str] = dataclasses.field(default_factory=list)
    weak: list[Tool] = dataclasses.field(default_factory=list)
    # the clauses that say no, in order, each with the changes it says no to (none: every change)
    declined: dict[str, tuple[Tool, ...]] = dataclasses.field(default_factory=dict)
    small_talk: bool = False  # a clause of small talk
    supposed: list[str] = dataclasses.field(default_factory=list)  # the clauses that suppose (Intent.supposed)
    chatted: bool = False  # a clause that is not
    excepting: bool = False  # the clause before left something out ("except gym"): a verbless one now does too
    open: bool = False  # a verbless clause left something out, and no verb came since ("alles außer Gym, ...")
    changing: tuple[Tool, ...] = ()  # the sentence's last command's tools, if it changes existing tasks
    valued: bool = False  # that command is an edit that gives a value ("set all to high, …")
    no: Scope = dataclasses.field(default_factory=Scope)  # how far a no reaches in the sentence
    # What the keeps that name their task keep ("taxes" of "keep taxes"), the clauses they put in
    # `free` (theirs, and the commands' beside them) and the commands they left free, with their tools.
    keeps: list[str] = dataclasses.field(default_factory=list)
    by_keeps: list[str] = dataclasses.field(default_factory=list)
    beside: list[Action] = dataclasses.field(default_factory=list)
    loose: list[str] = dataclasses.field(default_factory=list)  # items joined by a comma ("delete gym, sorry, …")
    keeping: bool = False  # the clause before was a keep that names its task, or one more task of it

    def in_no(self, clause: str, reading: Reading | None, join: str) -> bool:
        """Whether the clause is in a no (`Scope`), with the items "and" joined right before it that it
        takes back ("lösch Yoga, aber Gym und Taxes nicht": Gym): what they name is what the no names."""
        said, back, tools = self.no.said(clause, reading, join, self.changing, len(self.actions))
        if not said:
            return False
        at = len(self.actions) if back is None else back
        taken, self.actions[at:] = self.actions[at:], []
        words = [*(a.clause for a in taken), clause]
        self.free.extend(words)
        self.say_no([*said[:-1], *words], tools)
        return True

    def say_no(self, clauses: list[str], tools: tuple[Tool, ...] = ()) -> None:
        """The clauses say no to the changes of `tools` (none: to every change)."""
        for clause in clauses:
            before = self.declined.get(clause, tools)
            self.declined[clause] = tuple(dict.fromkeys([*before, *tools])) if before and tools else ()

    def retract(self, clause: str) -> None:
        """A retraction takes back the commands before it ("delete gym, wait, no"): what their clauses
        and its own name is what the no names (never the target of a change, nor of a question about
        one), and no words of the user's for another change ("... no wait, mark it done instead")."""
        if self.actions:
            taken = ", ".join(dict.fromkeys(a.tool for a in self.actions))
            self.other = ("negated", f"'{short(clause)}' takes back {taken}")
            self.say_no(list(dict.fromkeys(a.clause for a in self.actions)))
            self.actions.clear()
            self.reasons.clear()
        else:
            self.other = self.other or ("negated", f"'{short(clause)}' retracts")
        self.free.append(clause)
        self.say_no([clause])

    def keep(self, clause: str, words: str) -> None:
        """A keep that names its task ("delete gym, keep taxes"; `words`: "taxes"): a no to every change
        of what it names. The deletes and completions before it are no longer asked, nor taken back:
        they are asked about (row C14; what a keep's other words point to the reader cannot always
        tell: "behalte sie"), or run where its words are one other task's title (`Intent.kept`, T19).
        A command about all it keeps it takes back ("delete gym, actually keep gym"); beside adds and
        edits alone it takes nothing back ("add milk but keep the receipt")."""
        if self.actions and not any(set(a.tools) & _LOSING for a in self.actions):
            self.free.append(clause)
            self.say_no([clause])
            return
        kept = named_words(words)  # the same words, no more: "keep gym class" takes back no "delete gym"
        taken = [a.clause for a in self.actions if (named := named_words(a.about)) and named == kept]
        self.other = ("negated", f"'{short(clause)}' keeps what it names")
        said = [*dict.fromkeys(a.clause for a in self.actions), clause]
        self.free += said
        self.keeps.append(words)
        self.by_keeps += said
        self.beside += [a for a in self.actions if a.clause not in taken]
        self.say_no([*taken, clause])
        self.actions.clear()
        self.reasons.clear()

    def takes_back(self, clause: str, join: str, asked: bool) -> bool:
        """Whether the clause is a retraction or a keep (`keep`), or one more task the keep right before
        it keeps, joined to it by "and" ("yoga" of "keep taxes and yoga"): read as such."""
        after, self.keeping = self.keeping, False
        if retraction := whole("retraction", clause):
            self.retract(clause) if (kept := kept_words(clause)) is None else self.keep(clause, kept)
            self.keeping = kept is not None
        elif after and and_joined(join) and is_item(clause) and read_clause(clause, asked=asked) is None:
            self.free.append(clause)
            self.keeps.append(" ".join(fold(clause).split()))
            self.by_keeps.append(clause)
            self.say_no([clause])
            self.keeping = True
        return retraction or self.keeping

    def kept(self) -> tuple[str, ...]:
        """What the keeps keep, where the message says nothing else: every clause no action took is a
        keep's or a command's beside one (not "thanks, I'm done with yoga", nor "…, actually, …"), and
        an item beside one is joined to it by "and" (not "delete gym, sorry, keep taxes")."""
        alone = set(self.free) <= set(self.by_keeps) and set(self.declined) <= set(self.by_keeps)
        return tuple(self.keeps) if alone and not any(a.clause in self.loose for a in self.beside) else ()

    def leaves_out(self, clause: str, leading: list[str]) -> str:
        """What of a verbless clause is not a no ("" when none is): all of it is one where it opens
        with a negation after a command ("delete gym, not the yoga") or follows an exception ("...
        except gym, and yoga"); an exception's words are ("except gym", "but gym" kept after
        "everything", "gym ke ilawa"), after a change of tasks in the sentence; before one, only
        after words for every task ("alles außer Gym" of "alles außer Gym und Yoga löschen")."""
        if (self.excepting and not self._own_value(clause)) or (self.actions and declines(clause)):
            start, end = 0, len(clause)
        elif span := in_verbless(clause, self.changing, edit=self.valued and bool(self.actions)):
            (start, end), self.excepting = span, True
            self.open = start > 0 and end == len(clause)
        else:
            return clause
        rest = (clause[:start] + " " + clause[end:]).strip()
        no = clause[start:end] if rest else clause
        self.free += [no] if rest else [*leading, no]
        self.say_no([no], self.changing)
        return rest

    def _own_value(self, clause: str) -> bool:
        """A verbless clause after an edit's exception that gives a value: that task's own change
        ("move everything except gym to friday, and gym to monday")."""
        return Tool.UPDATE in self.changing and gives_value(clause)

    def command(self, clause: str, reading: Reading, leading: list[str]) -> None:
        """A command's action; in a language that puts the verb last, the items before it are its items
        too ("taxes aur bread delete kar do"). What its exception leaves out is a no ("delete all except
        gym"), with the items before it where it stands before the verb ("gym aur yoga ke ilawa ..."),
        as are the words before a verb that comes last while an exception is open ("alles außer Gym
        und Yoga löschen")."""
        excepted = in_clause(clause, reading, reading.tools, opened=self.open)
        if excepted is not None:
            clause, no = excepted.clause, [*(leading if excepted.leading_too else ()), excepted.left_out]
            leading = [] if excepted.leading_too else leading
            self.free.extend(no)
            self.say_no(no, reading.tools)
        self.excepting, self.open = excepted is not None, False
        self.changing = reading.tools if set(reading.tools) & _TARGETS else ()
        self.no.commanded(clause, reading)
        self.valued = Tool.UPDATE in self.changing and gives_value(clause[reading.head :])
        if leading and set(reading.tools) & ITEM_TOOLS and verb_last(reading.language):
            self.actions += [_item(c, reading) for c in leading]
        else:
            self.free.extend(leading)
        self.actions.append(_action(clause, reading))
        self.reasons.append(reading.why)

    def asks_nothing(self, clause: str, reading: Reading, leading: list[str], join: str) -> None:
        """A clause whose verb asks for no change (a question, a report, a no). A no says no to the
        items before it that "and" joins to it, in a language that puts the verb last ("gym aur
        taxes delete mat karo")."""
        self.free += [*leading, clause]
        self.supposed += [clause] if reading.supposes else []
        self.other = self.other or (reading.kind, reading.why)
        if reading.kind == "negated":  # only the verb's own no ("delete mat karo", not "nai diary delete")
            tools = verbs_of(clause, reading)
            self.no.negated(clause, reading, tools)
            joined = verb_last(reading.language) and and_joined(join) and self.no.tools is not None
            self.say_no([*(leading if joined else ()), clause], tools)
        if reading.weak and reading.kind == "chat":
            self.weak += [t for t in reading.tools if t not in self.weak]

    def item(self, clause: str, command: Reading, join: str) -> None:
        """One more item of `command`. The first after a clause ending with a colon ("add these:",
        "lägg till:", "delete these:") makes that clause the list's heading: its own words are no
        item, the items are what it asks for."""
        last = self.actions[-1] if self.actions else None
        if last is not None and last.explicit and last.clause.rstrip().endswith(":"):
            self.free.append(self.actions.pop().clause)
        self.no.item(len(self.actions), join)
        self.actions.append(_item(clause, command))
        self.loose += [] if and_joined(join) else [clause]

    def intent(self) -> Intent:
        languages, weak = tuple(self.languages), tuple(self.weak)
        if self.actions:
            reason = "; ".join(self.reasons[:3]) or "items of a command"
            read = Intent("command", tuple(self.actions), reason, languages)
        elif self.other is not None:
            read = Intent(self.other[0], (), self.other[1], languages, weak_tools=weak)
        elif self.small_talk and not self.chatted:
            return Intent("small_talk", (), "small talk: asks for nothing", languages)
        else:
            read = Intent("chat", (), "no task verb", languages, weak_tools=weak)
        said = tuple((clause, tools) for clause, tools in self.declined.items() if tools)
        kept = self.kept() if read.kind == "negated" else ()
        beside = tuple(self.beside) if kept else ()
        return dataclasses.replace(
            read, declined=tuple(self.declined), declined_tools=said, kept=kept, kept_beside=beside,
            supposed=tuple(self.supposed),
        )  # fmt: skip


def _how_it_stands(intent: Intent, sentences: list[Sentence]) -> Intent:
    """A message that asks for nothing else may ask how a task stands ("did I already pay the rent?"),
    unless a change's verb stands out of a command's place in it ("…? if so mark it done"); beside a
    command, its sentences that do are what it asks about ("did I pay the rent? add call landlord")."""
    if intent.kind == "command":
        return dataclasses.replace(intent, asked_state=questions_of_state(sentences))
    if intent.kind not in _NOT_ASKING or intent.weak_tools or (how := asks_how_it_stands(sentences)) is None:
        return intent
    return dataclasses.replace(intent, kind="state", reason=f"'{short(how)}' asks how a task stands")


def _item(clause: str, command: Reading) -> Action:
    """A verbless clause as one more item of `command` ("add milk, eggs": "eggs")."""
    return Action(command.tools, short(clause), False, clause, language=command.language, clause=clause)


def _action(clause: str, reading: Reading) -> Action:
    """What a command's clause asks: the clause without its verb, nor the fillers and request frame
    before it ("tu peux cocher la tâche" is about "la tâche")."""
    rest = clause[reading.head : reading.start] + " " + clause[reading.start + reading.length :]
    # A verb around its object ("strike gym off", "hak gym ab"): the clause is what it is about.
    own = clause[reading.head :]  # past the fillers and request frame
    about = rest if names_something(rest, references=False) else own
    verb = clause[reading.start : reading.start + reading.length]
    return Action(reading.tools, short(clause), True, " ".join(about.split()), verb, reading.language, own)


def _one_clause(sentences: list[Sentence]) -> bool:
    """The message says one thing: one clause but small talk and fillers ("ok, Once a week plants is done.
    Thanks!"), which a condition needs more than (clauses.py)."""
    said = [c for clauses, _, _ in sentences for c in clauses if c.strip() and not only_fillers(c)]
    return len([c for c in said if not whole("small_talk", c)]) == 1


def _classify(sentences: list[Sentence], *, alone: bool) -> tuple[Intent, list[str]]:
    """The reading, and the clauses no action took (`alone`: `_one_clause`)."""
    found = _Found()
    carried: Reading | None = None  # a command whose list goes on over the next lines ("add these:\n- milk")
    numbered = False  # the sentence before was a line's number only ("1." of "1. milk")
    for clauses, asked, joins in sentences:
        previous: Reading | None = carried
        mood: Reading | None = None  # a question, advice or report governs the verbs coordinated with it
        colon: Reading | None = None  # an add with a colon after its verb: the rest of the sentence lists its titles
        leading: list[str] = []  # verbless items before the sentence's first verb ("taxes aur bread delete kar do")
        found.excepting, found.open, found.changing = False, False, ()  # an exception ends with its sentence
        found.keeping = False  # so does a keep
        found.no.start()  # so does a no
        for raw, join in zip(clauses, joins, strict=True):
            if not (clause := raw.strip(" \t\"'")):  # not only quote marks: '""'
                continue
            if whole("small_talk", clause) or only_fillers(clause):
                found.small_talk, previous = True, None
                found.free.append(clause)
                continue
            if found.takes_back(clause, join, asked):
                previous = None
                continue
            found.chatted = True
            reading = read_clause(clause, asked=asked, alone=alone)
            if reading is not None and reading.kind == "command" and mood is not None and not reading.requested:
                why = f"{mood.why} (and '{short(clause)}' with it)"
                reading = Reading(mood.kind, (), why, 0, mood.language, supposes=True)
            if found.in_no(clause, reading, join):  # after "Taxes nicht" the command goes on ("…, und Yoga")
                leading, previous = [], previous if found.no.closed else None
                continue
            if reading is None and not (clause := found.leaves_out(clause, leading)):
                leading, previous = [], None
                continue
            listed = listed_item(clause, reading, previous, colon=colon, numbered=numbered)
            if reading is None or listed:
                if listed and previous is not None:
                    found.item(clause, previous, join)
                elif not found.actions and mood is None and is_item(clause):
                    leading.append(clause)
                else:
                    found.free.append(clause)
                continue
            if reading.language not in found.languages:
                found.languages.append(reading.language)
            if reading.kind == "command":
                found.command(clause, reading, leading)
                leading = []
                previous, colon = reading, reading if opens_titles(clause, reading) else colon
            else:
                found.asks_nothing(clause, reading, leading, join)
                leading, previous = [], None
                if reading.sets_mood:
                    mood = mood or reading
        found.free.extend(leading)
        # A sentence that ends with a colon opens a list; its lines go on while they are only items.
        opens = bool(clauses) and clauses[-1].rstrip().endswith(":")
        numbered = len(clauses) == 1 and clauses[0].strip().isdigit()
        carried = previous if previous is not None and (opens or previous is carried) else None
    return found.intent(), found.free
