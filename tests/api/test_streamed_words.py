"""Model mode's words on a streamed turn (issue 16, services/reply/live.py), over real HTTP: with
REPLY_CHECK=lists the model's sentences reach the user while it still writes, but only sentences the
tool results back, only from an answer that can be the reply; words that turn out not to be it are
withdrawn (`reset`) before anything else is shown. With the reply check (the default) no word of
the model's goes out before the model's own check of it matched what ran. `done` stays exactly the
plain route's body."""

from __future__ import annotations

from typing import Any

import httpx
from support.api import auth, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, call_delta, calls, chunk, completion, declares, slow_stream, words
from support.live import LiveWith
from support.sse import parse, reply_after_last_reset, streamed, timed

MODEL = {"response_mode": "model", "llm_stream": True, "reply_check": "lists"}


def writer(text: str, *, gap_s: float = 0.02) -> httpx.Response:
    return slow_stream(*words(text), gap_s=gap_s)


def kinds(events: list[Any]) -> list[str]:
    return [e[0] for e in events]


def deltas(events: list[Any]) -> list[str]:
    return [e[1]["text"] for e in events if e[0] == "delta"]


async def test_the_models_sentences_arrive_while_it_still_writes(live_with: LiveWith) -> None:
    text = "I added “buy milk” to your list. It is due tomorrow, so you have time. Anything else I can do for you?"
    live = await live_with(ScriptedLLM(calls(("add_task", {"title": "buy milk"})), writer(text, gap_s=0.1)), **MODEL)

    events = await timed(live, "add buy milk")

    assert kinds(events)[0] == "tool" and kinds(events)[-1] == "done" and "reset" not in kinds(events)
    first = next(e for e in events if e[0] == "delta")
    assert first[1]["text"] == "I added “buy milk” to your list."
    assert events[-1][2] - first[2] >= 1.0, events  # the first sentence came ~1.5 s before the model finished
    done = events[-1][1]
    assert done["assistant_message"] == text
    assert "".join(deltas(events)) == text
    assert [t["title"] for t in await tasks_of(live.client)] == ["buy milk"]


async def test_a_claim_no_tool_backs_is_never_streamed_and_the_words_are_withdrawn(live_with: LiveWith) -> None:
    live = await live_with(
        ScriptedLLM(
            calls(("add_task", {"title": "buy milk"})),
            writer("I added “buy milk”. I also deleted “Read book” for you. Have a nice day!"),
        ),
        **MODEL,
    )
    await seed_tasks(live.client, "Read book")

    events = parse((await streamed(live, "add buy milk")).text)

    assert kinds(events)[:3] == ["tool", "delta", "reset"] and deltas(events)[0] == "I added “buy milk”."
    assert not any("deleted" in piece for piece in deltas(events))
    done = events[-1][1]
    assert "deleted" not in done["assistant_message"] and "buy milk" in done["assistant_message"]
    assert reply_after_last_reset(events) == done["assistant_message"]
    assert sorted(t["title"] for t in await tasks_of(live.client)) == ["Read book", "buy milk"]


async def test_words_before_a_tool_call_are_withdrawn_before_the_tool_runs(live_with: LiveWith) -> None:
    first = [
        chunk({"role": "assistant", "content": "Hello! "}),
        chunk({"content": "Let me check your list first. "}),
        chunk({"content": "One moment"}),
        chunk(call_delta(0, id="c1", name="list_tasks", args="{}")),
        chunk({}, finish="tool_calls"),
    ]
    live = await live_with(
        ScriptedLLM(slow_stream(*first, gap_s=0.02), writer("You have one task: “Gym”. Have a good evening!")),
        **MODEL,
    )
    await seed_tasks(live.client, "Gym")

    events = parse((await streamed(live, "hi there, good evening")).text)

    assert kinds(events)[:4] == ["delta", "delta", "reset", "tool"], events
    assert reply_after_last_reset(events) == events[-1][1]["assistant_message"]
    assert events[-1][1]["assistant_message"].startswith("You have one task: “Gym”.")


