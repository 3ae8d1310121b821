"""The offline rule-based model: message -> tool calls, tool results -> summary, wire format."""

from __future__ import annotations

import copy
import json
import time
from typing import Any

import pytest

from backend.app.agent.offline import OfflineModel, respond

TOOL_NAMES = ("add_task", "list_tasks", "complete_task", "delete_task", "update_task")
SYSTEM = {"role": "system", "content": "You are Taskchat, a to-do assistant.\nToday's date: 2026-11-22 (Sunday).\n"}


def tools(*names: str) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": n, "description": n, "parameters": {"type": "object"}}}
        for n in names or TOOL_NAMES
    ]


def request(message: str, *, offered: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "model": "whatever",
        "messages": [SYSTEM, {"role": "user", "content": message}],
        "tools": tools() if offered is None else offered,
        **extra,
    }


def message_of(response: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = response["choices"][0]["message"]
    return message


def calls_of(response: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message_of(response).get("tool_calls", [])
    ]


def text_of(response: dict[str, Any]) -> str:
    assert "tool_calls" not in message_of(response)
    assert response["choices"][0]["finish_reason"] == "stop"
    content: str = message_of(response)["content"]
    return content


def add(title: str, **args: Any) -> tuple[str, dict[str, Any]]:
    return ("add_task", {"title": title, **args})


def ref(name: str, task_id: str, **args: Any) -> tuple[str, dict[str, Any]]:
    return (name, {"task_id": task_id, **args})


PARSES = [
    # add, with dates relative to Sunday 2026-11-22, priorities and tags
    (
        "add buy milk tomorrow high priority #shopping",
        [add("buy milk", priority="high", due_date="2026-11-23", tags=["shopping"])],
    ),
    ("Add Buy milk", [add("Buy milk")]),
    ("create call mom next friday", [add("call mom", due_date="2026-11-27")]),
    ("add call mom on friday", [add("call mom", due_date="2026-11-27")]),
    ("add call mom friday", [add("call mom", due_date="2026-11-27")]),
    ("add call mom today", [add("call mom", due_date="2026-11-22")]),
    ("new task: Pay rent on 2026-12-01", [add("Pay rent", due_date="2026-12-01")]),
    ("new task Pay rent by 2026-12-01", [add("Pay rent", due_date="2026-12-01")]),
    ("add report due friday", [add("report", due_date="2026-11-27")]),
    ("add water plants in 3 days", [add("water plants", due_date="2026-11-25")]),
    ("remind me to call mom", [add("call mom")]),
    ("remind me tomorrow to call mom", [add("call mom", due_date="2026-11-23")]),
    ("add a task to water the plants", [add("water the plants")]),
    ("please add fix bug with high priority.", [add("fix bug", priority="high")]),
    ("can you add fix bug priority low?", [add("fix bug", priority="low")]),
    ("add urgent: fix the sink", [add("fix the sink", priority="high")]),
    ("add groceries to my list", [add("groceries")]),
    ('add "Read book, chapter 1" tomorrow', [add("Read book, chapter 1", due_date="2026-11-23")]),
    ("add pay bills #home #money", [add("pay bills", tags=["home", "money"])]),
    # words that only look like dates stay in the title
    ("add watch friday night lights", [add("watch friday night lights")]),
    ("add sat exam prep", [add("sat exam prep")]),
    # comma lists: one add per item; " and " alone never splits
    ("add milk, eggs and bread", [add("milk"), add("eggs"), add("bread")]),
    ("add milk, eggs, bread", [add("milk"), add("eggs"), add("bread")]),
    ("add milk, eggs, bread tomorrow", [add(t, due_date="2026-11-23") for t in ("milk", "eggs", "bread")]),
    ("add salt and pepper", [add("salt and pepper")]),
    ("add pick up kids and drop them at school", [add("pick up kids and drop them at school")]),
    # list
    ("list", [("list_tasks", {"status": "all"})]),
    ("show my tasks", [("list_tasks", {"status": "all"})]),
    ("what are my tasks?", [("list_tasks", {"status": "all"})]),
    ("what do I have", [("list_tasks", {"status": "all"})]),
    ("my tasks", [("list_tasks", {"status": "all"})]),
    ("todo", [("list_tasks", {"status": "all"})]),
    ("what's left?", [("list_tasks", {"status": "pending"})]),
    ("show open tasks", [("list_tasks", {"status": "pending"})]),
    ("show completed tasks", [("list_tasks", {"status": "completed"})]),
    ("what's done", [("list_tasks", {"status": "completed"})]),
    # complete
    ("complete Read book", [ref("complete_task", "Read book")]),
    ("mark laundry done", [ref("complete_task", "laundry")]),
    ("mark the laundry task as completed", [ref("complete_task", "laundry")]),
    ("mark Laundry finished!", [ref("complete_task", "Laundry")]),
    ("finish my report", [ref("complete_task", "report")]),
    ('check off "Read book"', [ref("complete_task", "Read book")]),
    ("laundry is done", [ref("complete_task", "laundry")]),
    ("done with laundry", [ref("complete_task", "laundry")]),
    ("I finished Read book", [ref("complete_task", "Read book")]),
    # delete
    ("delete Read book", [ref("delete_task", "Read book")]),
    ("Could you please remove the gym task?", [ref("delete_task", "gym")]),
    ("cancel dentist", [ref("delete_task", "dentist")]),
    ("get rid of gym", [ref("delete_task", "gym")]),
    ("drop gym", [ref("delete_task", "gym")]),
    ("remove milk from my list", [ref("delete_task", "milk")]),
    # update
    ("rename gym to Gym session", [ref("update_task", "gym", title="Gym session")]),
    ("change the priority of gym to high", [ref("update_task", "gym", priority="high")]),
    ("set the priority of gym to low", [ref("update_task", "gym", priority="low")]),
    ("make gym high priority", [ref("update_task", "gym", priority="high")]),
    ("set gym priority high", [ref("update_task", "gym", priority="high")]),
    ("move gym to tomorrow", [ref("update_task", "gym", due_date="2026-11-23")]),
    ("move trip to paris to friday", [ref("update_task", "trip to paris", due_date="2026-11-27")]),
    ("set the due date of gym to friday", [ref("update_task", "gym", due_date="2026-11-27")]),
    ("gym is due friday", [ref("update_task", "gym", due_date="2026-11-27")]),
    ("change the description of gym to bring a towel", [ref("update_task", "gym", description="bring a towel")]),
    ("update gym title to Gym class", [ref("update_task", "gym", title="Gym class")]),
    ("mark gym as not done", [ref("update_task", "gym", status="pending")]),
    # compound messages
    ("delete the gym task and mark laundry done", [ref("delete_task", "gym"), ref("complete_task", "laundry")]),
    ("add milk; delete gym", [add("milk"), ref("delete_task", "gym")]),
    ("delete gym then show my tasks", [ref("delete_task", "gym"), ("list_tasks", {"status": "all"})]),
    ("add milk, eggs and then list my tasks", [add("milk"), add("eggs"), ("list_tasks", {"status": "all"})]),
    ("add pay rent then buy groceries", [add("pay rent then buy groceries")]),
    ("delete gym, mark laundry done", [ref("delete_task", "gym"), ref("complete_task", "laundry")]),
    ("add milk, drop off package", [add("milk"), add("drop off package")]),
    ("add call mom and show her the photos", [add("call mom and show her the photos")]),
    ("don't forget to call mom tomorrow", [add("call mom", due_date="2026-11-23")]),
]


@pytest.mark.parametrize(("message", "expected"), PARSES, ids=[m for m, _ in PARSES])
def test_message_to_tool_calls(message: str, expected: list[tuple[str, dict[str, Any]]]) -> None:
    response = respond(request(message))
    assert calls_of(response) == expected
    assert response["choices"][0]["finish_reason"] == "tool_calls"
    assert message_of(response)["content"] is None


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("hi", "offline"),
        ("hello!", "offline"),
        ("thanks", "offline"),
        ("how are you?", "offline"),
        ("how do I delete a task?", "delete"),
        ("show me how to delete a task", "delete"),
        ("what's the weather like", "not an LLM"),
        ("don't delete it", "won't"),
        ("please don't delete the gym task", "won't"),
        ("delete it", "Which task"),
        ("add a task", "called"),
    ],
)
def test_small_talk_negations_and_vague_requests_get_text(message: str, expected: str) -> None:
    assert expected in text_of(respond(request(message)))


