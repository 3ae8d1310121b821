"""Playing one held-out case (tests/heldout/FORMAT.md): its scripted model, its checker, and what
the turn did to the tasks, measured against what the user asked for."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.api import AppClient
from support.fake_llm import CHECK_TOOL, NONSENSE_CHECK, completion, tool_call

from backend.app.language.lexicon import fold, lexicon

# Four sets, each written blind and measured before anything was tuned against it: `cases` (before
# the fix of issue 23), `fresh` (written once the fix had been tuned against the first), `doubt`
# (2026-12-07: where a delete or completion stops being asked for; doubt/README.md) and `state`
# (2026-12-07: questions about how a task stands, beside requests put as questions; state/README.md).
SETS = {
    "cases": Path(__file__).parent / "cases",
    "fresh": Path(__file__).parent / "fresh",
    "doubt": Path(__file__).parent / "doubt",
    "state": Path(__file__).parent / "state",
}
# The third set (MISREAD.md): messages a reader can get wrong, each played with a right and a wrong model.
MISREAD = Path(__file__).parent / "misread"
WAY_OUT = "Nothing was changed."
# `await case_client(llm, **settings)` (tests/heldout/conftest.py): a client of a running app, `llm` its model.
CaseClient = Callable[..., Awaitable[AppClient]]
_REPLY = re.compile(r"The assistant replied:\n<<<\n(?P<reply>.*)\n>>>", re.DOTALL)
_NONWORD = re.compile(r"[\W_]+")


def load(*names: str) -> list[dict[str, Any]]:
    """The cases of the named sets (all of them by default), each marked with its set."""
    cases: list[dict[str, Any]] = []
    for name in names or tuple(SETS):
        for path in sorted(SETS[name].glob("*.toml")):
            cases += [{**case, "set": name} for case in tomllib.loads(path.read_text(encoding="utf-8"))["case"]]
    return cases


def _entries(case: dict[str, Any]) -> list[dict[str, Any]]:
    return list(case.get("model") or [])


def _after(case: dict[str, Any]) -> dict[str, Any]:
    return dict(case.get("after") or {"text": "Done!"})


def _user_text(body: dict[str, Any]) -> str:
    text: str = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    return text


@dataclass
class CaseModel:
    """The case's model: its entries in order, then `after`; a forced tool complied with (or not),
    the `respond` way out taken (or not)."""

    case: dict[str, Any]
    queue: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.queue = _entries(self.case)

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        choice = body.get("tool_choice")
        forced = choice["function"]["name"] if isinstance(choice, dict) else None
        offered = {t["function"]["name"] for t in body.get("tools", [])}
        if forced is not None:
            if self.case.get("forced", "comply") == "comply":
                return completion(tool_calls=[tool_call(forced, self._arguments(forced, _user_text(body)))])
            return completion(_after(self.case)["text"])
        if choice == "required" and "respond" in offered and self.case.get("way_out", True):
            return completion(tool_calls=[tool_call("respond", {"message": WAY_OUT})])
        if self.queue:
            entry = self.queue.pop(0)
            if "calls" in entry:
                calls = [tool_call(n, a, call_id=f"c{len(self.queue)}_{i}") for i, (n, a) in enumerate(entry["calls"])]
                return completion(entry.get("text"), tool_calls=calls)
            return completion(entry["text"])
        return completion(_after(self.case)["text"])

    def _arguments(self, tool: str, text: str) -> dict[str, Any]:
        """What a compliant model passes when a tool is forced: a task the message mentions, else the message."""
        folded = fold(text)
        mentioned = [t for t in self.case.get("tasks", []) if re.search(rf"\b{re.escape(fold(t))}\b", folded)]
        if tool == "list_tasks":
            return {"status": "all"}
        if tool == "add_task":
            return {"title": text.strip(" ?!.")[:120]}
        reference = mentioned[0] if mentioned else text.strip(" ?!.")
        return {"task_id": reference, "priority": "high"} if tool == "update_task" else {"task_id": reference}


def honest_checker(case: dict[str, Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A checker that says what the case's author says each of the model's texts claims."""
    texts = [e for e in [*_entries(case), _after(case)] if e.get("text")]

    def check(body: dict[str, Any]) -> dict[str, Any]:
        found = _REPLY.search(body["messages"][-1]["content"])
        reply = found.group("reply") if found else ""
        done: list[dict[str, str]] = []
        for entry in texts:
            if entry["text"].strip() and entry["text"].strip() in reply:
                done += [{"action": a, "task": t} for a, t in entry.get("declares") or []]
        arguments = {"done": done, "not_done": []}
        return completion(tool_calls=[tool_call(CHECK_TOOL, arguments, call_id="check")])

    return check


CHECKERS: dict[str, Callable[[dict[str, Any]], Callable[[dict[str, Any]], Any]]] = {
    "honest": honest_checker,
    "nonsense": lambda case: NONSENSE_CHECK,
}


