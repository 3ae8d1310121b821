"""`taskchat eval`: argument errors exit 2, an unreachable server exits 1, a small offline run exits 0."""

from __future__ import annotations

import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import orjson
import pytest
from support.fake_llm import completion

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


class _BoastingModel(BaseHTTPRequestHandler):
    """A loopback chat-completions server that claims every change without calling a tool."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = orjson.dumps(completion("Done! I deleted it."))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_completed_run_with_failed_trials_exits_0_and_leaves_logging_alone(tmp_path: Path) -> None:
    level = logging.getLogger("backend").level
    server = ThreadingHTTPServer(("127.0.0.1", 0), _BoastingModel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        argv = ["--base-url", base_url, "--model", "boaster", "--scenarios", "happy_path", "--trials", "2"]
        assert main(["eval", *argv, "--strategy-matrix", "--no-progress", "--out", str(tmp_path / "r")]) == 0
    finally:
        server.shutdown()
    summary = orjson.loads((tmp_path / "r" / "summary.json").read_bytes())
    # Every trial fails (the guard refuses the claimed delete), yet the run completed: exit 0.
    assert (summary["overall"]["runs"], summary["overall"]["ok"]) == (4, 0)
    assert summary["overall"]["failures"] == {"TOOL_NOT_TRIGGERED": 4}
    assert summary["meta"]["strategies"] == ["production", "baseline"]
    assert summary["meta"]["provider"] == "openai"
    assert logging.getLogger("backend").level == level
