"""The tool schemas the model receives name every argument the tools accept (compact, not lossy)."""

from __future__ import annotations

from pydantic import BaseModel
from support.api import MakeClient, chat
from support.fake_llm import ScriptedLLM, completion

from backend.app.tools.schemas import AddTaskArgs, ListTasksArgs, TaskRefArgs, UpdateTaskArgs

EXPECTED: dict[str, type[BaseModel]] = {
    "add_task": AddTaskArgs,
    "list_tasks": ListTasksArgs,
    "complete_task": TaskRefArgs,
    "delete_task": TaskRefArgs,
    "update_task": UpdateTaskArgs,
}


async def test_every_argument_field_is_in_the_schema_sent(make_client: MakeClient) -> None:
    llm = ScriptedLLM(completion("Hello!"))
    client = await make_client(llm)

    response = await chat(client, "hello there")

    assert response.status_code == 200, response.text
    sent = {t["function"]["name"]: t["function"]["parameters"] for t in llm.requests[0]["tools"]}
    for name, model in EXPECTED.items():
        properties = sent[name]["properties"]
        # A property named "title" once vanished with pydantic's "title" decorations: check by name.
        assert sorted(properties) == sorted(model.model_fields), name
        assert all(isinstance(spec, dict) and spec for spec in properties.values()), name
    assert sent["add_task"]["required"] == ["title"]
    assert sent["add_task"]["properties"]["title"]["type"] == "string"
    assert sent["add_task"]["properties"]["title"]["description"] == "Short title."
    # pydantic's decorations are gone (that is what keeps the schemas compact).
    assert "title" not in sent["add_task"]
    assert all("title" not in spec for spec in sent["update_task"]["properties"].values())
