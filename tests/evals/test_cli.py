"""`taskchat eval`: argument errors exit 2, an unreachable server exits 1, a small offline run exits 0."""

from __future__ import annotations

import logging
from pathlib import Path

import orjson
import pytest

from backend.app.cli import main


@pytest.mark.parametrize(
    "argv",
    [
        ["--scenarios", "happy_path,nope"],
        ["--profiles", "spicy"],
        ["--strategies", "clever"],
        ["--trials", "0"],
        ["--timeout", "0"],
        ["--base-url", "http://127.0.0.1:9/v1"],  # no --model
        ["--base-url", "ftp://example.test/v1", "--model", "m"],
        ["--provider", "openai"],  # a provider needs a server
        ["--local-smollm2", "--base-url", "http://127.0.0.1:9/v1"],
        ["--preset-override", "no_such_field=1"],
        ["--preset-override", "missing-equals"],
    ],
)
def test_bad_arguments_exit_2(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", *argv, "--out", str(tmp_path)]) == 2
    assert "taskchat eval: error:" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing ran, nothing written


def test_unknown_flag_is_argparse_exit_2() -> None:
    with pytest.raises(SystemExit) as exc:
        main(["eval", "--no-such-flag"])
    assert exc.value.code == 2


def test_unreachable_server_exits_1(tmp_path: Path) -> None:
    # Port 9 (discard) on loopback refuses the connection at once: no trial reaches a model.
    argv = ["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--scenarios", "chat_only", "--trials", "1"]
    assert main(["eval", *argv, "--retries", "0", "--no-progress", "--out", str(tmp_path)]) == 1
    trial = orjson.loads((tmp_path / "trials.jsonl").read_bytes())
    assert trial["reason"] == "LLM_ERROR:LLM_UNAVAILABLE"


def test_offline_run_exits_0_with_failed_trials_and_leaves_logging_alone(tmp_path: Path) -> None:
    level = logging.getLogger("backend").level
    argv = ["--scenarios", "happy_path,long_arguments_guard", "--trials", "2", "--strategy-matrix"]
    assert main(["eval", *argv, "--no-progress", "--out", str(tmp_path / "r")]) == 0
    summary = orjson.loads((tmp_path / "r" / "summary.json").read_bytes())
    assert (summary["overall"]["runs"], summary["overall"]["ok"]) == (8, 4)
    assert summary["meta"]["strategies"] == ["production", "baseline"]
    assert summary["meta"]["provider"] == "offline"
    assert logging.getLogger("backend").level == level
