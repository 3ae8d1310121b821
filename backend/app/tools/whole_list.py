"""Whether the words a call is held to name every task of the list ("delete them all"; after a yes,
the model's question "Should I delete all 50 tasks?"), the call's task among them: what lets a
change over the whole list run (the decision table's row T15) or asks about it once (T16).
"""

from __future__ import annotations

from backend.app.calls.facts import Grounding
from backend.app.calls.tools import Tool
from backend.app.db.repositories.tasks import TaskRepository, TaskRow
from backend.app.language.reading.clauses import names_every_task, of_finished, unplaced
from backend.app.tools.resolver import exactly_named


class WholeList:
    """One per `TaskFinder` (a turn): the list's titles are read at most once, and only for words for
    every task that stand only where a list is named ("from all your tasks")."""

    def __init__(self) -> None:
        self._titles: tuple[str, ...] | None = None

    async def says_all(self, repo: TaskRepository, grounding: Grounding, tool: str, row: TaskRow) -> bool:
        """Whether the words name every task, `row` among them. Words for every task that only say
        which list a task is on name none when the words name a task ("Should I delete Gym from all your
        tasks?" asks about Gym; "Should I check off all your tasks?" about every task); words said of
        the finished ones ("delete all your finished tasks") name only those, a completion aside."""
        names = grounding.names
        if not names or not names_every_task(names):
            return False
        if not names_every_task(names, places=False) and await self._names_a_task(repo, names):
            return False
        if tool == Tool.COMPLETE or not of_finished(names):
            return True
        task = row.whole or await repo.get(row.id)
        return task is not None and task.status == "completed"

    async def _names_a_task(self, repo: TaskRepository, names: str) -> bool:
        """Whether the words outside the ones that say which list name one of the owner's tasks exactly."""
        if self._titles is None:
            self._titles = tuple(task.title for task in await repo.list_tasks(status="all"))
        words = unplaced(names)
        return any(exactly_named(words, title) for title in self._titles)
