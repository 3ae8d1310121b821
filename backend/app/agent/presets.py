"""Provider defaults plus model-specific workarounds, selected by model name and overridable.

Provider translations (what `required` or a forced function is called on the wire) live here,
never in the loop. `strategy="baseline"` keeps provider defaults only, to measure what the
workarounds are worth (see `taskchat eval`).
"""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from backend.app.agent.loop_types import ToolChoice

RESERVED_REQUEST_KEYS = frozenset({"model", "messages", "tools", "tool_choice", "response_format"})


@dataclass(frozen=True, slots=True)
class Preset:
    name: str
    provider: str
    workarounds: tuple[str, ...] = ()
    request_overrides: Mapping[str, Any] = field(default_factory=dict)
    required_choice: ToolChoice = "required"
    supports_forced_function: bool = True
    content_tag_fallback: bool = False
    # Some routes reject `content: null` on assistant tool-call turns.
    assistant_tool_call_content: Literal["null", "empty_string"] = "null"
    # Some routes need the tool's name repeated on each tool-result message.
    tool_message_name: bool = False
    tool_use_mode: Literal["enforced", "relaxed", "disabled"] = "relaxed"
    # Policies this model is known to mishandle, mapped to the one used instead (recorded per turn).
    policy_downgrades: Mapping[str, str] = field(default_factory=dict)
    max_tool_calls_per_step: int | None = None
    # Cap `maxLength`/`maxItems` in the schemas sent: servers that compile the schema into a sampling
    # grammar (llama.cpp) refuse large repetition counts. Validation still enforces the real limits.
    schema_max_repeat: int | None = None
    price_in_per_mtok: float = 0.0
    price_out_per_mtok: float = 0.0

    def forced_choice(self, tool_name: str) -> ToolChoice:
        if self.supports_forced_function:
            return {"type": "function", "function": {"name": tool_name}}
        return self.required_choice

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "provider": self.provider,
            "workarounds": list(self.workarounds),
            "request_overrides": dict(self.request_overrides),
            "required_choice": self.required_choice,
            "content_tag_fallback": self.content_tag_fallback,
            "tool_use_mode": self.tool_use_mode,
            "policy_downgrades": dict(self.policy_downgrades),
            "assistant_tool_call_content": self.assistant_tool_call_content,
            "schema_max_repeat": self.schema_max_repeat,
        }

    def tool_schema(self, parameters: dict[str, Any]) -> dict[str, Any]:
        """The tool's JSON schema as this provider should receive it."""
        if self.schema_max_repeat is None:
            return parameters
        capped: dict[str, Any] = _cap_repeats(parameters, self.schema_max_repeat)
        return capped


# The largest `maxLength`/`maxItems` sent to a local engine: llama.cpp's grammar compiler crashes
# its server on 4000 ("number of rules exceeds sane defaults"); 200 runs (measured by `taskchat eval`).
SAFE_SCHEMA_REPEAT = 200
LOCAL_PROVIDERS = frozenset({"llamacpp", "vllm", "ollama", "lmstudio", "local"})

PROVIDER_DEFAULTS: dict[str, Preset] = {
    "openrouter": Preset(name="openrouter", provider="openrouter"),
    "openai": Preset(name="openai", provider="openai"),
    # llama.cpp's server (e.g. the local SmolLM2 eval model): forced functions work through its
    # grammar, `required` does not, and small models often write calls as text. Its request model
    # refuses `content: null` on assistant tool-call turns (500), and its grammar compiler crashes
    # the server on `maxLength: 4000` ("exceeds sane defaults"): both found by `taskchat eval`.
    "llamacpp": Preset(
        name="llamacpp",
        provider="llamacpp",
        required_choice="auto",
        assistant_tool_call_content="empty_string",
        schema_max_repeat=SAFE_SCHEMA_REPEAT,
    ),
    # vLLM: named functions and `required` through guided decoding, whose grammar grows with
    # each repetition count like llama.cpp's.
    "vllm": Preset(name="vllm", provider="vllm", schema_max_repeat=SAFE_SCHEMA_REPEAT),
    # Ollama's OpenAI-compatible endpoint ignores `tool_choice`: nothing can be forced.
    "ollama": Preset(
        name="ollama",
        provider="ollama",
        required_choice="auto",
        supports_forced_function=False,
        schema_max_repeat=SAFE_SCHEMA_REPEAT,
    ),
    # LM Studio takes `required` but not a named function.
    "lmstudio": Preset(
        name="lmstudio", provider="lmstudio", supports_forced_function=False, schema_max_repeat=SAFE_SCHEMA_REPEAT
    ),
    "offline": Preset(name="offline", provider="offline"),
}
# A server detection could not name (agent/provider_kind.py): llama.cpp's settings, the strictest engine's,
# which every grammar-based engine accepts.
PROVIDER_DEFAULTS["local"] = dataclasses.replace(PROVIDER_DEFAULTS["llamacpp"], name="local", provider="local")

