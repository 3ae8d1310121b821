"""Whether a turn's calls did what its message asks: which action a call attempted (`satisfies`),
the first one no call attempted yet (`missing`), whether every one was (`covered`), and which ones
none did (`unattempted`, what the reply says was not done): the guard's and the reply's measure of
"all of it was tried"."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from backend.app.calls.codes import ResultCode
from backend.app.calls.payloads import title_of
from backend.app.calls.tools import BULK, Tool, having
from backend.app.calls.types import ExecutedCall, ToolCall
from backend.app.language.lexicon import fold, whole_list_words
from backend.app.language.reading.asks import Action, Intent
from backend.app.language.reading.naming import names_something
from backend.app.tools.titles import named_in, partly_named

# Results that end the reply with a question to the user: nothing was done yet.
ASKED = frozenset({ResultCode.NEEDS_CONFIRMATION, ResultCode.DESTRUCTIVE_LIMIT, ResultCode.AMBIGUOUS})
LIST_TOOLS = having("destructive")


def satisfies(call: ExecutedCall, action: Action) -> bool:
    """Whether a call attempted the action: one of its tools; an edit that makes that very change (a
    status edit to done, for a completion) on the task the action's words name; or a call whose title
    holds the action's whole clause: the clause was content, not an action ("- delete old photos from
    phone", an item of a pasted list, added as a title). An edit of another kind does not stand in:
    "delete the fridge" answered with a priority change is still not done."""
    if call.call.name in action.tools:
        return True
    title = (call.arguments or {}).get("title")
    # An item of a list ("käse, kündigen handyvertrag, ...") is content once a task of that title was added.
    content = action.explicit or call.result.success
    if isinstance(title, str) and content and names_something(action.about) and named_in(title, action.clause):
        return True
    if not _completes(call) or action.tool != Tool.COMPLETE.value:
        return False
    if not names_something(action.about):
        return True
    targets = [str(t) for t in (title_of(call.result.data), (call.arguments or {}).get("task_id")) if t]
    return any(named_in(action.about, t) or named_in(t, action.about) for t in targets)


def missing(intent: Intent, executed: Sequence[ExecutedCall]) -> str | None:
    """The tool of the first explicit action no call has attempted yet."""
    for action in intent.actions:
        if action.explicit and not any(satisfies(e, action) for e in executed):
            return action.tool
    return None


def covered(intent: Intent, executed: Sequence[ExecutedCall], *, enabled: bool) -> bool:
    """Every action asked for was attempted, and as many calls as the message has items were made
    (a model making one call per step is asked again until then, within the budgets). A model
    going through a list (more than a few changes of one kind in its last step, or several asked
    about) and an action over the whole list ("mark everything done") are never covered by a
    count: the model goes on until it answers in words."""
    # A call ignored over the per-step limit was not attempted: the model gets to send it again.
    attempted = [e for e in executed if e.result.code != ResultCode.IGNORED and not e.result.model_fixable]
    if enabled and _going_through_a_list(executed, read=intent.needs_tool):
        return False
    if not enabled or not intent.needs_tool:  # a call that found no task the user named answers nothing
        return any(e.ran and e.result.code != ResultCode.NOT_GROUNDED for e in attempted)
    if missing(intent, executed) is not None:
        return False
    if any(whole_list_words().search(fold(a.clause)) for a in intent.actions if a.tool in LIST_TOOLS):
        return False
    for tool in {a.tool for a in intent.actions}:
        wanted = [a for a in intent.actions if a.tool == tool]
        if sum(1 for e in attempted if satisfies(e, wanted[0])) < len(wanted):
            return False
    return True


def _going_through_a_list(executed: Sequence[ExecutedCall], *, read: bool) -> bool:
    """The last step made more than a few changes of one kind (a pasted list, a whole list), or, on a
    message the reader read no command in (`read` false), asked about several deletions or
    completions: a model that splits a long list over steps has more."""
    last = max((e.step for e in executed), default=0)
    step = [e for e in executed if e.step == last]
    kinds = Counter(e.call.name for e in step if e.call.name in LIST_TOOLS or e.call.name == Tool.ADD)
    asked = [e for e in step if e.result.code in ASKED and e.call.name in LIST_TOOLS]
    return any(n > BULK for n in kinds.values()) or (not read and len(asked) >= 2)


def _completes(call: ExecutedCall | ToolCall) -> bool:
    """An edit that marks its task done."""
    inner = call.call if isinstance(call, ExecutedCall) else call
    return inner.name == Tool.UPDATE and (inner.arguments or {}).get("status") == "completed"


def unattempted(intent: Intent, calls: Sequence[ExecutedCall]) -> list[Action]:
    """The actions asked for that no call attempted, in the message's order. First each action
    takes a call that names what it is about ("eggs" of "add milk and eggs"); then an action with a
    verb of its own takes any call of its tool, and an item of a list is covered by any call naming
    it (one "salt and pepper" task covers "add salt and pepper"); an edit that marks its task done
    covers one more change of that task, a completion or an edit (`_also`)."""
    if not intent.needs_tool:
        return []
    left = list(calls)
    matched: dict[int, ExecutedCall] = {}
    for index, action in enumerate(intent.actions):
        naming = [c for c in left if satisfies(c, action) and action.object and named_in(_said(c), action.object)]
        if naming:
            matched[index] = naming[0]
            left.remove(naming[0])
    spare = [(c, intent.actions[i].tool) for i, c in matched.items() if _completes(c)]  # may make one change more
    missing = []
    for index, action in enumerate(intent.actions):
        if index in matched:
            continue
        if action.explicit:
            other = next((c for c in left if satisfies(c, action)), None)
            if other is not None:
                left.remove(other)
                spare += [(other, action.tool)] if _completes(other) else []
                continue
            both = next((p for p in spare if p[1] != action.tool and _also(p[0], action)), None)
            if both is not None:  # one edit made this change and the one it was taken for
                spare.remove(both)  # ("rename gym to X and mark it done"), once
                continue
        elif any(satisfies(c, action) and _covers(c, action) for c in calls):
            continue
        elif not names_something(action.about) and any(satisfies(c, action) for c in calls):
            continue  # "hak das bitte ab" after "miete ist raus": the same change, said twice
        missing.append(action)
    return missing


def _also(call: ExecutedCall, action: Action) -> bool:
    """Whether an edit that marks its task done, taken for one action, makes another of that task: a
    completion of it, or an edit of it ("rename gym to X and mark it done", "mark gym done and
    rename it to X"), never one of another task ("… and set taxes to high")."""
    if action.tool == Tool.COMPLETE:
        return satisfies(call, action)
    if action.tool != Tool.UPDATE:
        return False
    targets = [str(t) for t in (title_of(call.result.data), (call.arguments or {}).get("task_id")) if t]
    return not names_something(action.about) or any(
        named_in(action.about, t) or named_in(t, action.about) for t in targets
    )


def _covers(call: ExecutedCall, action: Action) -> bool:
    """A call on the task an action without a verb of its own is about ("wäsche ist durch"), even
    when its words name the task only in part, or say more than its title ("item 3 can stay")."""
    titles = [_said(call), title_of(call.result.data) or ""]
    return any(
        named_in(t, action.object) or (t and (named_in(action.object, t) or partly_named(action.object, t)))
        for t in titles
    )


def _said(call: ExecutedCall) -> str:
    return " ".join(str(v) for v in call.arguments.values() if isinstance(v, str))
