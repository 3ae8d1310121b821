"""The layering holds: imports point one way (docs/architecture.md), so `agent/` knows nothing of
tasks or the database and the shared call types in `calls/` depend on nothing. Read from the
source's import statements, function-level ones included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BACKEND = Path(__file__).resolve().parents[1] / "backend"
APP = BACKEND / "app"
# What CONTRIBUTING.md holds to its sizes: the app and its development tools (bench, eval).
SIZED = (APP, BACKEND / "devtools")

# What each package may import from the app, besides itself. main.py and cli.py put it together.
ALLOWED: dict[str, frozenset[str]] = {
    "calls": frozenset(),
    "core": frozenset({"calls"}),
    "language": frozenset({"calls"}),
    "schemas": frozenset({"core"}),
    "db": frozenset({"calls", "core", "language"}),
    "agent": frozenset({"calls", "core", "language"}),
    "tools": frozenset({"calls", "core", "db", "language"}),
    "services": frozenset({"agent", "calls", "core", "db", "language", "schemas", "tools"}),
    "mcp": frozenset({"calls", "core", "db", "tools"}),
    "api": frozenset({"calls", "core", "db", "schemas", "services", "tools"}),
}


# Within services/, what each room may import from the others: the guard decides and never reads the
# reply; the reply reads the guard's events; confirmations word their questions like the reply; a
# turn puts them together; the user's data outside a turn shares only the turn's idempotency.
ROOMS: dict[str, frozenset[str]] = {
    "guard": frozenset(),
    "reply": frozenset({"guard"}),
    "confirmations": frozenset({"guard", "reply"}),
    "turn": frozenset({"confirmations", "guard", "reply"}),
    "user_data": frozenset({"turn"}),
}


def _imported(path: Path, depth: int = 2) -> set[str]:
    """The top-level app packages (or modules) a file imports."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[:2] == ["backend", "app"] and len(parts) > 2:
                # depth 3: a room of services/ by its name, any other package by its own
                found.add(parts[3] if depth == 3 and parts[2] == "services" and len(parts) > 3 else parts[2])
            elif parts[:2] == ["backend", "devtools"]:
                found.add("devtools")
    return found


def test_every_package_has_a_rule() -> None:
    packages = {p.name for p in APP.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages == set(ALLOWED)


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_point_one_way(package: str) -> None:
    wrong = {
        str(path.relative_to(APP)): sorted(_imported(path) - ALLOWED[package] - {package})
        for path in sorted((APP / package).rglob("*.py"))
    }
    assert {file: names for file, names in wrong.items() if names} == {}


def test_the_checker_sees_a_function_level_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from backend.app.db.models import Task\n    import backend.devtools.bench\n")
    assert _imported(module) == {"db", "devtools"}


def test_every_room_has_a_rule() -> None:
    services = APP / "services"
    rooms = {p.name for p in services.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert rooms == set(ROOMS)
    assert [p.name for p in services.glob("*.py")] == ["__init__.py"]  # every module is in a room


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_rooms_import_one_way(room: str) -> None:
    wrong = {
        str(path.relative_to(APP)): sorted(_imported(path, depth=3) & set(ROOMS) - ROOMS[room] - {room})
        for path in sorted((APP / "services" / room).rglob("*.py"))
    }
    assert {file: names for file, names in wrong.items() if names} == {}


def test_no_two_modules_share_a_name_across_the_packages_that_make_a_turn() -> None:
    """A reader who meets `guard.py` should not have to ask which one (agent/ and services/ had one
    each). The routes and their schemas share the resource's name on purpose (`api/routes/chat.py`,
    `schemas/chat.py`), as the MCP package's entry points do theirs (`mcp/cli.py`, `mcp/session.py`)."""
    seen: dict[str, list[str]] = {}
    for package in ("agent", "calls", "language", "services", "tools"):
        for path in (APP / package).rglob("*.py"):
            if path.name != "__init__.py":
                seen.setdefault(path.stem, []).append(str(path.relative_to(APP)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def test_the_room_checker_sees_a_room(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from backend.app.services.reply.compose import compose\nfrom backend.app.db import models\n")
    assert _imported(module, depth=3) == {"reply", "db"}


def _sized_modules() -> list[Path]:
    return [p for root in SIZED for p in sorted(root.rglob("*.py"))]


def test_every_module_of_the_app_and_its_tools_reads_in_one_sitting() -> None:
    """At most 400 lines a module, in the app and in backend/devtools: one that grows past it is split
    by responsibility (CONTRIBUTING.md)."""
    long = {str(p.relative_to(BACKEND)): n for p in _sized_modules() if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}


def test_every_function_of_the_app_and_its_tools_fits_on_a_screen() -> None:
    """At most 60 lines a function, its docstring included, in the app and in backend/devtools: a
    longer one is split into named steps."""
    long = {
        f"{p.relative_to(BACKEND)}:{node.name}": node.end_lineno - node.lineno + 1
        for p in _sized_modules()
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > 60
    }
    assert long == {}


def test_what_crosses_the_edge_is_typed() -> None:
    """At most 10 `dict[str, Any]` in services/, schemas/ and api/ (issue 49): a body, a record or a
    call's arguments crosses as a model, a TypedDict, a JSON object or a dict of what it holds."""
    untyped = {
        f"{p.relative_to(APP)}:{number}"
        for room in ("services", "schemas", "api")
        for p in (APP / room).rglob("*.py")
        for number, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
        if "dict[str, Any]" in line
    }
    assert len(untyped) <= 10, sorted(untyped)
