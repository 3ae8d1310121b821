"""The tool registry (tools/registry.py `TOOLS`, `find_tool`): one definition per tool, one lookup."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from support.api import NOW, make_settings

from backend.app.calls.types import ToolCall
from backend.app.core.clock import FixedClock
from backend.app.core.config import Settings
from backend.app.db.session import create_engine, create_sessionmaker
from backend.app.tools.factory import ToolsFor, offered_tools, task_tools_factory
from backend.app.tools.registry import TOOL_SPECS, TOOLS, find_tool
from backend.app.tools.schemas import compact_schema


def test_each_tool_is_defined_once_with_its_schema_from_its_arguments_model() -> None:
    assert list(TOOLS) == [s.name for s in TOOL_SPECS]
    for name, definition in TOOLS.items():
        assert definition.spec.name == name
        assert definition.spec.parameters == compact_schema(definition.args)  # what the model sees is what is read
        assert definition.handler.__name__ == name


def test_the_lookup_knows_every_tool_and_what_the_deployment_offers() -> None:
    assert all(find_tool(name) is TOOLS[name] for name in TOOLS)
    assert find_tool("drop_database") is None
    assert find_tool("") is None
    offered = offered_tools(Settings(tools_deny=["delete_task"]))
    assert offered is not None
    assert find_tool("delete_task", offered) is None
    assert find_tool("add_task", offered) is TOOLS["add_task"]


@pytest.fixture
async def tools_for(database: str) -> AsyncIterator[ToolsFor]:
    """The production factory on the test database, for a deployment that withholds delete_task."""
    settings = make_settings(database, tools_deny=["delete_task"])
    engine = create_engine(settings)
    yield task_tools_factory(settings=settings, sessionmaker=create_sessionmaker(engine), clock=FixedClock(NOW))
    await engine.dispose()


async def test_an_unknown_or_withheld_tool_is_refused_by_the_executor_the_same_way(tools_for: ToolsFor) -> None:
    tools = tools_for("alice", source="rest")
    outcome = await tools.execute_batch(
        [ToolCall("1", "drop_database", {}), ToolCall("2", "delete_task", {"task_id": "x"})]
    )
    assert [(r.success, r.code, r.model_fixable) for r in outcome.results] == [(False, "UNKNOWN_TOOL", True)] * 2
    assert [r.error for r in outcome.results] == ["Unknown tool 'drop_database'.", "Unknown tool 'delete_task'."]
