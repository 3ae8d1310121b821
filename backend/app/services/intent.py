"""Reading a chat message: which task actions it asks for, if any.

The execution guard forces a tool only for a clear command, so the reader leans towards "not a
command" whenever a message could be anything else. A question of any form, advice-seeking, a
report or a hypothetical, a negation and a retraction never ask for a change, whatever verb they
contain ("did I already finish the taxes?", "should I delete the old invoices?", "I nearly removed
the gym task", "wait, leave that one").

The words come from the language files (`language/data/*.toml`); the rules here are the
same for every language:

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
import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

from backend.app.language.detect import scores
from backend.app.language.lexicon import QUOTES, Lexicon, ToolName, VerbPattern, conjunctions, fold, lexicons
from backend.app.language.lexicon import modifiers as _modifiers
from backend.app.language.lexicon import task_nouns as _task_nouns

Kind = Literal["command", "question", "advice", "report", "negated", "small_talk", "chat", "too_long"]
KINDS: tuple[Kind, ...] = ("command", "question", "advice", "report", "negated", "small_talk", "chat", "too_long")
# Items of a list ("add milk, eggs and bread") are counted for these tools only.
_ITEM_TOOLS = frozenset({"add_task", "delete_task", "complete_task"})
# How much of a message the reader reads: its word lists are a few thousand regular expressions, and
# the worst text costs up to ~30 microseconds a character here; these bounds keep the worst message
# under 10 ms of CPU on this host (`python -m backend.devtools.bench.reader`: 8.3 ms at a 130 ms probe).
# A message beyond them (quoted text counts as one word, and so does a long field value: "description:
# …") is `too_long`: not read, it asks for no change and the guard runs none (a retraction or a
# question may be anywhere in it).
READ_CHARS = 300
READ_CLAUSES = 16
# When two languages read one clause differently, the most cautious reading wins.
_CAUTION: dict[Kind, int] = {
    "negated": 0,
    "advice": 1,
    "report": 2,
    "question": 3,
    "small_talk": 4,
    "chat": 4,
    "command": 5,
    "too_long": 0,
}


@dataclass(frozen=True, slots=True)
class Action:
    """One thing the message asks for: the tools that would do it (the first is the one to force),
    the clause that asks, and whether it has a verb of its own (an item of a list has not)."""

    tools: tuple[ToolName, ...]
    text: str
    explicit: bool = True
    object: str = ""  # the clause without its verb: what the action is about ("milk" of "add milk")
    verb: str = ""  # the verb's words as matched ("strike gym off": a verb around its object)
    language: str = ""  # the language file that read it
    clause: str = ""  # the whole clause

    @property
    def tool(self) -> ToolName:
        return self.tools[0]

    @property
    def about(self) -> str:
        """What the action is about, without its verb. A verb around its object ("hak gym ab", "voeg
        melk toe", "pon huevos en la lista") keeps what it holds: only its first word goes, and its
        last unless that is the list's (which a title's edges then drop, with what says which list)."""
        tokens, verb = self.object.split(), self.verb.split()
        around = self.object == self.clause or any(_task_nouns().fullmatch(w) for w in verb)
        if not around or not verb:
            return self.object
        for k in range(len(tokens) - len(verb) + 1):
            if [fold(t) for t in tokens[k : k + len(verb)]] == verb:
                last = tokens[k + len(verb) - 1]
                inner = tokens[k + 1 : k + len(verb) - 1]
                if len(verb) > 1 and _task_nouns().fullmatch(fold(last)):
                    inner.append(last)
                return " ".join(tokens[:k] + inner + tokens[k + len(verb) :])
        return self.object


@dataclass(frozen=True, slots=True)
class Intent:
    """What a message asks for: `actions` in order, empty unless `kind == "command"`; `free`, the
    words no action took (the whole message when none did), without quoted text; `quotes`, the
    quoted text as typed."""

    kind: Kind
    actions: tuple[Action, ...]
    reason: str
    languages: tuple[str, ...] = ()
    free: str = ""
    quotes: tuple[str, ...] = ()
    # Tools whose verbs the message has, but not where a command's verb stands ("you can tick off X"):
    # on a message read as nothing else, a call of one of these on what the user's words name may run.
    weak_tools: tuple[ToolName, ...] = ()
    # The clauses that say no ("don't delete yoga" of "don't delete yoga, it's the laundry that needs
    # to go"): what they name is never the target of a change, nor of a question about one.
    declined: tuple[str, ...] = ()

    def words_for(self, tool: str) -> str:
        """The words that ask for `tool`: what its actions are about, quotes included."""
        return "\n".join(a.object for a in self.actions if tool in a.tools)

    def about_for(self, tool: str) -> str:
        """What the actions asking for `tool` are about, without their verbs."""
        return "\n".join(a.about for a in self.actions if tool in a.tools)

    def clauses_for(self, tool: str) -> str:
        """The clauses that ask for `tool`, verb and all."""
        return "\n".join(a.clause for a in self.actions if tool in a.tools)

    def content_for(self, tool: str) -> str:
        """What the user gave as content, for a call of `tool`: quoted text outside the words asking
        for it, and the titles of tasks to add; and the clauses that say no ("delete gym, not the
        yoga"). It names no target for that call, nor one to ask about."""
        own = self.words_for(tool)
        parts = [q for q in self.quotes if q not in own]
        if tool != "add_task":
            parts += [self.words_for("add_task"), *self.declined]
        return "\n".join(p for p in parts if p)

    @property
    def tools(self) -> tuple[ToolName, ...]:
        return tuple(dict.fromkeys(t for a in self.actions for t in a.tools))

    @property
    def needs_tool(self) -> bool:
        return self.kind == "command" and bool(self.actions)

    @property
    def primary(self) -> ToolName | None:
        return self.actions[0].tool if self.actions else None


@dataclass(frozen=True, slots=True)
class _Reading:
    kind: Kind
    tools: tuple[ToolName, ...]
    why: str
    start: int
    language: str
    length: int = 0  # of the verb match: a longer one is the more specific reading
    requested: bool = False  # the clause opens with a request frame of its own ("can you ...")
    sets_mood: bool = False  # a question, advice or supposition that governs the verbs coordinated with it
    weak: bool = False  # only "the verb is not where a command's is": another language may know better
    head: int = 0  # where the clause's own words start, past fillers and a request frame


_QUOTED = re.compile(r"\"[^\"]*\"|(?<![\w'])'[^']*'(?!\w)")
_PLACEHOLDER = re.compile(r"\"?§(\d+)§\"?")  # a quoted span while the message is read (no pattern matches §)
# A period in a number ("1.5 h") or after a number that follows a word ("auf den 15. Dezember") ends
# no sentence; one after a number that opens a sentence or follows ':' does ("description: 1. Revenue").
_SENTENCE = re.compile(r"(?:[^.!?;\n¿¡]|(?<=\d)\.(?=\d)|(?:(?<=\w \d)|(?<=\w \d\d))\.(?= ?[^\W_]))*[.!?;\n]*")
_SPACES = re.compile(r"[ \t\u00a0]+")
_PUNCT = re.compile(r"^\W+|\W+$")
_WORDS = re.compile(r"[^\W\d_]+")
_ITEM_NOISE = re.compile(r"\d+(?:[:./-]\d+)*(?:st|nd|rd|th|am|pm)?|#[\w-]+|\"\"|[^\w\s]")


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 50 else text[:47] + "..."


def _first_verb(lex: Lexicon, clause: str) -> tuple[VerbPattern, re.Match[str]] | None:
    """The leftmost verb form; at one position the longest, then the first in the file. One scan
    finds the position (`any_verb`), the forms are then only tried there."""
    first = _search(lex.any_verb, clause)
    if first is None:
        return None
    at = first.start()
    found = [(v, m) for v in lex.verbs if (m := v.pattern.match(clause, at))]
    return min(found, key=lambda f: (-len(f[1].group()), f[0].order), default=None)


def _head(lex: Lexicon, clause: str) -> tuple[int, bool]:
    """Where the clause's own words start once fillers and request frames are stripped, and whether
    a request frame was stripped ("please can you just ...")."""
    pos, requested = 0, False
    while True:
        if (end := lex.skip("fillers", clause, pos)) is not None:
            pos = end
        elif (end := lex.skip("request", clause, pos)) is not None:
            pos, requested = end, True
        else:
            return pos, requested


def _search(pattern: re.Pattern[str] | None, text: str) -> re.Match[str] | None:
    return pattern.search(text) if pattern is not None else None


def _is_question_opening(lex: Lexicon, clause: str) -> bool:
    opener = lex.word("question")
    return opener is not None and opener.match(clause, lex.after_fillers(clause)) is not None


def _field_edit(lex: Lexicon, after: str) -> bool:
    """'remove the tag from X', 'add a due date to X': a field of a task within three words."""
    fields = lex.word("fields")
    if fields is None:
        return False
    window = " ".join(after.split()[:4])
    return bool(fields.search(window)) and bool(_search(lex.word("field_links"), after))


def _read_in(lex: Lexicon, clause: str, *, asked: bool) -> _Reading | None:
    """How one language reads a clause, if it finds one of its verbs in it."""
    found = _first_verb(lex, clause)
    if found is None:
        return None
    verb, match = found
    start, word = match.start(), _short(match.group())
    before, after = clause[:start], clause[match.end() :]
    question = asked or _is_question_opening(lex, clause)

    head, requested = _head(lex, clause)

    def reading(kind: Kind, why: str, tools: tuple[ToolName, ...] = (), *, mood: bool = True) -> _Reading:
        sets_mood = mood and kind in ("question", "advice", "report")
        return _Reading(
            kind, tools, why, start, lex.code, len(match.group()), requested, sets_mood, head=min(head, start)
        )

    negation = lex.word("negation")
    if neg := _search(negation, before) or (lex.flag("negation_anywhere") and _search(negation, after)):
        return reading("negated", f"'{word}' is negated by '{neg.group()}'")
    advice = lex.word("advice")
    if adv := _search(advice, before) or (lex.flag("advice_anywhere") and _search(advice, after)):
        return reading("advice", f"'{_short(adv.group())}' asks for advice about '{word}'")
    usage = _search(lex.word("usage"), clause)
    if usage is not None and (usage.start() <= start or lex.flag("usage_anywhere")):
        return reading("question", f"'{_short(usage.group())}' asks how the app works")
    not_asking: Kind = "question" if question else "report"
    if verb.form == "past":  # "I deleted gym yesterday, can you add it back?": the past governs only itself
        return reading(not_asking, f"'{word}' tells what happened", mood=False)
    if rep := _search(lex.word("report"), before) or (
        lex.flag("report_anywhere") and _search(lex.word("report"), after)
    ):
        return reading(not_asking, f"'{_short(rep.group())}' reports or supposes '{word}'")
    tools = verb.tools
    if set(tools) & {"add_task", "delete_task"} and _field_edit(lex, after):
        tools = ("update_task",)
    command = f"'{word}' asks for {tools[0]}"
    if verb.form == "declarative":
        if question and "list_tasks" not in tools:  # "is the report done?"; but "what's left?" asks for the list
            return reading("question", f"'{word}' is asked about")
        return reading("command", command, tools)
    # "time to clean up: delete gym": what follows a colon with no verb before it starts afresh.
    colon = clause.rfind(":", 0, start)
    after_colon = colon + 1 + len(clause[colon + 1 :]) - len(clause[colon + 1 :].lstrip()) if colon >= 0 else -1
    at_head = start == head or (colon >= 0 and lex.after_fillers(clause, after_colon) == start)
    if verb.form == "imperative" and (at_head or lex.flag("imperative_anywhere")):
        return reading("command", command, tools)
    if verb.form == "infinitive" and (
        requested
        or (at_head and not question and lex.flag("infinitive_at_head"))
        or (lex.flag("infinitive_at_end") and not question and not _PUNCT.sub("", after))
    ):
        return reading("command", command, tools)
    fallback = reading("question" if question else "chat", f"'{word}' is not in a command position", tools)
    return dataclasses.replace(fallback, weak=True)


def _read_clause(clause: str, *, asked: bool) -> _Reading | None:
    """The most cautious reading any language gives the clause. A reading that only found a verb
    out of a command's place is weaker than another language's command: "milk add karo" is Urdu
    word order, not an English statement."""
    readings = [r for lex in lexicons() if (r := _read_in(lex, clause, asked=asked)) is not None]
    if not readings:
        return None
    if any(r.kind == "command" for r in readings):
        readings = [r for r in readings if not r.weak]
    # Between commands, the longer verb match is the more specific one ("marque ... comme urgente").
    return min(readings, key=lambda r: (_CAUTION[r.kind], r.start, -r.length))


def _whole(kind: str, clause: str) -> bool:
    """The clause, without fillers and punctuation, is one of the language's `kind` phrases, or (a
    retraction) a run of them ("ah non, laisse tomber", "wait, nvm, keep it")."""
    for lex in lexicons():
        pattern = _run(lex.code, kind) if kind == "retraction" else lex.word(kind)
        if pattern is None:
            continue
        for rest in (_PUNCT.sub("", clause[lex.after_fillers(clause) :]), _PUNCT.sub("", clause)):
            if rest and pattern.fullmatch(rest):
                return True
    return False


@cache
def _run(code: str, kind: str) -> re.Pattern[str] | None:
    pattern = next(lex.word(kind) for lex in lexicons() if lex.code == code)
    return re.compile(rf"(?:(?:{pattern.pattern})\W*)+") if pattern is not None else None


def names_something(text: str, *, references: bool = True) -> bool:
    """Whether `text` has a word besides words for a task or a list, the fillers of a title, and
    (unless `references` is false) a reference into the conversation ("it", "la", "die")."""
    words = _WORDS.findall(_task_nouns().sub(" ", fold(text)))
    return any(not _title_filler(w) and not _filler(w) and not (references and _reference_word(w)) for w in words)


@cache
def _reference_word(word: str) -> bool:
    """ "it", "la", "die", or a task's state said with it ("it done", "la como hecha")."""
    return any(
        ((p := lex.reference("this")) is not None and p.fullmatch(word))
        or ((s := lex.word("done_states")) is not None and s.fullmatch(word))
        for lex in lexicons()
    )


@cache
def _verb_last(code: str) -> bool:
    """Whether the language may put a command's verb last ("milk add kar do", "Milch hinzufügen")."""
    lex = next((lex for lex in lexicons() if lex.code == code), None)
    return lex is not None and (lex.flag("imperative_anywhere") or lex.flag("infinitive_at_end"))


@cache
def _filler(word: str) -> bool:
    """ "please", "plz", "bitte", "por favor": a word that only makes a clause polite."""
    return any((p := lex.word("fillers")) is not None and p.fullmatch(word) for lex in lexicons())


@cache
def _title_filler(word: str) -> bool:
    return any((p := lex.word("title_fillers")) is not None and p.fullmatch(word) for lex in lexicons())


def _only_fillers(clause: str) -> bool:
    """Nothing but fillers and punctuation ("ok", "hey!", "yes please") in some language."""
    return any(not _PUNCT.sub("", clause[lex.after_fillers(clause) :]) for lex in lexicons())


def _declines(clause: str) -> bool:
    """A clause with no verb the reader knows that opens with a negation: after a command ("delete
    gym, not the yoga") it excludes what it names, never adds it as an item. (Alone it may be a
    reason for a change, "not doing it this week", or a request, "nicht mehr nötig": not read so.)
    Only a negation of the clause's own language counts: "no te olvides del yoga" is a Spanish
    reminder, not the English "no"."""
    found = scores(clause)
    best = max(found.values(), default=0)
    own = {code for code, score in found.items() if score == best and best > 0}
    for lex in lexicons():
        if own and lex.code not in own:
            continue
        negation = lex.word("negation")
        if negation is not None and negation.match(clause, lex.after_fillers(clause)) is not None:
            return True
    return False


def _is_item(clause: str) -> bool:
    """A verbless clause that names something ("eggs"), not one that only qualifies ("high priority")."""
    rest = _modifiers().sub(" ", _ITEM_NOISE.sub(" ", clause))
    return any(c.isalpha() for c in rest)


@cache
def _clause_split() -> re.Pattern[str]:
    return conjunctions()


def _sentences(text: str) -> list[tuple[list[str], bool]]:
    """(the sentence's clauses, asked): asked when it ends with '?' or opens with '¿'."""
    found = []
    for m in _SENTENCE.finditer(text):
        sentence = m.group()
        if not sentence.strip(" .!?;\n"):
            continue
        opened = m.start() > 0 and text[m.start() - 1] == "¿"
        found.append((_clause_split().split(sentence.strip(" .!?;\n")), "?" in sentence or opened))
    return found


def _quotes(message: str) -> tuple[str, list[str]]:
    """The folded message with each quoted span replaced by a placeholder, and the spans as typed."""
    typed = [m.group() for m in _QUOTED.finditer(message.translate(QUOTES))]
    spans = iter(range(len(typed)))
    folded = _QUOTED.sub(lambda m: f' "§{next(spans, 0)}§" ', fold(message))
    return _SPACES.sub(" ", folded), typed


def _restored(text: str, typed: list[str]) -> str:
    """`text` with its placeholders back as the user typed the quotes."""
    return _PLACEHOLDER.sub(lambda m: typed[int(m[1])] if int(m[1]) < len(typed) else '""', text)


def _field_value(text: str) -> int | None:
    """Where a field's value starts, in a text too long to read: after the first colon within the
    bound that follows a field's name ("... with this description: ...", "Notiz: ..."). What comes
    after is the value, content like a quote, not words to read."""
    colon = text.find(":", 0, READ_CHARS)
    while colon >= 0:
        name = " ".join(text[max(0, colon - 60) : colon].split()[-3:])
        if any((f := lex.word("fields")) is not None and f.search(name) for lex in lexicons()):
            return colon + 1
        colon = text.find(":", colon + 1, READ_CHARS)
    return None


def classify(message: str) -> Intent:
    """Read one chat message; never raises."""
    text, typed = _quotes(message)
    if len(text) > READ_CHARS and (at := _field_value(text)) is not None:
        typed.append(_restored(text[at:], typed).strip())
        text = f'{text[:at]} "§{len(typed) - 1}§"'
    sentences = _sentences(text[: READ_CHARS + 1])
    clauses = sum(len(clauses) for clauses, _asked in sentences)
    if len(text) > READ_CHARS or clauses > READ_CLAUSES:
        why = f"longer than the reader reads ({len(text)} characters, {clauses} clauses): it asks for no change"
        return Intent("too_long", (), why, free=" ".join(_PLACEHOLDER.sub(" ", text).split()), quotes=tuple(typed))
    intent, free = _classify(sentences)
    free_text = " ".join(_PLACEHOLDER.sub(" ", " ".join(free if intent.needs_tool else [text])).split())
    actions = tuple(
        dataclasses.replace(
            a,
            text=_short(_restored(a.text, typed)),
            object=_restored(a.object, typed),
            clause=_restored(a.clause, typed),
        )
        for a in intent.actions
    )
    declined = tuple(" ".join(_PLACEHOLDER.sub(" ", c).split()) for c in intent.declined)
    return dataclasses.replace(intent, actions=actions, free=free_text, quotes=tuple(typed), declined=declined)


def _classify(sentences: list[tuple[list[str], bool]]) -> tuple[Intent, list[str]]:
    """The reading, and the clauses no action took."""
    actions: list[Action] = []
    free: list[str] = []
    reasons: list[str] = []
    other: tuple[Kind, str] | None = None  # the first reading that asks for nothing, if no command stands
    languages: list[str] = []
    weak: list[ToolName] = []
    declined: list[str] = []
    small_talk = chatted = False  # a clause of small talk; a clause that is not
    for clauses, asked in sentences:
        previous: _Reading | None = None
        mood: _Reading | None = None  # a question, advice or report governs the verbs coordinated with it
        leading: list[str] = []  # verbless items before the sentence's first verb ("taxes aur bread delete kar do")
        for raw in clauses:
            clause = raw.strip(" \t\"'")
            if not clause or _whole("small_talk", clause) or _only_fillers(clause):
                small_talk = small_talk or bool(clause)
                free.append(clause)
                previous = None
                continue
            if _whole("retraction", clause):
                free.append(clause)
                if actions:
                    taken = ", ".join(dict.fromkeys(a.tool for a in actions))
                    other = ("negated", f"'{_short(clause)}' takes back {taken}")
                    actions.clear()
                    reasons.clear()
                else:
                    other = other or ("negated", f"'{_short(clause)}' retracts")
                previous = None
                continue
            chatted = True
            reading = _read_clause(clause, asked=asked)
            if reading is not None and reading.kind == "command" and mood is not None and not reading.requested:
                reading = _Reading(mood.kind, (), f"{mood.why} (and '{_short(clause)}' with it)", 0, mood.language)
            if reading is None and actions and _declines(clause):
                free += [*leading, clause]
                leading = []
                declined.append(clause)
                previous = None
                continue
            if reading is None:
                if previous is not None and set(previous.tools) & _ITEM_TOOLS and _is_item(clause):
                    language = previous.language
                    item = Action(previous.tools, _short(clause), False, clause, language=language, clause=clause)
                    actions.append(item)
                elif not actions and mood is None and _is_item(clause):
                    leading.append(clause)
                else:
                    free.append(clause)
                continue
            if reading.language not in languages:
                languages.append(reading.language)
            if reading.kind == "command":
                # What the action is about: the clause without its verb, nor the fillers and request
                # frame before it ("tu peux cocher la tâche" is about "la tâche").
                rest = clause[reading.head : reading.start] + " " + clause[reading.start + reading.length :]
                # A verb around its object ("strike gym off", "hak gym ab"): the clause is what it is about.
                own = clause[reading.head :]  # past the fillers and request frame
                about = rest if names_something(rest, references=False) else own
                verb = clause[reading.start : reading.start + reading.length]
                action = Action(
                    reading.tools, _short(clause), True, " ".join(about.split()), verb, reading.language, own
                )
                if leading and set(reading.tools) & _ITEM_TOOLS and _verb_last(reading.language):
                    # In a language that puts the verb last, the items before it are its items too.
                    actions += [
                        Action(reading.tools, _short(c), False, c, language=reading.language, clause=c) for c in leading
                    ]
                else:
                    free.extend(leading)
                leading = []
                actions.append(action)
                reasons.append(reading.why)
                previous = reading
            else:
                free += [*leading, clause]
                leading = []
                other = other or (reading.kind, reading.why)
                if reading.kind == "negated":
                    declined.append(clause)
                if reading.weak and reading.kind == "chat":
                    weak += [t for t in reading.tools if t not in weak]
                previous = None
                if reading.sets_mood:
                    mood = mood or reading
        free.extend(leading)
    if actions:
        reason = "; ".join(reasons[:3]) or "items of a command"
        return Intent("command", tuple(actions), reason, tuple(languages), declined=tuple(declined)), free
    if other is not None:
        return Intent(other[0], (), other[1], tuple(languages), weak_tools=tuple(weak), declined=tuple(declined)), free
    if small_talk and not chatted:
        return Intent("small_talk", (), "small talk: asks for nothing", tuple(languages)), free
    return Intent("chat", (), "no task verb", tuple(languages), weak_tools=tuple(weak)), free