def test_small_talk_says_what_it_is_and_gives_an_example() -> None:
    text = text_of(respond(request("hello")))
    assert "offline" in text and "rule-based" in text and "not an LLM" in text and '"add ' in text


# --- tool_choice ----------------------------------------------------------------------------
def forced(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name}}


@pytest.mark.parametrize(
    ("message", "tool", "expected"),
    [
        ("delete Read book", "delete_task", {"task_id": "Read book"}),
        ("mark laundry done", "delete_task", {"task_id": "laundry"}),  # the parsed reference is reused
        ("please get rid of that old thing", "delete_task", {"task_id": "that old thing"}),
        ("hmm, the dentist", "complete_task", {"task_id": "hmm, the dentist"}),
        ("hello", "list_tasks", {"status": "all"}),
        ("show completed", "list_tasks", {"status": "completed"}),
        ("buy milk tomorrow", "add_task", {"title": "buy milk", "due_date": "2026-11-23"}),
        ("delete gym and add milk", "add_task", {"title": "milk"}),
    ],
)
def test_forced_function_gives_exactly_one_call(message: str, tool: str, expected: dict[str, Any]) -> None:
    response = respond(request(message, tool_choice=forced(tool)))
    assert calls_of(response) == [(tool, expected)]


def test_forced_respond_carries_the_reply() -> None:
    response = respond(request("hello", offered=tools(*TOOL_NAMES, "respond"), tool_choice=forced("respond")))
    [(name, args)] = calls_of(response)
    assert name == "respond" and "offline" in args["message"]


