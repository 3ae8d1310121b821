"""The decision table (backend/app/calls/verdicts.py) as one table: the rows of the code are the rows
written in docs/guard.md, every row decides for some facts, and no verdict on a model's call is made
outside the module. Each row played through the API in every language: tests/api/test_decision_table.py."""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from backend.app.calls.decisions import WORDS_DECISIONS, Do
from backend.app.calls.facts import (
    AnswerFacts,
    CallFacts,
    Facts,
    Forcing,
    Hold,
    LoopFacts,
    Naming,
    Point,
    Reading,
    ResultsFacts,
    Say,
    Source,
    TargetFacts,
)
from backend.app.calls.tools import TRAITS, UNKNOWN
from backend.app.calls.verdicts import TABLE, decide

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "backend" / "app"
DOCS = ROOT / "docs" / "guard.md"
# The table and its own types: the only modules that may build a verdict, a grounding or a call's event.
TABLE_MODULES = {APP / "calls" / name for name in ("verdicts.py", "decisions.py", "facts.py")}
_ROW = re.compile(r"^\| (?P<id>[LCTVAR]\d+) \| (?P<when>.*?) \| (?P<verdict>.*?) \|(?P<record>.*?)\|$")
# The first words of a verdict as the docs write it.
_SAID: dict[Do, str | tuple[str, ...]] = {
    Do.RUN: "run",
    Do.ASK: "ask",
    Do.ASK_NAMED: "ask about that task",
    Do.STATE: ("look its target up", "say how it stands"),
    Do.REFUSE: "refuse",
    Do.REPAIR: "repair",
    Do.KEEP: "keep",
    Do.DROP: "drop",
    Do.FAIL: "fail",
    Do.ACCEPT: ("accept", "go on"),
    Do.TRUST: "trust",
    Do.CHECK: "check",
    Do.FORCE: "force",
    Do.REQUIRE: "require",
    Do.GIVE_UP: "give up",
    Do.ANSWER_AGAIN: "ask the model again",
}


def _documented() -> list[dict[str, str]]:
    return [m.groupdict() for line in DOCS.read_text(encoding="utf-8").splitlines() if (m := _ROW.match(line))]


def test_the_docs_write_the_table_the_code_decides_by() -> None:
    documented = _documented()
    coded = [row for point in Point for row in TABLE[point]]
    assert [d["id"] for d in documented] == [row.id for row in coded]
    for doc, row in zip(documented, coded, strict=True):
        verdict = row.then
        assert doc["verdict"].startswith(_SAID[verdict.do]), (row.id, doc["verdict"])
        if verdict.code is not None:
            assert f"`{verdict.code}`" in doc["record"], row.id
        if verdict.decision is not None and verdict.reason is not None:
            assert f"{verdict.decision}, {verdict.reason}" in doc["record"], row.id
        assert ("silent" in doc["record"]) == verdict.silent, row.id


def test_each_point_ends_in_a_row_that_always_holds() -> None:
    for point, rows in TABLE.items():
        assert rows[-1].when(None), point  # the catch-all reads no fact


_TRAITS = list({*TRAITS.values(), UNKNOWN})
_BOOL = (False, True)


def _every(kind: type[Any], **values: Any) -> list[Any]:
    """Every combination of the given values for the facts of one kind."""
    names = [f.name for f in fields(kind)]
    assert set(values) == set(names), kind
    return [kind(**dict(zip(names, combo, strict=True))) for combo in itertools.product(*(values[n] for n in names))]


FACTS: dict[Point, list[Any]] = {
    Point.LOOP: _every(
        LoopFacts,
        traits=_TRAITS,
        malformed=(None, "ARGUMENTS_TOO_LARGE"),
        offered=_BOOL,
        repeated=_BOOL,
        over_step_limit=_BOOL,
        budget_out=_BOOL,
        over_cap=_BOOL,
    ),
    Point.CALL: _every(
        CallFacts,
        traits=_TRAITS,
        guarded=_BOOL,
        reading=list(Reading),
        forcing=list(Forcing),
        add=_BOOL,
        edit=_BOOL,
        whole_message=_BOOL,
        one_quote=_BOOL,
        asks_something=_BOOL,
        rest_names=_BOOL,
        stands_in=_BOOL,
        yes_to_question=_BOOL,
        states=_BOOL,
        either=_BOOL,
    ),
    Point.TARGET: _every(
        TargetFacts,
        traits=_TRAITS,
        hold=list(Hold),
        source=list(Source),
        naming=list(Naming),
        forced=_BOOL,
        anywhere=_BOOL,
        repairable=_BOOL,
        another=_BOOL,
        whole_list=_BOOL,
        confirmed=_BOOL,
        kept_apart=_BOOL,
        inside=_BOOL,
    ),
    Point.ANSWER: _every(
        AnswerFacts,
        guarded=_BOOL,
        reading=list(Reading),
        say=list(Say),
        missing=_BOOL,
        forced_before=_BOOL,
        ran=_BOOL,
        acted=_BOOL,
        read_instead=_BOOL,
        checkable=_BOOL,
        ghost_retried=_BOOL,
        claimed_one=_BOOL,
        confirmed=_BOOL,
        yes_to_one=_BOOL,
    ),
    Point.RESULTS: _every(
        ResultsFacts,
        guarded=_BOOL,
        reading=list(Reading),
        changes=_BOOL,
        all_refused=_BOOL,
        asked_again=_BOOL,
    ),
}


