"""A clause is read once, whatever quote it holds: a pasted list of quoted titles costs one reading
of its shape, and every item keeps its own title (language/reading/clauses.py `unnumbered`)."""

from __future__ import annotations

from backend.app.language.reading import clauses
from backend.app.language.reading.intent import classify


def test_the_placeholders_number_is_zeroed_at_the_same_width() -> None:
    assert clauses.unnumbered('add "§3§" and "§12§"') == 'add "§0§" and "§00§"'
    assert clauses.unnumbered("add milk") == "add milk"


def test_a_pasted_list_of_quoted_titles_keeps_each_title_and_is_read_once() -> None:
    clauses.clear_memos()
    message = ", ".join(f'add "Call plumber {i}"' for i in range(120))
    found = classify(message)
    assert found.kind == "command"
    assert len(found.actions) == 120
    assert all(a.object.endswith(f'"Call plumber {i}"') for i, a in enumerate(found.actions))
    # 120 clauses, numbered 0-9, 10-99 and 100-119: three shapes, three readings.
    assert clauses._read_clause.cache_info().currsize == 3


def test_a_quote_inside_a_question_or_a_negation_reads_as_before() -> None:
    for message in ('should I delete "Gym"?', 'don\'t delete "Gym"', 'delete "Gym", not "Yoga"'):
        numbered = classify(message)
        assert numbered.kind == classify(message.replace("Gym", "Gym2")).kind
    assert classify('should I delete "Gym"?').kind != "command"
    assert classify('don\'t delete "Gym"').kind != "command"
