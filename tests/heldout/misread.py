"""Playing the third held-out set (MISREAD.md): each case with the model that is right and the one that
is wrong in one specific way, and what the turn did measured as that page says: unasked changes
(fields included), false successes shown (the case's `false_claims`, and any shown text whose
`declares` did not happen), changes that ran and are not said, tools forced on the model that its
last words did not claim, and listings that do not show what a right answer shows."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from heldout.play import MISREAD, WAY_OUT, CaseModel, _user_text, attempted, effects, judge, same_title
from support.fake_llm import completion, tool_call

from backend.app.language.catalog import texts
from backend.app.language.lexicon import fold
from backend.app.services.reply.wording import describe_list

_KIND_OF = {"add_task": "add", "delete_task": "delete", "complete_task": "complete", "update_task": "update"}
_NONWORD = re.compile(r"[\W_]+")


def load_misread() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for path in sorted(MISREAD.glob("*.toml")):
        cases += [{**case, "set": "misread"} for case in tomllib.loads(path.read_text(encoding="utf-8"))["case"]]
    return cases


def as_played(case: dict[str, Any], model: str) -> dict[str, Any]:
    """The case as its right model (`model == "right"`) or its wrong one plays it."""
    titles = [t["title"] for t in seeds(case)]
    if model == "right":
        return {**case, "tasks": titles}
    wrong = case.get("wrong") or {}
    return {**case, "tasks": titles, **{k: wrong[k] for k in ("model", "after", "forced", "way_out") if k in wrong}}


def seeds(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's tasks as {title, priority, tags, due_date, status}."""
    return [{"title": t} if isinstance(t, str) else dict(t) for t in case["tasks"]]


def _same_kind(a: str, b: str) -> bool:
    pair = {a, b}
    return a == b or pair == {"complete", "update"}


@dataclass
class TrackedModel(CaseModel):
    """The case's model, which also notes each tool forced on it that its last words did not claim:
    forcing is meant only when the model made no call of that kind in the turn and its last words
    claimed that change or were empty (seed 003's missing tool call)."""

    made: set[str] = field(default_factory=set)
    last: dict[str, Any] | None = None
    unmeant: list[str] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        choice = body.get("tool_choice")
        forced = choice["function"]["name"] if isinstance(choice, dict) else None
        if forced is not None and forced in _KIND_OF and not self._meant(_KIND_OF[forced]):
            self.unmeant.append(forced)
        answer = self._answer(body, forced)
        self.last = answer
        completion: dict[str, Any] = answer["completion"]
        return completion

    def _meant(self, kind: str) -> bool:
        if self.last is None or any(_same_kind(kind, k) for k in self.made):
            return False
        if self.last["calls"]:
            return False
        words = (self.last.get("text") or "").strip()
        declared = [a for a, _t in self.last.get("declares") or []]
        return not words or any(_same_kind(kind, a) for a in declared)

    def _answer(self, body: dict[str, Any], forced: str | None) -> dict[str, Any]:
        offered = {t["function"]["name"] for t in body.get("tools", [])}
        if forced is not None:
            if self.case.get("forced", "comply") == "comply":
                call = tool_call(forced, self._arguments(forced, _user_text(body)))
                self.made.add(_KIND_OF.get(forced, forced))
                return {"completion": completion(tool_calls=[call]), "calls": [forced], "text": ""}
            after = self._after()
            return {"completion": completion(after["text"]), "calls": [], **after}
        if body.get("tool_choice") == "required" and "respond" in offered and self.case.get("way_out", True):
            call = tool_call("respond", {"message": WAY_OUT})
            return {"completion": completion(tool_calls=[call]), "calls": [], "text": WAY_OUT}
        if self.queue:
            entry = self.queue.pop(0)
            if "calls" in entry:
                names = [n for n, _a in entry["calls"]]
                self.made.update(_KIND_OF.get(n, n) for n in names)
                calls = [tool_call(n, a, call_id=f"c{len(self.queue)}_{i}") for i, (n, a) in enumerate(entry["calls"])]
                return {"completion": completion(entry.get("text"), tool_calls=calls), "calls": names, **entry}
            return {"completion": completion(entry["text"]), "calls": [], **entry}
        after = self._after()
        return {"completion": completion(after["text"]), "calls": [], **after}

    def _after(self) -> dict[str, Any]:
        return dict(self.case.get("after") or {"text": "Done!"})


