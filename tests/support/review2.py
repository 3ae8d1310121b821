"""Harness of the blind reviews kept as tests (tests/api/test_review*.py and the files written like them).

A case: turns [(message, the scripted model's answer to it)], the user's tasks (a title, or (title,
fields)), what the user asked to change over the conversation (title -> "delete" | "complete" |
"update"; "+" -> the titles an add may create), and optionally `want`: the effects that should be
there, at once, after the last turn (no question on it). The reviewer compared the outcomes of
two checkouts from JSON lines this wrote; kept here as assertions only.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from typing import Any

import pytest

from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.compliant import Call, CompliantModel, calls_on
from support.fake_llm import ScriptedLLM

# What still fails here (strict xfails), by its kind; every kind but CUT and EDIT_WORDS does the same
# on 2968d4c, before row T19, or without the keep (the review's PLAIN controls).
PLAIN = "older: the control without the keep fails the same way"
NOW = "older: a command that asks for no change now ('tomorrow', 'let me', 'remind me', '?') runs, as alone"
CORRECTION = "older: a correction ('or rather', 'jk', 'o mejor') is read as an item of the command"
PUNCTUATION = "older: '/', '( )', ':', '--' do not cut a keep from the command"
LAT = "older: Swedish 'låt … vara', 'låt bli' are not read as a keep or a take-back"
ES_PT = "older: Spanish and Portuguese read no keep of a task ('conserva …', 'mantén …')"
EDIT_WORDS = "an edit whose own words name another task ('rename gym to taxes prep') changes it, as alone"
CUT = "the cost of cutting at 'ma', 'maar', 'en', 'och' before a keep: asked about (no change) or refused"
OLDER = "older: the same on 2968d4c"


def known(kinds: dict[str, str], case_id: str) -> list[Any]:
    """The strict xfail of a case that still fails, with its kind (`kinds`: by case id)."""
    why = kinds.get(case_id)
    return [pytest.mark.xfail(strict=True, reason=why)] if why else []


DELETE, COMPLETE, UPDATE, ADD = "delete_task", "complete_task", "update_task", "add_task"
DEL, COM, UPD = "delete", "complete", "update"
BASE = ("Gym", "Taxes", "Yoga", "Call mom", "Pay rent")
_FIELDS = ("title", "status", "priority", "due_date", "description", "tags")


def D(*titles: str) -> list[Call]:
    return calls_on(DELETE, *titles)


def C(*titles: str) -> list[Call]:
    return calls_on(COMPLETE, *titles)


def U(*titles: str, **fields: Any) -> list[Call]:
    return [(UPDATE, {"task_id": t, **(fields or {"due_date": "2026-12-11"})}) for t in titles]


def A(*titles: str) -> list[Call]:
    return [(ADD, {"title": t}) for t in titles]


def asked_for(want: set[str]) -> dict[str, Any]:
    """What the user asked to change, from the effects wanted ("Gym: deleted", "+Milk")."""
    verbs = {"deleted": DEL, "completed": COM, "edited": UPD}
    asked: dict[str, Any] = {e.split(": ")[0]: verbs[e.split(": ")[1]] for e in want if not e.startswith("+")}
    asked["+"] = tuple(e[1:] for e in want if e.startswith("+"))
    return asked


def with_(*extra: str) -> tuple[str, ...]:
    return (*BASE, *extra)


def effects(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> set[str]:
    """What changed: "Gym: deleted", "Gym: completed", "Gym: edited", "+Milk"."""
    now = {t["id"]: t for t in after}
    seen = {t["id"] for t in before}
    out = set()
    for task in before:
        row = now.get(task["id"])
        if row is None:
            out.add(f"{task['title']}: deleted")
        elif row["status"] != task["status"]:
            out.add(f"{task['title']}: {row['status']}")
        elif any(row.get(f) != task.get(f) for f in _FIELDS):
            out.add(f"{task['title']}: edited")
    out |= {f"+{t['title']}" for t in after if t["id"] not in seen}
    return out


def unasked(done: set[str], asked: dict[str, Any]) -> list[str]:
    allowed = {"delete": "deleted", "complete": "completed", "update": "edited"}
    adds = {a.casefold() for a in asked.get("+", ())}
    bad = []
    for effect in sorted(done):
        if effect.startswith("+"):
            if effect[1:].casefold() not in adds:
                bad.append(effect)
            continue
        title, what = effect.split(": ")
        if allowed.get(asked.get(title, "")) != what:
            bad.append(effect)
    return bad


async def run_case(
    make_client: MakeClient,
    turns: list[tuple[str, Any]],
    titles: tuple[Any, ...],
    asked: dict[str, Any],
    want: set[str] | None = None,
) -> None:
    models = {
        m: CompliantModel(a, [t if isinstance(t, str) else t[0] for t in titles], after_tools="Done.") for m, a in turns
    }

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        text = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
        return models[text](body)

    client = await make_client(ScriptedLLM(default=answer))
    for t in titles:
        if isinstance(t, str):
            await seed_tasks(client, t)
        else:
            await seed_tasks(client, t[0], **t[1])
    before = await tasks_of(client)
    cid = None
    replies: list[dict[str, Any]] = []
    for message, _ in turns:
        body = (await chat(client, message, **({"conversation_id": cid} if cid else {}))).json()
        cid = body.get("conversation_id")
        meta = body.get("execution_metadata") or {}
        replies.append(
            {
                "message": message,
                "reply": body.get("assistant_message"),
                "asked": body.get("confirmation") is not None,
                "rules": [
                    f"{d.get('rule')}:{d.get('decision')}" for d in (meta.get("guard") or {}).get("decisions", [])
                ],
                "codes": [
                    (
                        c["name"],
                        c["arguments"].get("task_id") or c["arguments"].get("title"),
                        (c.get("result") or {}).get("code"),
                    )
                    for c in body.get("tool_calls") or []
                ],
                "kind": (meta.get("intent") or {}).get("kind"),
            }
        )
    done = effects(before, await tasks_of(client))
    bad = unasked(done, asked)
    needless = want is not None and (done != want or replies[-1]["asked"])
    assert not bad, f"UNASKED: {bad} | {replies}"
    assert not needless, f"WANTED {sorted(want or ())} at once, GOT {sorted(done)} | {replies}"


class Cases:
    """The case builders of a review file; a case `known` names (id -> its kind) is a strict xfail.
    `done`: the effects wanted at once, no question; `held`: only what `asked` names may change."""

    def __init__(self, known: Mapping[str, str] | None = None) -> None:
        self.known = known or {}

    def done(self, case_id: str, message: str, titles: tuple[Any, ...], calls: Any, want: set[str]) -> Any:
        return self.done2(case_id, [(message, calls)], titles, want)

    def done2(self, case_id: str, turns: list[tuple[str, Any]], titles: tuple[Any, ...], want: set[str]) -> Any:
        return pytest.param(turns, titles, asked_for(want), want, id=case_id, marks=known(dict(self.known), case_id))

    def held(self, case_id: str, message: str, titles: tuple[Any, ...], calls: Any, asked: dict[str, Any]) -> Any:
        return self.held2(case_id, [(message, calls)], titles, asked)

    def held2(self, case_id: str, turns: list[tuple[str, Any]], titles: tuple[Any, ...], asked: dict[str, Any]) -> Any:
        return pytest.param(turns, titles, asked, None, id=case_id, marks=known(dict(self.known), case_id))


def review_test(cases: list[Any]) -> Callable[..., Coroutine[Any, Any, None]]:
    """The test of a review file's `cases` (`Cases`): each run through `run_case`."""

    async def test(
        make_client: MakeClient,
        turns: list[tuple[str, Any]],
        titles: tuple[Any, ...],
        asked: dict[str, Any],
        want: set[str] | None,
    ) -> None:
        await run_case(make_client, turns, titles, asked, want)

    marked: Callable[..., Coroutine[Any, Any, None]] = pytest.mark.parametrize(
        ("turns", "titles", "asked", "want"), cases
    )(test)
    return marked
