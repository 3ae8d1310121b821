"""Playing the fourth held-out set (FLOW.md): a conversation of a few turns, its scripted model turn by
turn, and what the conversation did measured as that page says."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heldout.misread import TrackedModel, names, seeds
from heldout.play import _REPLY, same_title
from support.fake_llm import CHECK_TOOL, NONSENSE_CHECK, completion, tool_call

from backend.app.language.catalog import texts

FLOW = Path(__file__).parent / "flow"
# What a reply never says to a user: texts written for the model or a developer (the tools' errors, the
# guard's notes to the model, stop reasons, a chat template's control tokens).
FOR_THE_MODEL = re.compile(
    r"Not run:|No task matching|Do not say|Ask the user|Give at least one field|was already called"
    r"|is not available now|Ignored: at most|Refused: more than|I stopped|<\||<tool|task_id|Invalid arguments"
)
_FEW_LINES = 6  # a pasted list is said in at most this many lines


def load_flow() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for path in sorted(FLOW.glob("*.toml")):
        cases += [{**case, "set": "flow"} for case in tomllib.loads(path.read_text(encoding="utf-8"))["case"]]
    return cases


def all_tasks(case: dict[str, Any]) -> list[dict[str, Any]]:
    return seeds(case) + [{"title": f"Item {i}"} for i in range(1, int(case.get("more_tasks", 0)) + 1)]


@dataclass
class FlowModel:
    """The case's model, turn by turn: each turn's script (`TrackedModel`), switched by the runner."""

    case: dict[str, Any]
    turn: int = 0
    models: list[TrackedModel] = field(default_factory=list)

    def __post_init__(self) -> None:
        titles = [t["title"] for t in all_tasks(self.case)]
        self.models = [TrackedModel({**t, "tasks": titles, "model": t.get("model") or []}) for t in self.case["turns"]]

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        return self.models[self.turn](body)


def honest_checker(flow: FlowModel) -> Any:
    """A check that says what the case says each text of the current turn claims."""

    def check(body: dict[str, Any]) -> dict[str, Any]:
        found = _REPLY.search(body["messages"][-1]["content"])
        reply = found.group("reply") if found else ""
        turn = flow.case["turns"][flow.turn]
        done: list[dict[str, str]] = []
        for entry in [*(turn.get("model") or []), turn.get("after") or {}]:
            text = (entry.get("text") or "").strip()
            if text and text in reply:
                done += [{"action": a, "task": t} for a, t in entry.get("declares") or []]
        return completion(tool_calls=[tool_call(CHECK_TOOL, {"done": done, "not_done": []}, call_id="check")])

    return check


def checker(kind: str, flow: FlowModel) -> Any:
    return honest_checker(flow) if kind == "honest" else NONSENSE_CHECK


# -- what the conversation did ---------------------------------------------------------------------
def _key(task: dict[str, Any]) -> tuple[str, str | None]:
    return task["title"], task.get("due_date")


def judge_end(
    case: dict[str, Any],
    before: list[dict[str, Any]],
    after: list[dict[str, Any]],
    added_during: Sequence[dict[str, Any]] = (),
) -> dict[str, list[str]]:
    """Unasked changes and changes asked for that did not happen, over the whole conversation.
    `added_during`: the tasks the conversation's turns added, as they were added (a task added and then
    deleted, completed or renamed in a later turn is judged on both changes)."""
    expect = case.get("expect") or {}
    old = {t["id"]: t for t in [*before, *added_during]}
    new = {t["id"]: t for t in after}
    deleted = [old[i] for i in old if i not in new]
    completed = [
        new[i] for i in new if i in old and new[i]["status"] == "completed" and old[i]["status"] != "completed"
    ]
    updated = [  # as they were before (a rename is listed by its old title)
        old[i]
        for i in new
        if i in old and any(new[i][k] != old[i][k] for k in ("title", "priority", "due_date", "tags", "description"))
    ]
    added = [*added_during, *(new[i] for i in new if i not in old)]
    which = expect.get("which")
    unasked: list[str] = []
    missing: list[str] = []

    def allowed(kind: str, task: dict[str, Any], titles: list[str]) -> bool:
        if which and same_title(task["title"], which["title"]) and task.get("due_date") != which["due_date"]:
            return False  # the other twin
        return any(same_title(task["title"], t) for t in titles)

    for kind, changed, everything in (
        ("delete", deleted, expect.get("delete_all")),
        ("complete", completed, expect.get("complete_all")),
    ):
        asked_for = list(expect.get(kind) or [])
        for task in changed:
            if not (everything or allowed(kind, task, asked_for + list(expect.get("update") or []))):
                unasked.append(f"{kind} {task['title']}")
        if everything:
            missing += [f"{kind} {t['title']}" for t in before if t["id"] not in {c["id"] for c in changed}]
        for title in asked_for:
            if not any(same_title(t["title"], title) for t in changed):
                missing.append(f"{kind} {title}")
    for task in updated:
        edits = list(expect.get("update") or []) + list(expect.get("complete") or []) + list(expect.get("add") or [])
        if not allowed("update", task, edits):
            unasked.append(f"update {task['title']}")
    for task in added:
        if not any(same_title(task["title"], t) for t in expect.get("add") or []):
            unasked.append(f"add {task['title']}")
    for title in expect.get("add") or []:
        if not any(same_title(t["title"], title) for t in added):
            missing.append(f"add {title}")
    if which:
        twin = next(
            (t for t in before if same_title(t["title"], which["title"]) and t["due_date"] == which["due_date"]), None
        )
        kinds = [k for k in ("delete", "complete", "update") if expect.get(k)]
        done = {t["id"] for t in deleted + completed + updated}
        if twin is not None and kinds and twin["id"] not in done:
            missing.append(f"{kinds[0]} {which['title']} of {which['due_date']}")
    return {"unasked": unasked, "missing": missing}


def judge_turn(case: dict[str, Any], turn: int, body: dict[str, Any], expected: set[str]) -> dict[str, list[str]]:
    """What one turn's reply does wrong: a sentence for the model, no answer where one is due, a
    pasted list said one line per item, a question about a change nobody asked for."""
    reply = body["assistant_message"]
    found: dict[str, list[str]] = {"for_the_model": [], "no_answer": [], "long_reply": [], "asked_other": []}
    if (m := FOR_THE_MODEL.search(reply)) is not None:
        found["for_the_model"].append(m.group())
    last = turn == len(case["turns"]) - 1
    if case["kind"] in ("greeting", "thanks", "howto") and last:
        t = texts(body["execution_metadata"]["language"]["code"])
        if not reply.strip() or reply.strip() in (t("Nothing was changed."), "Nothing was changed."):
            found["no_answer"].append(reply)
    if case["kind"] == "paste" and turn == 0 and len(reply.splitlines()) > _FEW_LINES:
        found["long_reply"].append(f"{len(reply.splitlines())} lines")
    for action in (body.get("confirmation") or {}).get("actions", []):
        kind = action["name"].removesuffix("_task")
        label = str(action.get("label") or action["arguments"].get("title") or "")
        if kind not in expected and not (kind == "update" and "complete" in expected):
            found["asked_other"].append(f"{kind} {label}")
    return found


def expected_kinds(case: dict[str, Any]) -> set[str]:
    expect = case.get("expect") or {}
    kinds = {k for k in ("add", "delete", "complete", "update") if expect.get(k)}
    kinds |= {"delete"} if expect.get("delete_all") else set()
    kinds |= {"complete"} if expect.get("complete_all") else set()
    return kinds


__all__ = ["FlowModel", "all_tasks", "checker", "expected_kinds", "judge_end", "judge_turn", "load_flow", "names"]