def test_forced_tool_that_is_not_offered_is_ignored() -> None:
    response = respond(request("delete gym", offered=tools("list_tasks"), tool_choice=forced("delete_task")))
    assert "delete_task" in text_of(response)


@pytest.mark.parametrize("choice", ["required", "any", {"type": "any"}])
def test_required_without_a_command_uses_respond_then_list(choice: Any) -> None:
    with_respond = respond(request("hello", offered=tools(*TOOL_NAMES, "respond"), tool_choice=choice))
    [(name, args)] = calls_of(with_respond)
    assert name == "respond" and "offline" in args["message"]
    without = respond(request("hello", tool_choice=choice))
    assert calls_of(without) == [("list_tasks", {"status": "all"})]


def test_required_with_a_command_returns_the_command() -> None:
    response = respond(request("delete gym", offered=tools(*TOOL_NAMES, "respond"), tool_choice="required"))
    assert calls_of(response) == [ref("delete_task", "gym")]


def test_auto_never_calls_respond_for_small_talk() -> None:
    response = respond(request("hello", offered=tools(*TOOL_NAMES, "respond"), tool_choice="auto"))
    assert "offline" in text_of(response)


@pytest.mark.parametrize("body_change", [{"tool_choice": "none"}, {"tools": []}, {"tools": None}])
def test_no_tool_calls_when_tools_are_off(body_change: dict[str, Any]) -> None:
    body = {**request("delete gym"), **body_change}
    assert "delete_task" in text_of(respond(body))


def test_tools_not_offered_are_dropped_and_explained() -> None:
    only_list = tools("list_tasks")
    assert "delete_task" in text_of(respond(request("delete gym", offered=only_list)))
    mixed = respond(request("delete gym and show my tasks", offered=only_list))
    assert calls_of(mixed) == [("list_tasks", {"status": "all"})]


def test_parallel_tool_calls_false_keeps_only_the_first() -> None:
    response = respond(request("add milk, eggs and bread", parallel_tool_calls=False))
    assert calls_of(response) == [add("milk")]


