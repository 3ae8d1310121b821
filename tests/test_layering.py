"""The layering holds: imports point one way (docs/architecture.md), so `agent/` knows nothing of
tasks or the database and the shared call types in `calls/` depend on nothing. Read from the
source's import statements, function-level ones included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[1] / "backend" / "app"

# What each package may import from the app, besides itself. main.py and cli.py put it together.
ALLOWED: dict[str, frozenset[str]] = {
    "calls": frozenset(),
    "core": frozenset(),
    "language": frozenset(),
    "schemas": frozenset({"core"}),
    "db": frozenset({"core", "language"}),
    "agent": frozenset({"calls", "core", "language"}),
    "tools": frozenset({"calls", "core", "db", "language"}),
    "services": frozenset({"agent", "calls", "core", "db", "language", "schemas", "tools"}),
    "mcp": frozenset({"calls", "core", "db", "tools"}),
    "api": frozenset({"calls", "core", "db", "schemas", "services", "tools"}),
}


def _imported(path: Path) -> set[str]:
    """The top-level app packages (or modules) a file imports."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[:2] == ["backend", "app"] and len(parts) > 2:
                found.add(parts[2])
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