async def test_no_word_is_streamed_while_an_asked_action_is_missing(live_with: LiveWith) -> None:
    """Add and delete asked; the model adds and says it is done: those words are never shown. Its
    "All done!" after a change it made is about that change, so nothing is forced (docs/guard.md,
    A5): the reply says the delete was not done."""
    live = await live_with(
        ScriptedLLM(calls(("add_task", {"title": "buy milk"})), writer("All done! I added “buy milk”. ")),
        **MODEL,
    )
    await seed_tasks(live.client, "Read book")

    events = parse((await streamed(live, "add buy milk and delete read book")).text)

    assert kinds(events)[:1] == ["tool"] and "reset" not in kinds(events), events
    assert not any("All done" in piece for piece in deltas(events))
    done = events[-1][1]
    assert done["assistant_message"] == "Added: “buy milk”.\nNot done: “delete read book”. Please ask again."
    assert "".join(deltas(events)) == done["assistant_message"]
    assert sorted(t["title"] for t in await tasks_of(live.client)) == ["Read book", "buy milk"]


async def test_after_a_failed_call_the_model_is_not_heard_and_the_reply_says_what_failed(live_with: LiveWith) -> None:
    live = await live_with(
        ScriptedLLM(calls(("delete_task", {"task_id": "Read book"})), writer("Done, it is gone. Anything else?")),
        **MODEL,
    )

    events = parse((await streamed(live, "delete read book")).text)

    done = events[-1][1]
    assert done["tool_calls"][0]["result"]["success"] is False
    assert "gone" not in done["assistant_message"] and "reset" not in kinds(events)
    assert "".join(deltas(events)) == done["assistant_message"]


async def test_an_answer_that_came_whole_is_heard_by_sentence_and_the_body_is_the_plain_one(
    live_with: LiveWith,
) -> None:
    """Without LLM_STREAM the model's answer comes whole: its checked sentences still go out before
    the reply is recorded, and the plain route gives the same reply for the same script."""
    script = [calls(("add_task", {"title": "call mom"})), completion("Added “call mom”. Want a reminder?")]
    live = await live_with(ScriptedLLM(*script, *script), response_mode="model", reply_check="lists")

    events = parse((await streamed(live, "add call mom")).text)
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        plain = (await http.post("/api/alice/chat", json={"message": "add call mom"}, headers=auth())).json()

    assert deltas(events) == ["Added “call mom”.", " Want a reminder?"]
    assert events[-1][1]["assistant_message"] == plain["assistant_message"] == "Added “call mom”. Want a reminder?"


async def test_direct_mode_streams_the_composed_reply_not_the_models_words(live_with: LiveWith) -> None:
    live = await live_with(
        ScriptedLLM(calls(("add_task", {"title": "buy milk"})), default=writer("Sure thing, all done!")),
        llm_stream=True,
    )

    events = parse((await streamed(live, "add buy milk")).text)

    assert deltas(events) == ["Added: “buy milk”."] and "reset" not in kinds(events)


async def test_with_the_reply_check_no_word_goes_out_before_it_and_a_rejected_one_never(live_with: LiveWith) -> None:
    # The model's answer claims a second change; the word lists read no claim in it, its check does.
    llm = ScriptedLLM(
        calls(("add_task", {"title": "buy milk"})),
        writer("Buy milk is on the list, and Gym no longer is."),
        checker=declares(("add", "buy milk"), ("delete", "Gym")),
    )
    live = await live_with(llm, response_mode="model", llm_stream=True)

    events = parse((await streamed(live, "add buy milk")).text)

    assert kinds(events) == ["tool", "delta", "done"]  # nothing early, nothing withdrawn
    assert deltas(events) == ["Added: “buy milk”."] == [events[-1][1]["assistant_message"]]
    assert events[-1][1]["execution_metadata"]["reply"]["replaced"][0]["reason"] == "unbacked_claim"
    assert len(llm.checks) == 1


async def test_with_the_reply_check_the_verified_words_go_out_once(live_with: LiveWith) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "buy milk"})), writer("Buy milk is on your list."))
    llm.checker = declares(("add", "buy milk"))  # an honest check: the words state the add, so no line is added
    live = await live_with(llm, response_mode="model", llm_stream=True)

    events = parse((await streamed(live, "add buy milk")).text)

    assert kinds(events) == ["tool", "delta", "done"]
    assert deltas(events) == ["Buy milk is on your list."]
    assert events[-1][1]["execution_metadata"]["reply"]["words"] == "verified"