# (model glob, workaround name, changes). Order matters: later entries refine earlier ones.
MODEL_WORKAROUNDS: tuple[tuple[str, str, Mapping[str, Any]], ...] = (
    (
        "deepseek/*",
        "deepseek_openrouter_compat",
        {
            "assistant_tool_call_content": "empty_string",
            # DeepSeek's multi-turn tool use is unreliable under a forced choice every step.
            "policy_downgrades": {"required": "guarded", "two_phase": "guarded"},
            "price_in_per_mtok": 0.27,
            "price_out_per_mtok": 1.1,
        },
    ),
    (
        "google/gemini*",
        "gemini_openrouter_compat",
        {
            "tool_message_name": True,
            "price_in_per_mtok": 0.3,
            "price_out_per_mtok": 2.5,
        },
    ),
    ("qwen/*", "content_tag_tool_call_fallback", {"content_tag_fallback": True}),
    ("z-ai/glm*", "content_tag_tool_call_fallback", {"content_tag_fallback": True}),
    ("minimax/minimax-m2.1*", "content_tag_tool_call_fallback", {"content_tag_fallback": True}),
    ("minimax/minimax-m2-her*", "tool_use_disabled", {"tool_use_mode": "disabled"}),
    (
        "*smollm*",
        "content_tag_tool_call_fallback",
        {
            "content_tag_fallback": True,
            "policy_downgrades": {"required": "forced_intent"},
        },
    ),
    ("openai/gpt-4o-mini*", "price_table", {"price_in_per_mtok": 0.15, "price_out_per_mtok": 0.6}),
    ("openai/gpt-4o", "price_table", {"price_in_per_mtok": 2.5, "price_out_per_mtok": 10.0}),
    ("anthropic/claude*", "price_table", {"price_in_per_mtok": 3.0, "price_out_per_mtok": 15.0}),
)


def select_preset(
    *,
    provider: str,
    model: str,
    strategy: Literal["production", "baseline"] = "production",
    overrides: Mapping[str, Any] | None = None,
) -> Preset:
    preset = PROVIDER_DEFAULTS.get(provider, Preset(name=provider, provider=provider))
    if strategy == "production":
        applied: list[str] = []
        lowered = model.lower()
        for pattern, name, changes in MODEL_WORKAROUNDS:
            if fnmatch.fnmatch(lowered, pattern):
                preset = dataclasses.replace(preset, **changes)
                if name != "price_table":
                    applied.append(name)
        if applied:
            preset = dataclasses.replace(
                preset, name=f"{preset.provider}+{'+'.join(applied)}", workarounds=tuple(applied)
            )
    if overrides:
        known = {f.name for f in dataclasses.fields(Preset)}
        preset = dataclasses.replace(preset, **{k: v for k, v in overrides.items() if k in known})
    return preset


def _cap_repeats(node: Any, cap: int) -> Any:
    if isinstance(node, dict):
        return {
            k: min(v, cap) if k in ("maxLength", "maxItems") and isinstance(v, int) else _cap_repeats(v, cap)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_cap_repeats(v, cap) for v in node]
    return node


def merge_request_overrides(body: dict[str, Any], overrides: Mapping[str, Any]) -> list[str]:
    """Merge overrides into the request body; reserved keys are never overridden. Returns ignored keys."""
    ignored = []
    for key, value in overrides.items():
        if key in RESERVED_REQUEST_KEYS:
            ignored.append(key)
            continue
        body[key] = value
    return ignored


def adapt(body: dict[str, Any], *, sent: Preset, to: Preset) -> dict[str, Any]:
    """A request built for `sent`'s provider, as `to`'s provider should receive it (a fallback model
    of another provider, agent/fallback.py): the forced or required tool choice, an assistant
    tool-call turn's empty content, the tool name on tool results, the request overrides and the
    schemas' repetition caps are each provider's own. `body` is not changed."""
    if sent == to:
        return body
    out = dict(body)
    choice = body.get("tool_choice")
    if (isinstance(choice, dict) and not to.supports_forced_function) or (
        choice is not None and choice == sent.required_choice and choice != "auto"
    ):
        out["tool_choice"] = to.required_choice
    names = {c["id"]: c["function"]["name"] for m in body.get("messages", ()) for c in m.get("tool_calls") or ()}
    out["messages"] = [_adapt_message(m, names, to) for m in body.get("messages", ())]
    if "tools" in body:
        out["tools"] = [
            {**t, "function": {**t["function"], "parameters": to.tool_schema(t["function"].get("parameters", {}))}}
            for t in body["tools"]
        ]
    for key, value in sent.request_overrides.items():
        if out.get(key) == value:
            out.pop(key)
    merge_request_overrides(out, to.request_overrides)
    return out


def _adapt_message(message: dict[str, Any], names: Mapping[str, str], to: Preset) -> dict[str, Any]:
    if message.get("role") == "assistant" and message.get("tool_calls") and not message.get("content"):
        return {**message, "content": "" if to.assistant_tool_call_content == "empty_string" else None}
    if message.get("role") == "tool":
        named = {k: v for k, v in message.items() if k != "name"}
        if to.tool_message_name and message.get("tool_call_id") in names:
            named["name"] = names[message["tool_call_id"]]
        return named
    return message
