"""Whether the words a call is held to name every task of the list ("delete them all"; after a yes,
the model's question "Should I delete all 50 tasks?"), the call's task among them: what lets a
change over the whole list run (the decision table's row T15) or asks about it once (T16).
"""

from __future__ import annotations

from backend.app.calls.facts import Grounding
from backend.app.calls.tools import Tool
from backend.app.db.repositories.tasks import TaskRepository, TaskRow
from backend.app.language.reading.whole import all_from_a_list, names_every_task, of_finished, unplaced
from backend.app.tools.titles import named_in


class WholeList:
    """One per `TaskFinder` (a turn): the list's titles are read at most once, and only for a delete
    whose words for every task all say which list a task is taken from ("from all your tasks")."""

    def __init__(self) -> None:
        self._titles: tuple[str, ...] | None = None
        self._named: dict[str, bool] = {}
        self.found: set[str] = set()  # the titles of the tasks this turn's calls came to (some since deleted)

    async def says_all(self, repo: TaskRepository, grounding: Grounding, tool: str, row: TaskRow) -> bool:
        """Whether the words name every task, `row` among them. A delete "from all your tasks" names
        none where the words name a task ("Should I delete Gym from all your tasks?" asks about Gym;
        "Should I delete everything from your list?" about every task); words said of the finished
        ones ("delete all your finished tasks") name only those, a completion aside."""
        names = grounding.names
        if not names or not names_every_task(names):
            return False
        if tool == Tool.DELETE and all_from_a_list(names) and await self._names_a_task(repo, names):
            return False
        if tool == Tool.COMPLETE or not of_finished(names):
            return True
        task = row.whole or await repo.get(row.id)
        return task is not None and task.status == "completed"

    async def _names_a_task(self, repo: TaskRepository, names: str) -> bool:
        """Whether the words, outside the ones that say which list, name one of the owner's tasks."""
        if names not in self._named:
            if self._titles is None:
                self._titles = tuple(task.title for task in await repo.list_tasks(status="all"))
            words = unplaced(names)
            titles = self.found.union(self._titles)
            self._named[names] = any(named_in(words, title, strict=True) for title in titles)
        return self._named[names]