@pytest.mark.parametrize("point", [p for p in Point if p is not Point.VALUE])
def test_every_row_decides_for_some_facts_and_the_same_facts_always_the_same(point: Point) -> None:
    """No row is dead (a later row that an earlier one always shadows), and `decide` is a function."""
    facts: list[Facts] = FACTS[point]
    hit = {decide(f).rule for f in facts}
    assert hit == {row.id for row in TABLE[point]}
    assert all(decide(f) == decide(f) for f in facts[:500])


def test_every_value_row_decides_for_some_facts() -> None:
    from backend.app.calls.facts import Arg, Given, ValueFacts

    facts = _every(
        ValueFacts,
        arg=list(Arg),
        guarded=_BOOL,
        given=list(Given),
        held_to_ask=_BOOL,
        next_add=_BOOL,
        elsewhere=_BOOL,
    )
    assert {decide(f).rule for f in facts} == {row.id for row in TABLE[Point.VALUE]}


# -- no verdict outside the module -------------------------------------------------------------------
# A result with one of these codes is a verdict: the table's (a code the tools answer with, NOT_FOUND,
# CONFLICT, is what a lookup or a write found, not a verdict).
VERDICT_CODES = frozenset(
    {
        "NOT_REQUESTED",
        "NOT_GROUNDED",
        "NEEDS_CONFIRMATION",
        "DESTRUCTIVE_LIMIT",
        "IGNORED",
        "BUDGET_EXCEEDED",
        "REPEATED_CALL",
        "UNKNOWN_TOOL",
    }
)
_CONSTRUCTED_ONLY_THERE = frozenset({"Verdict", "Grounding"})


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def made_outside(path: Path) -> list[str]:
    """What `path` does that only the decision table may: build a verdict or a grounding, a guard event
    of a call (the review of the words records its own), or a result with a verdict's code."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    # The table's own types, as this file imports them (a repository may have a `Verdict` of its own).
    table = {
        a.asname or a.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module in ("backend.app.calls.verdicts", "backend.app.calls.decisions", "backend.app.calls.facts")
        for a in node.names
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = _name(node.func)
        where = f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{node.lineno}"
        if called in _CONSTRUCTED_ONLY_THERE and called in table:
            found.append(f"{where} builds a {called}")
        if called == "GuardEvent" and called in table:
            decision = (
                node.args[1]
                if len(node.args) > 1
                else next((k.value for k in node.keywords if k.arg == "decision"), None)
            )
            if decision is None or _name(decision) not in {d.name for d in WORDS_DECISIONS}:
                found.append(f"{where} records a guard event of a call")
        codes = [k.value for k in node.keywords if k.arg == "code"] + (node.args[:1] if called == "fixable" else [])
        if any(_name(c) in VERDICT_CODES or (isinstance(c, ast.Constant) and c.value in VERDICT_CODES) for c in codes):
            found.append(f"{where} gives a result a verdict's code")
    return found


def test_no_verdict_is_made_outside_its_module() -> None:
    files = [p for p in sorted(APP.rglob("*.py")) if p not in TABLE_MODULES]
    assert [problem for path in files for problem in made_outside(path)] == []


def test_the_check_sees_a_verdict_made_elsewhere(tmp_path: Path) -> None:
    module = tmp_path / "probe.py"
    module.write_text(
        "from backend.app.calls.codes import ResultCode\n"
        "from backend.app.calls.decisions import GuardEvent\n"
        "from backend.app.calls.facts import Grounding\n"
        "def f(x):\n"
        "    ToolResult(success=False, code=ResultCode.NOT_GROUNDED)\n"
        "    GuardEvent(0, GuardDecision.REFUSED, GuardReason.NOT_ASKED)\n"
        "    GuardEvent(0, GuardDecision.CHECKED, GuardReason.REPLY_CHECK)\n"
        "    Grounding(hold=x)\n"
        "    ToolResult.fixable(ResultCode.UNKNOWN_TOOL, 'no')\n"
    )
    found = made_outside(module)
    assert [f.split(" ", 1)[1] for f in found] == [
        "gives a result a verdict's code",
        "records a guard event of a call",
        "builds a Grounding",
        "gives a result a verdict's code",
    ]
