"""Lines of a reply found wrong by the second held-out set (tests/heldout/fresh), through the API with
a compliant scripted model: two lines that contradicted each other, a not-done line that quoted the
user's words without their accents, a no that hid the task the rest of the message named."""

from __future__ import annotations

from support.api import MakeClient, chat, seed_tasks, tasks_of
from support.compliant import compliant

from backend.app.language.catalog import texts


async def test_one_change_said_twice_is_one_action_and_no_line_says_it_was_not_done(make_client: MakeClient) -> None:
    titles = ("Wäsche waschen", "Miete überweisen")
    llm, _ = compliant([("complete_task", {"task_id": "Wäsche waschen"})], titles)
    client = await make_client(llm)
    await seed_tasks(client, *titles)

    body = (await chat(client, "wäsche ist durch, kannst du abhaken")).json()

    t = texts("de")
    assert body["assistant_message"] == t("Completed: “{title}”", title="Wäsche waschen") + "."
    assert body["execution_metadata"]["reply"]["not_done"] == []


async def test_a_not_done_line_quotes_the_users_own_spelling(make_client: MakeClient) -> None:
    # The model deletes and stops; the second action is never attempted.
    titles = ("Kühlschrank putzen", "Steuererklärung")
    llm, _ = compliant([("delete_task", {"task_id": "Kühlschrank putzen"})], titles, after_tools="Erledigt.")
    client = await make_client(llm, budget_max_llm_calls=2)
    await seed_tasks(client, *titles)

    body = (await chat(client, "lösch den Kühlschrank und schieb die Steuererklärung auf den 15. Dezember")).json()

    assert "„Kühlschrank putzen“" in body["assistant_message"]
    not_done = [line for line in body["assistant_message"].splitlines() if "Steuer" in line]
    assert not_done and "Steuererklärung auf den 15. Dezember" in not_done[0], body["assistant_message"]


async def test_after_a_no_the_task_the_rest_of_the_message_names_is_asked_about(make_client: MakeClient) -> None:
    titles = ("Yoga class", "Laundry", "Pay rent")
    llm, _ = compliant([("delete_task", {"task_id": "Laundry"})], titles)
    client = await make_client(llm)
    await seed_tasks(client, *titles)
    before = await tasks_of(client)

    body = (await chat(client, "no no don't delete yoga, it's the laundry that needs to go")).json()

    assert await tasks_of(client) == before
    assert body["confirmation"]["question"] == "Do you want me to delete “Laundry”? Answer yes or no."


async def test_after_a_no_the_task_it_names_is_neither_changed_nor_asked_about(make_client: MakeClient) -> None:
    titles = ("Yoga class", "Laundry")
    llm, _ = compliant([("delete_task", {"task_id": "Yoga class"})], titles)
    client = await make_client(llm)
    await seed_tasks(client, *titles)
    before = await tasks_of(client)

    body = (await chat(client, "no no don't delete yoga, it's the laundry that needs to go")).json()

    assert await tasks_of(client) == before
    assert body["confirmation"] is None
    assert "Yoga" not in body["assistant_message"]
