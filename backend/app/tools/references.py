"""How a tool call's reference ("read book", "it", a UUID, noise a weak model sent) becomes one of
the owner's tasks: the resolver over the database's shortlist, the conversation's references, the
user's own words when the model's name nothing, how the user's words name the task found, and a
REST `If-Match` version. Whether the call may act on it, is asked about, repaired or refused is the
decision table's (calls/verdicts.py, rows T1-T20, docs/guard.md): this gathers its facts, and
tools/target.py makes the call's result of its verdict. `TaskFinder`, a collaborator of the handlers
(tools/handlers.py), returns what it found as a value (`Found`: the task or the refusal, how the
reference was read, what was repaired), never state left behind; the one state it keeps is the
turn's: the tasks its calls acted on.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from backend.app.calls.codes import ResultCode
from backend.app.calls.decisions import Do
from backend.app.calls.facts import NO_GROUNDING, Grounding, Hold, Naming, Source, TargetFacts
from backend.app.calls.said import Said
from backend.app.calls.tools import Tool, traits
from backend.app.calls.types import ToolCall, ToolResult
from backend.app.calls.verdicts import decide
from backend.app.db.repositories.tasks import Candidates, TaskRepository, TaskRow
from backend.app.language.lexicon import fold
from backend.app.language.reading.naming import names_something
from backend.app.tools.referents import Pick, Referents, ambiguous
from backend.app.tools.resolver import (
    Ambiguous,
    Candidate,
    NoMatch,
    ReferenceResolver,
    Resolution,
    Resolved,
    clean_reference,
    parse_uuid,
)
from backend.app.tools.target import Found, acted, changed_meanwhile, from_conversation, names_no_task
from backend.app.tools.titles import (
    apart,
    exactly_named,
    in_range,
    named_in,
    only_items_say_more,
    partly_named,
    says_more,
)
from backend.app.tools.whole_list import WholeList

_OVER_A_RANGE = frozenset({Tool.DELETE, Tool.COMPLETE})  # the changes a range of numbered titles names


class TaskFinder:
    """Finds the task a call's reference names, among the owner's (the repository passed in is owner
    scoped). `said` is what the user's message names, `context` the conversation's references ("it",
    "the second one"); `touched` the tasks this turn's calls acted on, added or looked up."""

    def __init__(
        self,
        *,
        resolver: ReferenceResolver,
        prefilter_above: int,
        prefilter_limit: int,
        said: Said | None = None,
        context: Referents | None = None,
    ) -> None:
        self.resolver = resolver
        self.prefilter_above = prefilter_above
        self.prefilter_limit = prefilter_limit
        self.said = said
        self.context = context
        self.touched: set[uuid.UUID] = set()
        self.whole = WholeList()
        self._shortlists: dict[str, tuple[TaskRow, ...]] = {}  # the tasks words may name, read once a turn

    async def find(
        self, repo: TaskRepository, reference: str, call: ToolCall, *, step: Sequence[str] = (), sweeps: bool = False
    ) -> Found:
        """The task `reference` names, as far as the table lets the call act on it (`call.grounding`:
        how it is held, and the user's words that must name it); with `expected_version` (a REST
        `If-Match`) only at that version. A reference naming no task may be repaired from the user's
        own words for this very action (`_said_task`). `step`: what the step's calls name (a repair
        never takes a task another of them names); `sweeps`: the step's calls of this tool name every task
        of the list."""
        own = clean_reference(reference)
        others = tuple(o for o in step if o and o != own)
        grounding = call.grounding or NO_GROUNDING
        found = await self._lookup(repo, reference)
        naming: Naming | None = None
        if isinstance(found.match, ToolResult) and names_no_task(found.match):
            said, partly = await self._said_task(repo, reference, call.name, others)
            if said is None and grounding.hold in (Hold.ASK, Hold.STATE) and grounding.names:
                # Only asked about or stated, never run: safe to look further.
                said = await self._named(repo, grounding.names, others)
            facts = TargetFacts(traits(call.name), grounding.hold, Source.NONE, repairable=said is not None)
            if decide(facts).do is not Do.REPAIR or said is None:
                return await self._offer(repo, reference, call.name, found) if grounding.hold is Hold.OWN else found
            repair = f"'{reference}' names no task: used '{said.title}', which the user's message names"
            found = found.then(Found(said, repairs=(repair,), used=said.title, source=Source.REPAIRED))
            naming = Naming.PART if partly else self._how_whole(call.name, said)
        row = found.match
        if isinstance(row, ToolResult):
            return found
        self.touched.add(row.id)
        self.whole.found.add(row.title)
        if (stale := changed_meanwhile(call, row)) is not None:
            return found.then(stale)
        notes: tuple[str, ...] = ()
        if naming is None:
            naming, notes = await self._naming(repo, reference, call, row, grounding)
        if naming in (Naming.NONE, Naming.PART) and await self._pointed(repo, grounding.pointed) == row.id:
            naming, found = Naming.POINTER, found.then(Found(row, source=Source.CONTEXT))  # the backend read "it"
        # After a yes, only the question's own words for every task run a change of all (T15, T16).
        said_all = naming is Naming.NONE and await self.whole.says_all(repo, grounding, call.name, row)
        naming = Naming.PART if not said_all and self._in_a_range(naming, call, row, grounding) else naming
        other = await self._other(repo, grounding, naming, (*others, row.title))
        facts = TargetFacts(
            traits(call.name),
            grounding.hold,
            found.source,
            naming,
            forced=grounding.forced,
            anywhere=grounding.names is None,
            another=other is not None,
            whole_list=naming is Naming.NONE and grounding.whole_list and (said_all or sweeps),
            confirmed=grounding.confirmed and said_all,
            kept_apart=await self._kept_apart(repo, grounding, row),
            inside=naming is Naming.NONE and named_in(grounding.names or "", row.title),  # only in a longer title
        )
        verdict = decide(facts)
        if verdict.do is Do.ASK_NAMED and other is not None:
            self.touched.add(other.id)
        return found.then(acted(verdict, call, row, other, notes))

    @staticmethod
    def _in_a_range(naming: Naming, call: ToolCall, row: TaskRow, grounding: Grounding) -> bool:
        """Whether the task, named by nothing else, lies in a range of numbered titles the words give, for
        a delete or a completion ("delete item 3 to item 7", the model's "Should I delete Item 1 to Item
        10?"): named by the backend's reading of the range only, so the change is asked about."""
        return naming is Naming.NONE and call.name in _OVER_A_RANGE and in_range(grounding.names or "", row.title)

    async def _other(
        self, repo: TaskRepository, grounding: Grounding, naming: Naming, others: Sequence[str]
    ) -> TaskRow | None:
        """The one task the user's words for this action name instead of the model's (T6, T12), where
        those name the model's task not at all, or, for a question of how it stands, only in part (T17)."""
        looks = naming is Naming.NONE or (naming is Naming.PART and grounding.hold is Hold.STATE)
        if not looks or not grounding.names or grounding.hold is Hold.ANY:
            return None
        return await self._named(repo, grounding.names, others)

    async def _offer(self, repo: TaskRepository, reference: str, tool: str, found: Found) -> Found:
        """A reference that names no task, in a command for this tool: a pointer into a conversation
        that showed none ("it", "die Aufgabe"), or words for a task with no title ("the task"); when the
        user's own words for it name none either ("delete the dentist task" is answered "no task by that
        name"), the user picks among their newest pending tasks (a question offers its choices)."""
        result = found.match
        if not isinstance(result, ToolResult) or not traits(tool).targets or not self._names_nothing(tool):
            return found
        words = any(c.isalpha() for c in reference) and not names_something(reference)  # "the task", not "7"
        if result.code != ResultCode.AMBIGUOUS and not words:
            return found
        tasks = await repo.list_tasks(status="pending", limit=self.resolver.limit)
        return found.then(Found(ambiguous(reference, tasks, offered=True))) if tasks else found

    def _names_nothing(self, tool: str) -> bool:
        """The user's words for this action name no task: only a pointer ("that one") or none at all."""
        for words in self.said.about_for(tool) if self.said is not None else ():
            if names_something(words) and (self.context is None or self.context.resolve(words) is None):
                return False
        return True

    def _how_whole(self, tool: str, row: TaskRow) -> Naming:
        """How the words for this action name a task they name whole: as written, or with a typo."""
        words = self.said.words_for(tool) if self.said is not None else []
        return Naming.EXACT if any(exactly_named(w, row.title) for w in words) else Naming.WHOLE

    async def _naming(
        self, repo: TaskRepository, reference: str, call: ToolCall, row: TaskRow, grounding: Grounding
    ) -> tuple[Naming, tuple[str, ...]]:
        """How the user's words (`grounding.names`) name the task the call's reference came to, with
        the notes of the references read on the way. Words that name a longer title of the user's
        holding this one name that task, not this ("gym class" names *Gym class*, not *Gym*)."""
        if grounding.names is None or grounding.hold is Hold.ANY:
            return Naming.NONE, ()
        titles = await self._titles(repo, grounding.names)
        names = apart(grounding.names, row.title, titles)
        said_ref = clean_reference(reference)
        strict = grounding.confirmed  # the assistant's own question: its "ta", "list" are no typos of titles
        if named_in(names, row.title, strict=strict):
            if traits(call.name).destructive and only_items_say_more(grounding.names, grounding.items, row.title):
                return Naming.PART, ()
            return (Naming.EXACT if exactly_named(names, row.title) else Naming.WHOLE), ()
        pointed = self._points_to(grounding.names, row, said_ref)
        if pointed or (parse_uuid(said_ref) is None and said_ref and named_in(names, said_ref, strict=strict)):
            return (Naming.POINTER if pointed else Naming.WORDS), ()
        if named_in(grounding.names, row.title):
            return Naming.NONE, ()  # only inside a longer title they name (T20), whatever a reference of it says
        notes: tuple[str, ...] = ()
        if grounding.hold is Hold.OWN:
            own, notes = await self._users_own(repo, call.name, row)
            if own:
                return Naming.WORDS, notes
        content = grounding.not_names
        if content and (
            named_in(content, row.title)
            or partly_named(content, row.title)
            or in_range(content, row.title, alone=False)
        ):
            return Naming.CONTENT, notes  # named by what the user gave as content or said no to
        if self._mentioned(row, grounding, titles):
            return Naming.PART, notes
        return Naming.NONE, notes

    def _mentioned(self, row: TaskRow, grounding: Grounding, titles: Sequence[str]) -> bool:
        """Whether the user's message, outside what it gives as content, names the task at least in
        part: a change of it the guard does not run is then asked about, never dropped unsaid (the
        user may have asked for it in words the reader did not read: "e l'assicurazione mettila per
        il 5 dicembre")."""
        if self.said is None:
            return False
        words = fold(self.said.message)
        for content in grounding.not_names.splitlines():
            if content.strip():
                words = words.replace(fold(content), " ")
        return partly_named(apart(words, row.title, titles), row.title)

    async def _users_own(self, repo: TaskRepository, tool: str, row: TaskRow) -> tuple[bool, tuple[str, ...]]:
        """Whether the user's own reference for this action ("dentist" in "push the dentist to
        friday"), resolved as a model's would be, is this very task: a title the user gave in part;
        with the notes of the references read on the way."""
        notes: tuple[str, ...] = ()
        for reference in self.said.references_for(tool) if self.said is not None else ():
            found = await self._lookup(repo, reference)
            notes += found.notes
            if not isinstance(found.match, ToolResult) and found.match.id == row.id:
                return True, notes
        return False, notes

    async def _named(self, repo: TaskRepository, words: str, others: Sequence[str]) -> TaskRow | None:
        """The one task the user's words name (for a call that only asks), else None: named whole, or
        if none is, named in part ("paspoort" of "Paspoort verlengen"), since the user is only asked.
        Not a task whose title is all the words say ("Laundry"): nothing in them asks anything about it;
        nor one another call of the step names (`others`: the edit's "車の保険" beside a delete naming
        nothing)."""
        shortlist = await self._shortlist(repo, words)
        titles = [r.title for r in shortlist]
        own = {
            r.id: apart(words, r.title, titles)
            for r in shortlist
            if not named_in(r.title, words) and r.id not in self.touched and not _named_by(others, r)
        }
        rows = [r for r in shortlist if r.id in own]
        found = [r for r in rows if named_in(own[r.id], r.title)] or [
            r for r in rows if partly_named(own[r.id], r.title)
        ]
        return found[0] if len(found) == 1 else None

    async def _kept_apart(self, repo: TaskRepository, grounding: Grounding, row: TaskRow) -> bool:
        """Whether this change's commands beside keeps name the task, and each keep keeps one other
        task, all its title as written and no more ("taxes" of "delete gym, keep taxes"; not "sie",
        "both" for "Bath", "taxes for now")."""
        beside = grounding.kept_beside
        own = apart(beside, row.title, await self._titles(repo, beside)) if beside else beside
        if not (named_in(own, row.title) and not only_items_say_more(beside, grounding.items, row.title)):
            return False
        kept = [await self._kept_task(repo, words) for words in grounding.kept]
        return bool(kept) and all(task is not None and task != row.id for task in kept)

    async def _kept_task(self, repo: TaskRepository, words: str) -> uuid.UUID | None:
        """The one task a keep's words are all the title of, as written."""
        rows = await self._shortlist(repo, words)
        found = [r.id for r in rows if exactly_named(words, r.title) and not says_more(words, r.title)]
        return found[0] if len(found) == 1 else None

    async def _titles(self, repo: TaskRepository, words: str) -> list[str]:
        """The titles of the user's tasks the words may name (their shortlist)."""
        return [r.title for r in await self._shortlist(repo, words)]

    async def _shortlist(self, repo: TaskRepository, words: str) -> tuple[TaskRow, ...]:
        """The tasks the words may name (`TaskRepository.candidates`), read once a turn: every call of
        the step asks of the same words."""
        if words not in self._shortlists:
            found = await repo.candidates(
                clean_reference(words), limit=self.prefilter_limit, all_up_to=self.prefilter_above
            )
            self._shortlists[words] = tuple(found.rows)
        return self._shortlists[words]

    async def _pointed(self, repo: TaskRepository, words: str) -> uuid.UUID | None:
        """What "it" is in a yes's question (`Grounding.pointed`): the one task its words name, as
        written; none where they name several ("Nice work! Taxes and Call mom are left.") or none."""
        if not words:
            return None
        named = {r.id for r in await self._shortlist(repo, words) if named_in(words, r.title, strict=True)}
        return named.pop() if len(named) == 1 else None

    def _points_to(self, words: str, row: TaskRow, reference: str) -> bool:
        """Whether the user's words point to this very task through the conversation: they are such a
        reference ("it", "the second one", "eso"), or they hold the one the call gave ("this task")."""
        if self.context is None:
            return False
        said = [line for line in words.splitlines() if line.strip()]
        if reference and any(fold(reference) in fold(line) for line in said):
            said.append(reference)
        for line in said:
            found = self.context.resolve(line)
            if isinstance(found, Pick) and found.task.id == str(row.id):
                return True
        return False

    async def _said_task(
        self, repo: TaskRepository, reference: str, tool: str, others: Sequence[str]
    ) -> tuple[TaskRow | None, bool]:
        """The one task the user's words for this very action name (the delete of "complete Laundry
        and delete Trip" is about "Trip" only), when the model's `reference` named none (noise such as
        "21648537900"), in any covered language. Never a task another call of the turn acted on,
        added or names, or one the message names for another action; not for a reference into the
        conversation whose task is gone (one that points at nothing may be); nothing when the words name
        no task, or several. True beside the task when the words name it only in part: it is then only
        asked about."""
        pointed = self.context.resolve(reference) if self.context is not None else None
        if self.said is None or isinstance(pointed, Pick):
            return None, False
        besides = self.said.words_besides(tool)
        found: dict[uuid.UUID, tuple[TaskRow, bool]] = {}
        for words in self.said.words_for(tool):
            shortlist = await self._shortlist(repo, words)
            titles = [r.title for r in shortlist]
            for row in shortlist:
                own = apart(words, row.title, titles)  # "gym class" names no *Gym* beside *Gym class*
                whole = named_in(own, row.title)
                if (
                    (whole or partly_named(own, row.title))
                    and row.id not in self.touched
                    and not named_in(besides, row.title)
                    and not _named_by(others, row)
                ):
                    found[row.id] = (row, not whole)
        wholly = {i: f for i, f in found.items() if not f[1]}
        found = wholly or found  # a task the words name whole wins over those they name in part
        if len(found) != 1:
            return None, False
        return next(iter(found.values()))

    async def _lookup(self, repo: TaskRepository, reference: str) -> Found:
        if (task_id := parse_uuid(reference)) is not None:
            owned = await repo.get_row(task_id)
            return Found(
                owned or ToolResult(success=False, code=ResultCode.NOT_FOUND, error=NoMatch(reference).message)
            )
        resolution, by_id = await self.resolve_title(repo, reference)
        exact = isinstance(resolution, Resolved) and resolution.method == "exact"
        # A title written exactly wins over a reading of it as a pointer ("Item 2", "#1", "B"): a
        # reference into the conversation ("it", "the second one") is read only when no title is it.
        if not exact and self.context is not None and (found := self.context.resolve(reference)) is not None:
            return await from_conversation(repo, reference, found)
        if isinstance(resolution, NoMatch):
            return Found(ToolResult(success=False, code=ResultCode.NOT_FOUND, error=resolution.message))
        if isinstance(resolution, Ambiguous):
            tasks = await repo.by_ids([c.id for c in resolution.candidates])
            return Found(ambiguous(resolution.reference, [tasks[c.id] for c in resolution.candidates if c.id in tasks]))
        return Found(by_id[resolution.candidate.id])

    async def resolve_title(self, repo: TaskRepository, reference: str) -> tuple[Resolution, dict[uuid.UUID, TaskRow]]:
        """The resolver's answer for a title, and the rows it chose from (see `TaskRepository.candidates`).

        A shortlist that may have cut a match as good as its best never yields a fuzzy pick: its
        winner is offered first, as the resolver does with its own cut shortlist. Titles holding every
        word of the reference that the resolver all turns down make way for the trigram shortlist.
        """
        key = clean_reference(reference)  # as the resolver reads it: no quotes around

        async def look(**steps: bool) -> tuple[Candidates, Resolution]:
            found = await repo.candidates(key, limit=self.prefilter_limit, all_up_to=self.prefilter_above, **steps)
            return found, self.resolver.resolve(reference, [Candidate(r.id, r.title) for r in found.rows])

        found, resolution = await look()
        exact = isinstance(resolution, Resolved) and resolution.method == "exact"
        if found.source == "exact" and not (exact or isinstance(resolution, Ambiguous)):
            # Equal in SQL but not to the resolver's casefold (rare Unicode): look again without the shortcut.
            found, resolution = await look(exact_first=False)
        if found.source == "words" and isinstance(resolution, NoMatch):
            # Titles holding every word, none close enough ("Reading books club" for "read books"): a
            # title with a typo may be ("Read boks"), which only the trigram step finds. (Titles holding
            # all words but one already take in a typo; looking again there costs tens of ms for nothing.)
            found, resolution = await look(exact_first=False, words_first=False)
        if found.cut and isinstance(resolution, Resolved) and resolution.method != "exact":
            best = resolution.candidate
            others = [Candidate(r.id, r.title) for r in found.rows if r.id != best.id][: self.resolver.limit - 1]
            resolution = Ambiguous(key, (best, *others))
        return resolution, {r.id: r for r in found.rows}


def _named_by(others: Sequence[str], row: TaskRow) -> bool:
    """Whether another call of the step names the task (`others`: what they name)."""
    return any(named_in(other, row.title) for other in others)