# -- what happened ---------------------------------------------------------------------------------
def _words(text: str) -> str:
    return " " + " ".join(_NONWORD.sub(" ", fold(text)).split()) + " "


def names(reply: str, title: str) -> bool:
    """Whether the reply names the title (case, accents and punctuation aside; in a script written
    without spaces, where the reply holds it)."""
    if any(ord(c) >= 0x3000 for c in title):
        return "".join(_words(title).split()) in "".join(_words(reply).split())
    return bool(title.strip()) and _words(title) in _words(reply)


def field_changes(case: dict[str, Any], before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[str]:
    """A priority, due date or tag stored on an added or edited task that the case's `given` does not list."""
    given = case.get("given") or {}
    old = {t["id"]: t for t in before}
    found: list[str] = []
    for task in after:
        was = old.get(task["id"], {"priority": "medium", "due_date": None, "tags": []})
        if task["priority"] != was["priority"] and given.get("priority") != task["priority"]:
            found.append(f"{task['title']}: priority {task['priority']}")
        if task["due_date"] != was["due_date"] and task["due_date"] and given.get("due_date") != task["due_date"]:
            found.append(f"{task['title']}: due {task['due_date']}")
        allowed = {fold(str(t)) for t in given.get("tags", [])} | {fold(str(t)) for t in was["tags"]}
        extra = [t for t in task["tags"] if fold(t) not in allowed]
        if extra:
            found.append(f"{task['title']}: tags {extra}")
    return found


def false_declared(played: dict[str, Any], shown: str, made: list[tuple[str, str]]) -> list[str]:
    """Shown texts of the model whose `declares` did not happen."""
    texts = [e for e in [*(played.get("model") or []), played.get("after") or {}] if e.get("text")]
    found = []
    for entry in texts:
        text = entry["text"].strip()
        if len(text) < 4 or text not in shown:
            continue
        for action, task in entry.get("declares") or []:
            happened = any(_same_kind(action, kind) and (not task or same_title(task, title)) for kind, title in made)
            if not happened:
                found.append(text)
                break
    return found


def unsaid(made: list[tuple[str, str]], reply: str, renamed: dict[str, str]) -> list[tuple[str, str]]:
    """Changes that ran and that the reply does not name (by its title before or after a rename)."""
    return [(k, t) for k, t in made if not (names(reply, t) or names(reply, renamed.get(t, t)))]


_FILTERS = ("query", "tag", "priority", "due_before", "due_after")


def not_shown(case: dict[str, Any], reply: str, body: dict[str, Any] | None = None) -> list[str]:
    """The titles of `shows` a listing's reply leaves out, unless it says exactly what was searched: the
    issue allows a filter to stay when the reply names it (the catalog's description of the listing
    that ran, with its filters)."""
    missing = [t for t in case.get("shows") or [] if not names(reply, t)]
    if not missing or body is None:
        return missing
    t = texts(body["execution_metadata"]["language"]["code"])
    for call in body["tool_calls"]:
        data = call["result"].get("data")
        searched = call["name"] == "list_tasks" and isinstance(data, dict) and any(k in data for k in _FILTERS)
        if searched and describe_list(t, data) in reply:
            return []
    return missing


__all__ = [
    "TrackedModel",
    "as_played",
    "attempted",
    "effects",
    "false_declared",
    "field_changes",
    "judge",
    "load_misread",
    "names",
    "not_shown",
    "seeds",
    "unsaid",
]
