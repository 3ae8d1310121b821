"""select_preset: provider defaults, model workarounds by name, baseline, overrides; request overrides."""

from __future__ import annotations

from typing import Any

import pytest

from backend.app.agent.presets import (
    PROVIDER_DEFAULTS,
    RESERVED_REQUEST_KEYS,
    Preset,
    merge_request_overrides,
    select_preset,
)


def test_deepseek_workarounds() -> None:
    preset = select_preset(provider="openrouter", model="deepseek/deepseek-v3.2:nitro")

    assert preset.workarounds == ("deepseek_openrouter_compat",)
    assert preset.name == "openrouter+deepseek_openrouter_compat"
    assert preset.assistant_tool_call_content == "empty_string"
    assert dict(preset.policy_downgrades) == {"required": "guarded", "two_phase": "guarded"}
    assert (preset.price_in_per_mtok, preset.price_out_per_mtok) == (0.27, 1.1)
    assert preset.provider == "openrouter"


def test_gemini_workarounds() -> None:
    preset = select_preset(provider="openrouter", model="google/gemini-2.5-flash:nitro")

    assert preset.workarounds == ("gemini_openrouter_compat",)
    assert preset.tool_message_name is True
    assert preset.assistant_tool_call_content == "null"
    assert dict(preset.policy_downgrades) == {}


@pytest.mark.parametrize("model", ["qwen/qwen3-235b-a22b-2507:nitro", "z-ai/glm-4.7:nitro", "minimax/minimax-m2.1"])
def test_content_tag_fallback_models(model: str) -> None:
    preset = select_preset(provider="openrouter", model=model)

    assert preset.workarounds == ("content_tag_tool_call_fallback",)
    assert preset.content_tag_fallback is True


def test_model_names_match_case_insensitively() -> None:
    assert select_preset(provider="openrouter", model="DeepSeek/DeepSeek-Chat").workarounds == (
        "deepseek_openrouter_compat",
    )


def test_tool_use_disabled_model() -> None:
    preset = select_preset(provider="openrouter", model="minimax/minimax-m2-her")

    assert preset.tool_use_mode == "disabled" and preset.workarounds == ("tool_use_disabled",)


def test_smollm_on_llamacpp_combines_provider_and_model() -> None:
    preset = select_preset(provider="llamacpp", model="SmolLM2-1.7B-Instruct")

    assert preset.required_choice == "auto"  # from the provider
    assert preset.content_tag_fallback is True  # from the model
    assert dict(preset.policy_downgrades) == {"required": "forced_intent"}
    assert preset.name == "llamacpp+content_tag_tool_call_fallback"


def test_price_table_is_not_a_workaround() -> None:
    preset = select_preset(provider="openrouter", model="openai/gpt-4o-mini")

    assert preset.workarounds == () and preset.name == "openrouter"
    assert (preset.price_in_per_mtok, preset.price_out_per_mtok) == (0.15, 0.6)


def test_unknown_model_keeps_provider_defaults() -> None:
    assert select_preset(provider="openrouter", model="acme/model-1") == PROVIDER_DEFAULTS["openrouter"]


def test_unknown_provider_gets_a_plain_preset() -> None:
    preset = select_preset(provider="acme", model="acme/model-1")

    assert (preset.name, preset.provider, preset.required_choice, preset.workarounds) == (
        "acme",
        "acme",
        "required",
        (),
    )


@pytest.mark.parametrize(
    "model", ["deepseek/deepseek-v3.2", "google/gemini-2.5-flash", "qwen/qwen3-30b", "minimax/minimax-m2-her"]
)
def test_baseline_applies_no_workaround(model: str) -> None:
    preset = select_preset(provider="openrouter", model=model, strategy="baseline")

    assert preset == PROVIDER_DEFAULTS["openrouter"]
    assert preset.workarounds == () and dict(preset.policy_downgrades) == {}
    assert not preset.content_tag_fallback and preset.tool_use_mode == "relaxed"


def test_overrides_replace_fields_and_ignore_unknown_keys() -> None:
    preset = select_preset(
        provider="openrouter",
        model="deepseek/deepseek-v3.2",
        overrides={"assistant_tool_call_content": "null", "max_tool_calls_per_step": 1, "not_a_field": 3},
    )

    assert preset.assistant_tool_call_content == "null"
    assert preset.max_tool_calls_per_step == 1
    assert preset.workarounds == ("deepseek_openrouter_compat",)  # the rest of the workaround stays
    assert not hasattr(preset, "not_a_field")


def test_overrides_apply_to_baseline_too() -> None:
    preset = select_preset(
        provider="openrouter", model="qwen/qwen3", strategy="baseline", overrides={"content_tag_fallback": True}
    )

    assert preset.content_tag_fallback is True and preset.workarounds == ()


def test_provider_defaults_are_not_mutated_by_selection() -> None:
    select_preset(provider="openrouter", model="deepseek/deepseek-v3.2", overrides={"required_choice": "any"})

    assert PROVIDER_DEFAULTS["openrouter"] == Preset(name="openrouter", provider="openrouter")


def test_forced_choice_translation() -> None:
    assert Preset("a", "x").forced_choice("add_task") == {"type": "function", "function": {"name": "add_task"}}
    assert Preset("b", "x", required_choice="any", supports_forced_function=False).forced_choice("add_task") == "any"


def test_describe_is_plain_data() -> None:
    described = select_preset(provider="openrouter", model="deepseek/deepseek-v3.2").describe()

    assert described["workarounds"] == ["deepseek_openrouter_compat"]
    assert described["policy_downgrades"] == {"required": "guarded", "two_phase": "guarded"}
    assert described["request_overrides"] == {}


def test_merge_request_overrides_skips_reserved_keys() -> None:
    body = {"model": "m", "messages": [], "tool_choice": "auto"}
    overrides = dict.fromkeys(RESERVED_REQUEST_KEYS, "x") | {"temperature": 0.3, "parallel_tool_calls": False}

    ignored = merge_request_overrides(body, overrides)

    assert sorted(ignored) == sorted(RESERVED_REQUEST_KEYS)
    assert body == {
        "model": "m",
        "messages": [],
        "tool_choice": "auto",
        "temperature": 0.3,
        "parallel_tool_calls": False,
    }
    assert {"model", "messages", "tools", "tool_choice", "response_format"} == RESERVED_REQUEST_KEYS


def test_llamacpp_preset_carries_the_server_workarounds_the_eval_found() -> None:
    preset = select_preset(provider="llamacpp", model="smollm2")

    assert preset.assistant_tool_call_content == "empty_string"
    assert preset.schema_max_repeat == 200
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "description": {"type": "string", "maxLength": 4000},
            "tags": {"type": "array", "maxItems": 20, "items": {"type": "string", "maxLength": 50}},
        },
    }
    capped = preset.tool_schema(schema)
    assert capped["properties"]["description"]["maxLength"] == 200
    assert capped["properties"]["tags"]["maxItems"] == 20
    assert capped["properties"]["tags"]["items"]["maxLength"] == 50
    assert schema["properties"]["description"]["maxLength"] == 4000  # the original is untouched
    assert select_preset(provider="openrouter", model="openai/gpt-4o-mini").tool_schema(schema) is schema
