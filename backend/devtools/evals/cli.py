"""`taskchat eval`: run the live eval and write a timestamped report folder.

Exit codes: 0 the run completed (failed trials included), 2 bad arguments, 1 nothing could run
(no model server, the local model missing, or every trial failed before reaching the model).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import platform
import shlex
import signal
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, get_args
from urllib.parse import urlsplit

import httpx
from tqdm import tqdm

from backend.app.agent.offline import MODEL_NAME as OFFLINE_MODEL
from backend.app.agent.presets import PROVIDER_DEFAULTS, Preset
from backend.app.agent.provider_kind import Detected, detect
from backend.app.core.config import Settings, ToolPolicyName
from backend.devtools.evals import local_model, report
from backend.devtools.evals.families import ALL_SCENARIOS, FAMILIES
from backend.devtools.evals.harness import STRATEGIES, EvalConfig, Strategy, TrialResult, run_eval
from backend.devtools.evals.profiles import PROFILES

PROVIDERS = tuple(PROVIDER_DEFAULTS)
# Failures that mean the trial never got a model answer at all.
_INFRASTRUCTURE = ("LLM_ERROR:LLM_UNAVAILABLE", "SERVER_CRASHED", "ERROR:")


class UsageError(Exception):
    pass


def register(sub: Any) -> None:
    ev = sub.add_parser(
        "eval",
        help="live eval: scenario x model x sampling profile x strategy x trials; writes reports/eval/<UTC time>/",
        description="Without --base-url it runs against the offline model; see docs/eval.md.",
    )
    target = ev.add_argument_group("model")
    target.add_argument("--base-url", help="an OpenAI-compatible server, e.g. https://openrouter.ai/api/v1")
    target.add_argument("--api-key", default=None, help="bearer key for --base-url (default: none)")
    target.add_argument("--model", default=None, help="comma-separated model names (required with --base-url)")
    target.add_argument("--provider", choices=PROVIDERS, help="preset family (default: from the URL)")
    target.add_argument("--local-smollm2", action="store_true", help="start SmolLM2-135M on llama.cpp and use it")
    target.add_argument("--llm-venv", type=Path, default=local_model.DEFAULT_VENV, help="venv of the local server")
    target.add_argument("--setup-local", action="store_true", help="create --llm-venv first if missing (slow)")
    target.add_argument("--port", type=int, default=local_model.DEFAULT_PORT, help="local server port (loopback)")
    target.add_argument(
        "--preset-override",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="set a Preset field for both strategies, e.g. assistant_tool_call_content=empty_string",
    )
    grid = ev.add_argument_group("grid")
    grid.add_argument(
        "--scenarios",
        default="all",
        help=f"comma list of scenarios or families ({', '.join(FAMILIES)}), or all",
    )
    grid.add_argument("--profiles", default="default", help=f"comma list or all: {', '.join(PROFILES)}")
    grid.add_argument("--strategies", default="production", help="comma list: production, baseline")
    grid.add_argument(
        "--policies", default="guarded", help=f"comma list of TOOL_POLICY values: {', '.join(get_args(ToolPolicyName))}"
    )
    grid.add_argument("--strategy-matrix", action="store_true", help="run both strategies")
    grid.add_argument("--trials", type=int, default=3, help="trials per cell (default 3)")
    run = ev.add_argument_group("run")
    run.add_argument("--timeout", type=float, default=60.0, help="read timeout per LLM request, s (default 60)")
    run.add_argument("--max-tokens", type=int, default=None, help="max_tokens per request (default 512; local 256)")
    run.add_argument("--retries", type=int, default=1, help="client retries per request (default 1)")
    run.add_argument("--concurrency", type=int, default=1, help="trials in flight (default 1)")
    run.add_argument("--out", type=Path, default=None, help="report folder (default reports/eval/<UTC time>/)")
    run.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    run.add_argument("--verbose", action="store_true", help="show the app's warnings (guard retries, ...)")
    ev.set_defaults(func=_cmd_eval)


def _names(text: str, known: dict[str, Any] | tuple[str, ...], what: str) -> list[str]:
    names = list(known) if text.strip() == "all" else [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise UsageError(f"unknown {what}: {', '.join(unknown) or '(none given)'}; known: {', '.join(known)}")
    return list(dict.fromkeys(names))


def _scenario_names(text: str) -> list[str]:
    """Scenario names, a family name standing for all of its scenarios."""
    expanded = ",".join(",".join(FAMILIES[n.strip()]) if n.strip() in FAMILIES else n for n in text.split(","))
    return _names(expanded, ALL_SCENARIOS, "scenario")


def build_config(args: argparse.Namespace) -> EvalConfig:
    """Validate the arguments into an EvalConfig (UsageError -> exit 2). The local URL is filled in later."""
    if args.trials < 1 or args.timeout <= 0 or args.retries < 0 or args.concurrency < 1:
        raise UsageError("--trials and --concurrency must be >= 1, --timeout > 0, --retries >= 0")
    if args.max_tokens is not None and args.max_tokens < 1:
        raise UsageError("--max-tokens must be >= 1")
    if args.local_smollm2 and args.base_url:
        raise UsageError("--local-smollm2 starts its own server: leave out --base-url")
    strategies: list[str] = (
        list(STRATEGIES) if args.strategy_matrix else _names(args.strategies, STRATEGIES, "strategy")
    )
    if args.local_smollm2:
        # No --provider: named from the started server, as the app names LLM_BASE_URL (agent/provider_kind.py).
        provider, models, base_url = args.provider or "auto", args.model or local_model.MODEL_ALIAS, "pending"
    elif args.base_url:
        if not urlsplit(args.base_url).scheme.startswith("http"):
            raise UsageError("--base-url must be an http(s) URL")
        if not args.model:
            raise UsageError("--model is required with --base-url")
        provider = args.provider or ("openrouter" if "openrouter.ai" in args.base_url else "openai")
        models, base_url = args.model, args.base_url
    else:
        if args.provider not in (None, "offline"):
            raise UsageError(f"--provider {args.provider} needs --base-url (or --local-smollm2)")
        provider, models, base_url = "offline", args.model or OFFLINE_MODEL, None
    if provider == "offline" and base_url is not None:
        raise UsageError("--provider offline is the built-in model: leave out --base-url")
    return EvalConfig(
        preset_overrides=_preset_overrides(args.preset_override),
        scenarios=tuple(ALL_SCENARIOS[n] for n in _scenario_names(args.scenarios)),
        models=tuple(dict.fromkeys(m.strip() for m in models.split(",") if m.strip())),
        profiles=tuple(PROFILES[n] for n in _names(args.profiles, PROFILES, "sampling profile")),
        strategies=tuple(s for s in get_args(Strategy) if s in strategies),
        policies=tuple(_names(args.policies, get_args(ToolPolicyName), "tool policy")),  # type: ignore[arg-type]
        trials=args.trials,
        provider=provider,
        base_url=base_url,
        api_key=args.api_key,
        timeout_s=args.timeout,
        max_tokens=args.max_tokens or (256 if args.local_smollm2 else 512),
        retries=args.retries,
        concurrency=args.concurrency,
    )


def _preset_overrides(items: list[str]) -> dict[str, Any]:
    fields = {f.name for f in dataclasses.fields(Preset)} - {"name", "provider", "request_overrides"}
    found: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or key not in fields:
            raise UsageError(f"--preset-override wants FIELD=VALUE with FIELD one of: {', '.join(sorted(fields))}")
        try:
            found[key] = json.loads(raw)
        except json.JSONDecodeError:
            found[key] = raw  # a bare word is a string: FIELD=empty_string
    return found


def _cmd_eval(args: argparse.Namespace) -> int:
    try:
        config = build_config(args)
    except UsageError as exc:
        print(f"taskchat eval: error: {exc}", file=sys.stderr)
        return 2
    app_log = logging.getLogger("backend")
    level = app_log.level
    if not args.verbose:
        # Guard retries are the point of some scenarios: as log lines they would only shred the bar.
        app_log.setLevel(logging.ERROR)
    out: Path = args.out or Path("reports/eval") / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    server: local_model.LocalServer | None = None
    extra: dict[str, Any] = {}
    try:
        if args.local_smollm2:
            # A plain `kill` must still stop the llama.cpp server we started: make SIGTERM unwind
            # through the `finally` below like Ctrl-C does.
            signal.signal(signal.SIGTERM, _interrupt)
            if args.setup_local and not local_model.venv_python(args.llm_venv).exists():
                local_model.install(args.llm_venv)
            server = local_model.LocalServer(venv=args.llm_venv, port=args.port, log_path=out / "llama-server.log")
            server.start()
            config = dataclasses.replace(config, base_url=server.base_url)
            extra = {"server": local_model.server_version(args.llm_venv), "gguf": server.gguf.name}
            if config.provider == "auto":
                found = asyncio.run(_detect(server.base_url))
                config = dataclasses.replace(config, provider=found.provider)
                extra["provider_detected"] = f"{found.provider} (by {found.evidence})"
        return _run(config, args=args, out=out, server=server, extra=extra)
    except local_model.LocalModelError as exc:
        print(f"taskchat eval: {exc}", file=sys.stderr)
        return 1
    finally:
        app_log.setLevel(level)
        if args.local_smollm2:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if server is not None:
            server.stop()


async def _detect(base_url: str) -> Detected:
    async with httpx.AsyncClient() as http:
        return await detect(http, base_url, api_key=None)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _run(
    config: EvalConfig,
    *,
    args: argparse.Namespace,
    out: Path,
    server: local_model.LocalServer | None,
    extra: dict[str, Any],
) -> int:
    started_at = datetime.now(UTC)
    started = time.monotonic()
    bar = tqdm(
        total=config.total, desc="eval", unit="trial", file=sys.stderr, disable=args.no_progress, mininterval=0.5
    )
    passed = 0

    async def on_trial(result: TrialResult) -> None:
        nonlocal passed
        if server is not None and not server.alive:
            # llama-cpp-python's server dies on some requests (a grammar too large for a forced
            # call): name that cause, and bring the server back for the next trial.
            if not result.ok:
                result.reasons.insert(0, "SERVER_CRASHED")
                result.reason = "SERVER_CRASHED"
            await asyncio.to_thread(server.restart, reason="crashed")
        elif server is not None and result.reason == "TIMEOUT":
            await asyncio.to_thread(server.restart, reason="timeout")
        passed += result.ok
        bar.update(1)
        bar.set_postfix_str(f"ok {passed}/{bar.n} last {result.scenario}:{result.reason or 'ok'}", refresh=False)

    try:
        trials = asyncio.run(run_eval(config, on_trial=on_trial))
    finally:
        bar.close()
    meta = _meta(config, started_at=started_at, elapsed=time.monotonic() - started, local=server is not None)
    meta.update(extra)
    if server is not None:
        meta["server_restarts"] = server.restarts
    written = report.write(out, trials, meta)
    print(f"wrote {out}/: {', '.join(written)}")
    print(f"ok {sum(t.ok for t in trials)}/{len(trials)} trials; table: {written['summary.md']}")
    if trials and all(t.reason and t.reason.startswith(_INFRASTRUCTURE) for t in trials):
        print("taskchat eval: no trial reached the model (see trials.jsonl: error_detail)", file=sys.stderr)
        return 1
    return 0


def _command() -> str:
    argv = sys.argv[1:]
    if argv[:1] != ["eval"]:
        return "taskchat eval (in-process)"
    shown = ["***" if i > 0 and argv[i - 1] == "--api-key" else a for i, a in enumerate(argv)]
    shown = [a.split("=", 1)[0] + "=***" if a.startswith("--api-key=") else a for a in shown]
    return "taskchat " + shlex.join(shown)


def _meta(config: EvalConfig, *, started_at: datetime, elapsed: float, local: bool) -> dict[str, Any]:
    settings = Settings(environment="test")
    if local:
        target = "SmolLM2-135M-Instruct Q4_1 on llama.cpp (local)"
    elif config.base_url is None:
        target = "offline model"
    else:
        target = urlsplit(config.base_url).netloc  # never the key, never a path with secrets in it
    return {
        "target": target,
        "command": _command(),
        "started": started_at.strftime("%Y-%m-%d %H:%M UTC"),
        "elapsed_s": round(elapsed, 1),
        "provider": config.provider,
        "base_url": config.base_url and f"{urlsplit(config.base_url).scheme}://{urlsplit(config.base_url).netloc}",
        "models": list(config.models),
        "profiles": {p.name: p.describe() for p in config.profiles},
        "strategies": list(config.strategies),
        "scenarios": [s.name for s in config.scenarios],
        "trials": config.trials,
        "preset_overrides": dict(config.preset_overrides),
        "timeout_s": config.timeout_s,
        "max_tokens": config.max_tokens,
        "policies": list(config.policies),
        "settings": f"TOOL_POLICY={','.join(config.policies)} RESPONSE_MODE={settings.response_mode} "
        f"APPLY_MODE={settings.apply_mode} (per-scenario overrides in docs/eval.md)",
        "python": platform.python_version(),
    }
