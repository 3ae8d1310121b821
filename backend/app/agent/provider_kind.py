"""Which kind of server `LLM_BASE_URL` is, when `LLM_PROVIDER=auto` (the default) does not say.

The answer picks the preset (`agent/presets.py`): how a forced tool is asked for, what the schemas
may hold. Evidence, strongest first, and the first that answers wins:

1. the host: `openrouter.ai` and `api.openai.com` are what they say;
2. the server's own `GET {base}/models` answer: each local server names itself in `owned_by`
   (llama.cpp "llamacpp", llama-cpp-python "me", vLLM "vllm", Ollama "library" or "ollama", LM Studio
   "organization_owner");
3. the port the local servers listen on out of the box (llama.cpp 8080, vLLM 8000, Ollama 11434,
   LM Studio 1234);
4. otherwise `local`: a server we cannot name gets the settings that are safe for every
   grammar-based engine (bounded schemas, `auto` where `required` may be refused).

One request at startup, at most `timeout_s`; a server that does not answer is judged by 3 and 4.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

HOSTS = {"openrouter.ai": "openrouter", "api.openai.com": "openai"}
OWNED_BY = {
    "llamacpp": "llamacpp",
    "me": "llamacpp",  # llama-cpp-python's server (the eval's SmolLM2)
    "vllm": "vllm",
    "library": "ollama",
    "ollama": "ollama",
    "organization_owner": "lmstudio",
}
PORTS = {8080: "llamacpp", 8000: "vllm", 11434: "ollama", 1234: "lmstudio"}
UNKNOWN = "local"


@dataclass(frozen=True, slots=True)
class Detected:
    provider: str
    evidence: str  # "host" | "models endpoint" | "port" | "none": what decided it, for the log


def from_host(base_url: str) -> str | None:
    host = (urlsplit(base_url).hostname or "").lower()
    return next((kind for known, kind in HOSTS.items() if host == known or host.endswith("." + known)), None)


def from_models(answer: Any) -> str | None:
    """The server kind an OpenAI-style model list names (`data[].owned_by`), if it names one."""
    models = answer.get("data") if isinstance(answer, dict) else None
    for model in models if isinstance(models, list) else []:
        owner = model.get("owned_by") if isinstance(model, dict) else None
        if isinstance(owner, str) and owner.lower() in OWNED_BY:
            return OWNED_BY[owner.lower()]
    return None


def from_port(base_url: str) -> str | None:
    try:
        port = urlsplit(base_url).port
    except ValueError:
        return None
    return PORTS.get(port) if port is not None else None


async def detect(http: httpx.AsyncClient, base_url: str, *, api_key: str | None, timeout_s: float = 3.0) -> Detected:
    """The provider for `base_url`; see the module docstring for the order of the evidence."""
    if (kind := from_host(base_url)) is not None:
        return Detected(kind, "host")
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        response = await http.get(f"{base_url.rstrip('/')}/models", headers=headers, timeout=timeout_s)
        named = from_models(response.json()) if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        named = None
    if named is not None:
        return Detected(named, "models endpoint")
    if (kind := from_port(base_url)) is not None:
        return Detected(kind, "port")
    return Detected(UNKNOWN, "none")