# --- summarizing tool results ---------------------------------------------------------------
def after_tools(user: str, results: list[tuple[str, dict[str, Any], Any]], **extra: Any) -> dict[str, Any]:
    """A request in which the model already called tools this turn and their results came back."""
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        for i, (name, args, _) in enumerate(results)
    ]
    tool_messages = [
        {
            "role": "tool",
            "tool_call_id": f"c{i}",
            "content": payload if isinstance(payload, str) else json.dumps(payload),
        }
        for i, (_, _, payload) in enumerate(results)
    ]
    return {
        "model": "m",
        "messages": [
            SYSTEM,
            {"role": "user", "content": user},
            {"role": "assistant", "content": None, "tool_calls": calls},
            *tool_messages,
        ],
        "tools": tools(),
        **extra,
    }


def ok(data: Any) -> dict[str, Any]:
    return {"success": True, "data": data, "error": None}


TASK: dict[str, Any] = {
    "id": "7f0c",
    "title": "Buy milk",
    "description": None,
    "status": "pending",
    "priority": "high",
    "due_date": "2026-11-23",
    "tags": [],
}


@pytest.mark.parametrize(
    ("name", "args", "payload", "expected"),
    [
        ("add_task", {"title": "Buy milk"}, ok(TASK), 'Added "Buy milk" (due 2026-11-23, high priority).'),
        (
            "add_task",
            {"title": "Gym"},
            ok({**TASK, "title": "Gym", "priority": "medium", "due_date": None}),
            'Added "Gym".',
        ),
        (
            "delete_task",
            {"task_id": "read book"},
            ok({"id": "1", "title": "Read book", "status": "deleted"}),
            'Deleted "Read book".',
        ),
        (
            "complete_task",
            {"task_id": "laundry"},
            ok({**TASK, "title": "Laundry", "status": "completed"}),
            'Marked "Laundry" as completed.',
        ),
        ("update_task", {"task_id": "gym", "priority": "low"}, ok({**TASK, "title": "Gym"}), 'Updated "Gym".'),
        (
            "delete_task",
            {"task_id": "gym"},
            {"success": False, "data": None, "error": "No task matches 'gym'", "code": "NOT_FOUND"},
            "I couldn't do that: there is no task by that name on your list.",  # never the tool's own text
        ),
        (
            "delete_task",
            {"task_id": "gym"},
            {
                "success": False,
                "data": None,
                "error": "Not run: the user's message asks for no change.",
                "code": "NOT_REQUESTED",
            },
            "Nothing was changed.",
        ),
        (
            "delete_task",
            {"task_id": "gym"},
            {
                "success": False,
                "data": None,
                "error": "Multiple tasks match 'gym'. 1. Gym; 2. Gym",
                "code": "AMBIGUOUS",
            },
            'Which task do you mean? Please name it, for example "delete Buy milk".',
        ),
        (
            "list_tasks",
            {"status": "all"},
            ok({"status": "all", "count": 0, "tasks": [], "truncated": False}),
            "You have no tasks.",
        ),
        (
            "list_tasks",
            {"status": "all"},
            ok(
                {
                    "status": "all",
                    "count": 2,
                    "tasks": [TASK, {**TASK, "title": "Gym", "status": "completed", "due_date": None}],
                }
            ),
            "You have 2 tasks: Buy milk (pending, due 2026-11-23), Gym (completed).",
        ),
        (
            "list_tasks",
            {"status": "pending"},
            ok({"status": "pending", "count": 1, "tasks": [TASK]}),
            "You have 1 pending task: Buy milk (due 2026-11-23).",
        ),
        ("list_tasks", {}, ok([{"title": "A", "status": "pending"}]), "You have 1 task: A (pending)."),
        ("delete_task", {"task_id": "gym"}, "database exploded", "The delete_task tool returned: database exploded"),
    ],
)
def test_tool_results_are_summarized(name: str, args: dict[str, Any], payload: Any, expected: str) -> None:
    assert text_of(respond(after_tools("do it", [(name, args, payload)]))) == expected


