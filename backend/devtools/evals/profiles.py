"""Named sampling profiles: request overrides merged into every chat-completions body of a trial.

`top_k` and `min_p` are not OpenAI parameters: OpenRouter and llama.cpp accept them, OpenAI's own
API may reject them, so only the profiles that say so carry them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True, slots=True)
class SamplingProfile:
    name: str
    overrides: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""

    def describe(self) -> str:
        if not self.overrides:
            return "no overrides"
        return " ".join(f"{k}={v}" for k, v in self.overrides.items())


def _profile(name: str, note: str, **overrides: Any) -> SamplingProfile:
    return SamplingProfile(name=name, overrides=MappingProxyType(overrides), note=note)


PROFILES: dict[str, SamplingProfile] = {
    p.name: p
    for p in (
        _profile("default", "the server's own sampling defaults"),
        _profile("deterministic", "greedy decoding", temperature=0.0),
        _profile("tool_calling", "low temperature, nucleus 0.9 (SmolLM2's model card)", temperature=0.2, top_p=0.9),
        _profile("creative", "high temperature: how much does variance cost?", temperature=1.2, top_p=0.95),
        _profile("min_p", "llama.cpp/OpenRouter only: top_k and min_p", temperature=0.7, top_k=40, min_p=0.1),
    )
}
