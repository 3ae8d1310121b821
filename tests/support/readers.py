"""The checks every language's table runs: what the reader and the claim finder must say."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from backend.app.services.claims import claims, denial
from backend.app.services.intent import classify

NOT_A_COMMAND = ("question", "advice", "report", "negated", "chat")


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