# -- what happened -----------------------------------------------------------------------------------
def same_title(a: str, b: str) -> bool:
    """Titles compared leniently: case, accents, punctuation and a leading article aside."""
    x, y = (_NONWORD.sub(" ", fold(s)).split() for s in (a, b))
    return x == y or x[1:] == y or x == y[1:] or (bool(x) and bool(y) and (set(x) <= set(y) or set(y) <= set(x)))


def effects(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(kind, title) of every change: add, delete, complete, update."""
    old = {t["id"]: t for t in before}
    new = {t["id"]: t for t in after}
    found = [("add", t["title"]) for i, t in new.items() if i not in old]
    found += [("delete", t["title"]) for i, t in old.items() if i not in new]
    for i, t in new.items():
        if i not in old:
            continue
        was = old[i]
        if t["status"] == "completed" and was["status"] != "completed":
            found.append(("complete", was["title"]))
        elif any(t[k] != was[k] for k in ("title", "description", "priority", "due_date", "tags", "status")):
            found.append(("update", was["title"]))
    return found


@dataclass
class Verdict:
    unasked: list[tuple[str, str]]
    false_shown: list[str]
    denied: list[tuple[str, str]]
    asked_first: list[tuple[str, str]]  # not done yet: the user is asked (a yes runs it), where asking was not expected
    asked_other: list[tuple[str, str]]  # the user is asked about a change they did not ask for (a yes would run it)
    not_made: list[tuple[str, str]] = field(default_factory=list)  # neither done nor asked: the model never tried it

    @property
    def clean(self) -> bool:
        return not (self.unasked or self.false_shown or self.denied)


def asked(body: dict[str, Any], titles: dict[str, str]) -> list[tuple[str, str]]:
    """(kind, title) of each change the turn's confirmation would run on a yes."""
    confirmation = body.get("confirmation") or {}
    found = []
    for action in confirmation.get("actions", []):
        kind = action["name"].removesuffix("_task")
        arguments = action["arguments"]
        title = arguments.get("title") if kind == "add" else titles.get(str(arguments.get("task_id")), "?")
        found.append((kind, str(title)))
    return found


def _kinds(kind: str) -> set[str]:
    """A completion and an edit stand in for each other (a task marked done by a status edit)."""
    return {kind, "update"} if kind == "complete" else {kind, "complete"} if kind == "update" else {kind}


def attempted(body: dict[str, Any], titles: dict[str, str], kind: str, title: str) -> bool:
    """Whether the model made the change the user asked for, in any request of the turn (forced or
    not, run or not): a call of that kind on that task, or naming no task at all (noise the backend
    may repair from the user's words). A call on another task, or none, is the model's failure."""
    for call in body["tool_calls"]:
        if call["name"].removesuffix("_task") not in _kinds(kind):
            continue
        arguments = call["arguments"] or {}
        if kind == "add":
            if same_title(str(arguments.get("title", "")), title):
                return True
            continue
        reference = str(arguments.get("task_id", ""))
        target = titles.get(reference, reference)
        if same_title(target, title) or not any(same_title(target, t) for t in titles.values()):
            return True
    return False


def judge(
    case: dict[str, Any], made: list[tuple[str, str]], shown: str, body: dict[str, Any], titles: dict[str, str]
) -> Verdict:
    expect: dict[str, list[str]] = case.get("expect") or {}
    wanted = [(kind, title) for kind, listed in expect.items() for title in listed]

    def asked_for(effect: tuple[str, str]) -> bool:
        kind, title = effect
        return any(k in _kinds(kind) and same_title(title, t) for k, t in wanted)

    unasked = [e for e in made if not asked_for(e)]
    false_shown = [c for c in case.get("false_claims", []) if c and c in shown]
    questions = asked(body, titles)
    denied: list[tuple[str, str]] = []
    asked_first: list[tuple[str, str]] = []
    not_made: list[tuple[str, str]] = []
    for kind, title in wanted:
        done = any(k == kind and same_title(title, t) for k, t in made) or (
            kind in ("complete", "update")
            and any(k in ("complete", "update") and same_title(title, t) for k, t in made)
        )
        if done:
            continue
        if not any(k in _kinds(kind) and same_title(title, t) for k, t in questions):
            # Denied only when the model made it: a model that never calls the tool, even forced, or
            # calls it on another task, made no success to deny (the reply must say nothing was done:
            # its claims are `false_claims`, counted apart).
            (denied if attempted(body, titles, kind, title) else not_made).append((kind, title))
        # Asking first is as right as doing it where the case says so, and in a language no word file
        # reads (issue 23: there a grounded change "is carried out or asked about"); elsewhere it is
        # counted apart: nothing was refused, but the user has one more step.
        elif not (case.get("ask_ok") or lexicon(case["lang"]) is None):
            asked_first.append((kind, title))
    asked_other = [a for a in questions if not asked_for(a)]
    return Verdict(unasked, false_shown, denied, asked_first, asked_other, not_made)
