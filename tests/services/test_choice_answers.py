"""An answer to "which one?" between twins, read by what it says of the due date (issue 48): the forms
people use pick the one task whose date they describe, and words that only look like a date pick none
(the message then goes to the model as a new one)."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime

import pytest

from backend.app.db.models import PendingConfirmation
from backend.app.services.confirmations.questions import answer

TODAY = date(2026, 11, 22)  # a Sunday
DUES = ("2026-11-23", "2026-11-27", "2026-08-02")  # tomorrow (Monday), a Friday, in August


def _twins() -> PendingConfirmation:
    actions = [
        {
            "name": "delete_task",
            "arguments": {"task_id": f"id-{due}"},
            "label": f"Report ({due})",
            "facts": {"title": "Report", "due_date": due},
        }
        for due in DUES
    ]
    return PendingConfirmation(
        user_id="alice",
        conversation_id=uuid.uuid4(),
        kind="choose",
        question="?",
        actions=actions,
        turn_id=uuid.uuid4(),
        expires_at=datetime(2026, 11, 22, 12, 10, tzinfo=UTC),  # answer() reads no expiry
    )


def _picked(message: str) -> str | None:
    said = answer(_twins(), message, confirm=None, today=TODAY)
    return said.actions[0]["arguments"]["task_id"].removeprefix("id-") if said.verdict == "run" else None


@pytest.mark.parametrize(
    ("message", "due"),
    [
        ("the 27th", "2026-11-27"),
        ("am 27.", "2026-11-27"),
        ("o do dia 27", "2026-11-27"),
        ("27 de noviembre", "2026-11-27"),
        ("2 de agosto", "2026-08-02"),
        ("le 2 août", "2026-08-02"),
        ("8月2日", "2026-08-02"),
        ("la de mañana", "2026-11-23"),
        ("the friday one", "2026-11-27"),
        ("den på fredag", "2026-11-27"),
        ("the earliest", "2026-08-02"),
        ("la más lejana", "2026-11-27"),
    ],
)
def test_an_answer_by_the_date_picks_that_task(message: str, due: str) -> None:
    assert _picked(message) == due


@pytest.mark.parametrize(
    "message",
    [
        "celle de la semaine prochaine",  # "prochaine" is no "the next one" inside a longer answer
        "la de la próxima semana",
        "quella della settimana prossima",
        "the one I added a few days ago",  # "ago" is no month here
        "die, die Sie meinen",  # nor "Sie"
        "the one with 2 kids in it",  # a number that is no day
        "the 10am one",
    ],
)
def test_words_that_only_look_like_a_date_pick_nothing(message: str) -> None:
    assert _picked(message) is None


@pytest.mark.parametrize("message", ["the latest", "the latest one"])
def test_a_word_for_the_last_shown_and_the_last_due_picks_none_when_they_differ(message: str) -> None:
    """ "the latest" is the last of the list and, among twins told apart by their dates, the one due
    last: here those are two tasks, so neither is deleted on a guess."""
    assert _picked(message) is None


@pytest.mark.parametrize(("message", "due"), [("the last one", "2026-08-02"), ("the furthest one", "2026-11-27")])
def test_a_word_for_only_one_of_them_picks_it(message: str, due: str) -> None:
    assert _picked(message) == due
