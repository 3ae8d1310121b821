"""The checks every language's table runs: what the reader and the claim finder must say."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from backend.app.language.reading.intent import classify
from backend.app.services.guard.claims import claims, denial

NOT_A_COMMAND = ("question", "advice", "report", "negated", "small_talk", "chat")


def check_command(message: str, tools: Sequence[str]) -> None:
    """`message` asks for these actions, in order (each action named by the tool to force)."""
    intent = classify(message)
    assert intent.kind == "command", f"{message!r}: {intent.kind} ({intent.reason})"
    assert [a.tool for a in intent.actions if a.explicit] == list(tools), f"{message!r}: {intent.actions}"


def check_not_a_command(message: str, kind: str | None = None) -> None:
    """`message` asks for no change: of this kind, or of any kind but command when `kind` is None."""
    intent = classify(message)
    assert intent.kind != "command", f"{message!r} read as a command: {intent.actions} ({intent.reason})"
    assert not intent.actions
    if kind is not None:
        assert intent.kind == kind, f"{message!r}: {intent.kind} ({intent.reason})"


def check_claim(reply: str, tool: str | None) -> None:
    """`reply` claims a change: by `tool` (or a tool that does the same), or any change when None."""
    found = claims(reply)
    assert found, f"{reply!r}: no claim found"
    if tool is not None:
        assert any(tool in c.tools for c in found), f"{reply!r}: {found}"


def check_no_claim(reply: str) -> None:
    assert claims(reply) == [], f"{reply!r} read as a claim: {claims(reply)}"


def check_denial(reply: str, denies: bool = True) -> None:
    assert (denial(reply) is not None) is denies, f"{reply!r}: denial={denial(reply)!r}"


def language_tests(
    commands: Sequence[tuple[str, Sequence[str]]],
    not_commands: Sequence[tuple[str, str | None]],
    claims: Sequence[tuple[str, str | None]],
    not_claims: Sequence[str],
    denials: Sequence[str],
    not_denials: Sequence[str],
) -> tuple[Callable[..., None], ...]:
    """The six tests every language's table runs, parametrized by its cases (assign them to
    test_commands, test_not_commands, test_claims, test_not_claims, test_denials, test_not_denials)."""

    @pytest.mark.parametrize(("message", "tools"), commands, ids=[c[0] for c in commands])
    def test_commands(message: str, tools: list[str]) -> None:
        check_command(message, tools)

    @pytest.mark.parametrize(("message", "kind"), not_commands, ids=[c[0] for c in not_commands])
    def test_not_commands(message: str, kind: str | None) -> None:
        check_not_a_command(message, kind)

    @pytest.mark.parametrize(("reply", "tool"), claims, ids=[c[0] for c in claims])
    def test_claims(reply: str, tool: str | None) -> None:
        check_claim(reply, tool)

    @pytest.mark.parametrize("reply", not_claims)
    def test_not_claims(reply: str) -> None:
        check_no_claim(reply)

    @pytest.mark.parametrize("reply", denials)
    def test_denials(reply: str) -> None:
        check_denial(reply)

    @pytest.mark.parametrize("reply", not_denials)
    def test_not_denials(reply: str) -> None:
        check_denial(reply, denies=False)

    return test_commands, test_not_commands, test_claims, test_not_claims, test_denials, test_not_denials


# -- the conversation's words: which language, small talk, undo, references -------------------------
def check_detected(message: str, code: str) -> None:
    """`message` is answered in the language `code`."""
    from backend.app.language.detect import detect

    found = detect(message, reader=classify(message).languages)
    assert (found.code, found.detected) == (code, code), f"{message!r}: {found}"


def check_small_talk(message: str) -> None:
    intent = classify(message)
    assert intent.kind == "small_talk", f"{message!r}: {intent.kind} ({intent.reason})"


def check_undo(message: str) -> None:
    intent = classify(message)
    assert intent.kind == "command", f"{message!r}: {intent.kind} ({intent.reason})"
    assert [a.tool for a in intent.actions] == ["undo_last_change"], f"{message!r}: {intent.actions}"


# A conversation that added "Milk" two turns ago, then completed "Gym", and showed three tasks before that.
def _conversation() -> Any:
    from backend.app.tools.account import TaskRef
    from backend.app.tools.referents import Referents

    milk, gym = TaskRef("1", "Milk"), TaskRef("2", "Gym")
    shown = (TaskRef("3", "Taxes"), TaskRef("4", "Bread"), TaskRef("5", "Yoga"))
    return Referents(acted=(gym,), acted_how="", shown=shown, before=(milk,), added=milk)


_MEANS = {"this": "Gym", "previous": "Milk", "just_added": "Milk", "first": "Taxes", "second": "Bread", "third": "Yoga"}


def check_reference(words: str, means: str) -> None:
    """`words` points into the conversation: to the task acted on last ("this"), the one before
    ("previous"), the one added last ("just_added"), or a position of the list shown ("second")."""
    from backend.app.tools.referents import Pick

    found = _conversation().resolve(words)
    assert isinstance(found, Pick), f"{words!r}: {found}"
    assert found.task.title == _MEANS[means], f"{words!r}: {found.task.title}, not {_MEANS[means]}"


def conversation_tests(
    detects: Sequence[str],
    code: str,
    small_talk: Sequence[str],
    undos: Sequence[str],
    references: Sequence[tuple[str, str]],
) -> tuple[Callable[..., None], ...]:
    """The four conversation tests every language runs (assign them to test_detects,
    test_small_talk, test_undos, test_references)."""

    @pytest.mark.parametrize("message", detects)
    def test_detects(message: str) -> None:
        check_detected(message, code)

    @pytest.mark.parametrize("message", small_talk)
    def test_small_talk(message: str) -> None:
        check_small_talk(message)

    @pytest.mark.parametrize("message", undos)
    def test_undos(message: str) -> None:
        check_undo(message)

    @pytest.mark.parametrize(("words", "means"), references, ids=[r[0] for r in references])
    def test_references(words: str, means: str) -> None:
        check_reference(words, means)

    return test_detects, test_small_talk, test_undos, test_references