def test_several_results_are_summarized_in_order() -> None:
    body = after_tools(
        "delete the gym task and mark laundry done",
        [
            ("delete_task", {"task_id": "gym"}, ok({"title": "Gym", "status": "deleted"})),
            ("complete_task", {"task_id": "laundry"}, ok({**TASK, "title": "Laundry"})),
        ],
    )
    assert text_of(respond(body)) == 'Deleted "Gym". Marked "Laundry" as completed.'


def test_summary_goes_through_respond_when_a_tool_call_is_required() -> None:
    body = after_tools(
        "delete gym", [("delete_task", {"task_id": "gym"}, ok({"title": "Gym"}))], tool_choice="required"
    )
    body["tools"] = tools(*TOOL_NAMES, "respond")
    assert calls_of(respond(body)) == [("respond", {"message": 'Deleted "Gym".'})]
    body["tools"] = tools()  # required but no respond tool: plain text, never a repeated action
    assert text_of(respond(body)) == 'Deleted "Gym".'


def test_only_results_after_the_last_user_message_count() -> None:
    earlier = after_tools("delete gym", [("delete_task", {"task_id": "gym"}, ok({"title": "Gym"}))])
    earlier["messages"] += [
        {"role": "assistant", "content": 'Deleted "Gym".'},
        {"role": "user", "content": "complete laundry"},
    ]
    assert calls_of(respond(earlier)) == [ref("complete_task", "laundry")]


# --- wire format and determinism ------------------------------------------------------------
def test_output_is_a_valid_chat_completion() -> None:
    response = respond(request("add milk, eggs and bread"))
    assert response["object"] == "chat.completion"
    assert response["model"] == "taskchat-offline"
    assert response["created"] == 0
    assert response["id"].startswith("offline-")
    [choice] = response["choices"]
    assert choice["index"] == 0 and choice["finish_reason"] == "tool_calls"
    assert choice["message"]["role"] == "assistant"
    calls = choice["message"]["tool_calls"]
    assert len(calls) == 3 and len({c["id"] for c in calls}) == 3
    for n, call in enumerate(calls, start=1):
        assert call["type"] == "function" and call["id"].startswith(f"call_{n}_")
        assert isinstance(call["function"]["arguments"], str)
        assert isinstance(json.loads(call["function"]["arguments"]), dict)
    usage = response["usage"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    json.dumps(response)  # plain JSON all the way down


def test_text_reply_has_no_tool_calls_key() -> None:
    message = message_of(respond(request("hello")))
    assert set(message) == {"role", "content"}


def test_same_body_same_output_and_input_untouched() -> None:
    body = request("add buy milk tomorrow and delete gym")
    before = copy.deepcopy(body)
    assert respond(body) == respond(copy.deepcopy(body))
    assert body == before
    other = respond(request("add buy milk tomorrow and delete the gym"))
    assert other["id"] != respond(body)["id"]


def test_today_comes_from_the_system_prompt() -> None:
    body = request("add x tomorrow")
    body["messages"][0] = {"role": "system", "content": "Today's date: 2027-02-28 (Sunday)."}
    assert calls_of(respond(body)) == [add("x", due_date="2027-03-01")]


def test_tolerates_odd_bodies() -> None:
    odd: list[dict[str, Any]] = [
        {},
        {"messages": []},
        {"messages": [{"role": "user", "content": None}]},
        {"messages": "nope"},
    ]
    for body in odd:
        assert "offline" in text_of(respond(body))
    parts = {
        "messages": [SYSTEM, {"role": "user", "content": [{"type": "text", "text": "delete gym"}]}],
        "tools": tools(),
    }
    assert calls_of(respond(parts)) == [ref("delete_task", "gym")]


@pytest.mark.asyncio
async def test_offline_model_client_interface() -> None:
    model = OfflineModel()
    assert (model.label, model.model_name) == ("offline", "taskchat-offline")
    body = request("delete gym")
    assert await model.create(body, deadline=time.monotonic() - 1) == respond(body)
