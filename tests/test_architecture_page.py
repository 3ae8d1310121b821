"""The architecture page names modules that exist: every path it gives (`services/turn/store.py`,
`language/data/*.toml`, `tests/test_layering.py`) is a file of the app or the repository, and the
walk of one turn names every room of services/."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "backend" / "app"
PAGE = ROOT / "docs" / "architecture.md"
# A path with at least one folder, ending in a file name: "api/routes/chat.py", "data/*.toml".
_PATH = re.compile(r"(?<![\w./-])((?:[\w*<>-]+/)+[\w*<>-]+\.(?:py|toml|po|md))\b")


def named_paths(text: str) -> list[str]:
    return sorted(set(_PATH.findall(text)))


def missing(paths: list[str]) -> list[str]:
    """The paths that name no file, tried from the app's package and from the repository's root
    (`<code>` in a path stands for any one name, like `*`; the box names language/'s files from it)."""
    gone = []
    for path in paths:
        pattern = re.sub(r"<\w+>", "*", path)
        if not any(list(base.glob(pattern)) for base in (APP, APP / "language", ROOT, ROOT / "docs")):
            gone.append(path)
    return gone


def test_every_path_the_page_names_exists() -> None:
    paths = named_paths(PAGE.read_text(encoding="utf-8"))
    assert len(paths) > 40  # the page is read, not skipped
    assert missing(paths) == []


def test_the_walk_names_each_module_of_every_room() -> None:
    walk = PAGE.read_text(encoding="utf-8").split("## A newcomer's walk", 1)[1].split("\n## ", 1)[0]
    modules = {str(p.relative_to(APP)) for p in (APP / "services").rglob("*.py") if p.name != "__init__.py"}
    assert sorted(m for m in modules if m not in walk) == []


def test_the_checker_sees_a_module_that_is_gone() -> None:
    text = "the turn (services/turn/pipeline.py) and `services/chat.py`, the words: language/data/<code>.toml"
    assert named_paths(text) == ["language/data/<code>.toml", "services/chat.py", "services/turn/pipeline.py"]
    assert missing(named_paths(text)) == ["services/chat.py"]
