"""App factory. The lifespan owns the database engine and ONE shared HTTP client for the model."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager, contextmanager

import httpx
from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.routing import Route

from backend.app.agent.fallback import Arm, FallbackClient
from backend.app.agent.llm import HttpLLMClient
from backend.app.agent.loop_types import ChatCompletionsClient
from backend.app.agent.offline import OfflineModel
from backend.app.agent.presets import Preset, adapt, select_preset
from backend.app.agent.provider_kind import detect
from backend.app.agent.wire import AiohttpWire, HttpxWire, Wire
from backend.app.api.errors import install_error_handlers
from backend.app.api.http_metrics import HttpMetrics
from backend.app.api.middleware import BodyLimit, OneIdentity, RequestId, StorableText
from backend.app.api.responses import FastJSONResponse
from backend.app.api.routes import chat, dev, health, metrics, tasks, undo, user_data, web
from backend.app.core.clock import Clock, SystemClock
from backend.app.core.config import FallbackModel, Settings, get_settings
from backend.app.core.logging import configure_logging
from backend.app.core.metrics import MeteredClient, Metrics
from backend.app.core.security import KeySet
from backend.app.db.session import create_engine, create_sessionmaker
from backend.app.language.reading.intent import classify as read_words
from backend.app.mcp.http import PATH as MCP_PATH
from backend.app.mcp.http import McpHttpEndpoint
from backend.app.services.turn.commands import offline_reading
from backend.app.services.turn.pipeline import ChatService
from backend.app.services.turn.routing import Price, Router, Tuning
from backend.app.services.user_data.maintenance import prune_periodically
from backend.app.services.user_data.writes import TaskWrites
from backend.app.tools.registry import TOOLS

log = logging.getLogger(__name__)

_CORS_REQUEST_HEADERS = [
    "Authorization",
    "Content-Type",
    "Idempotency-Key",
    "If-Match",
    "X-Request-ID",
    "Mcp-Session-Id",
    "Mcp-Protocol-Version",
    "Last-Event-ID",
]
_CORS_RESPONSE_HEADERS = [
    "X-Request-ID",
    "Retry-After",
    "Idempotency-Replayed",
    "Mcp-Session-Id",
    "ETag",
    "Location",
    "X-Next-Cursor",
]


def create_app(
    settings: Settings | None = None,
    *,
    llm_transport: httpx.AsyncBaseTransport | None = None,
    clock: Clock | None = None,
    configure_logs: bool = True,
    served_gc: bool = False,
) -> FastAPI:
    """Build the app. Tests pass `llm_transport` (an httpx.MockTransport) to script the model.
    `served_gc`: the collector as a served worker sets it (`create_served_app`)."""
    settings = settings or get_settings()
    if configure_logs:
        configure_logging(settings.log_level, json=settings.log_json)
    # Per app, not prometheus-client's global registry: tests build many apps in one process.
    app_metrics = Metrics(tool_names=TOOLS)
    mcp_endpoint = McpHttpEndpoint(settings=settings)

    lifespan = _lifespan(
        settings, llm_transport=llm_transport, clock=clock, metrics=app_metrics, mcp=mcp_endpoint, served_gc=served_gc
    )
    app = FastAPI(
        title="Taskchat",
        version="0.1.0",
        summary="A chat backend for a to-do app that never reports a success no tool produced.",
        lifespan=lifespan,
        default_response_class=FastJSONResponse,
        # FastAPI's own OpenTelemetry hooks look the global providers up on every request (about 6 µs);
        # Taskchat configures none: its metrics are Prometheus's (/metrics), its logs JSON lines.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.metrics = app_metrics
    app.state.keys = None  # the identity provider's keys (JWT_JWKS_URL), set when the lifespan starts
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(chat.router)
    app.include_router(tasks.router)
    app.include_router(undo.router)
    app.include_router(user_data.router)
    app.include_router(metrics.router)
    if settings.environment == "development":
        app.include_router(dev.router)
    app.router.routes.append(Route(MCP_PATH, mcp_endpoint, methods=["GET", "POST", "DELETE"], include_in_schema=False))
    web.install(app)

    app.add_middleware(RequestId)
    app.add_middleware(StorableText, skip=MCP_PATH)  # inside BodyLimit: reads a body already capped
    app.add_middleware(OneIdentity)
    app.add_middleware(
        BodyLimit,
        max_bytes=settings.max_body_bytes,
        wider={chat.CHAT_PATH: max(settings.max_chat_body_bytes, settings.chat_body_bytes)},
    )
    app.add_middleware(HttpMetrics, metrics=app_metrics)  # sees every status, 413s included
    if settings.cors_origins:
        # Outermost: a browser on another origin can read every answer, the middleware's own (413,
        # 400, 422) too, where it would otherwise see only a failed fetch.
        _allow_cors(app, settings.cors_origins)
    return app


def create_served_app() -> FastAPI:
    """The app as each worker of `taskchat serve` runs it: `create_app` whose lifespan, once started,
    sets the garbage collector as a long-running worker wants it (`collector_as_served`). Not in
    `create_app`, which tests build by the thousand in one process."""
    return create_app(served_gc=True)


# A served worker's youngest-generation threshold (Python's default is 700 container objects).
YOUNG_THRESHOLD = 5_000


@contextmanager
def collector_as_served() -> Iterator[None]:
    """The cyclic garbage collector of a worker that has started, until the block ends:

    - what the start-up built (the modules, the compiled word lists, the engine, the services: about
      200,000 objects living as long as the worker) is out of its way (`gc.freeze`, after one full
      collection). A full collection walked all of it every few hundred turns, for about 100 ms of
      CPU (0.15 ms a turn, 4.5% of a turn's CPU at c8 in process, and a pause inside a turn); now 2 ms;
    - the youngest generation is collected after `YOUNG_THRESHOLD` new objects instead of 700: a
      turn leaves about 150 behind until its end, so the young collection ran every five turns and
      walked objects still in use each time (0.12 ms a turn with the next generation's; 0.03 now).

    Put back as it was (`gc.unfreeze`, the thresholds) when the block ends."""
    before = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


async def _llm_client(
    settings: Settings,
    wire: Wire,
    llm_transport: httpx.AsyncBaseTransport | None,
    *,
    metrics: Metrics,
) -> tuple[ChatCompletionsClient, str, str]:
    """The model client, the model's name and the provider whose preset applies. With no key the
    offline model answers (unless a test scripted the transport); `LLM_PROVIDER=auto` asks the
    server what it is."""
    allow_offline = llm_transport is None
    if allow_offline and settings.uses_offline_model:
        log.info("llm_client", extra={"client": "offline", "note": "built-in rule-based model, not an LLM"})
        return OfflineModel(read=offline_reading), OfflineModel.model_name, "offline"

    def http_client(base_url: str, api_key: str | None) -> HttpLLMClient:
        return HttpLLMClient(
            wire=wire,
            base_url=base_url,
            api_key=api_key,
            connect_timeout_s=settings.llm_connect_timeout_s,
            read_timeout_s=settings.llm_read_timeout_s,
            max_retries=settings.llm_max_retries,
            stream=settings.llm_stream,
        )

    model, provider = settings.llm_model, settings.llm_provider
    if provider == "auto":
        async with httpx.AsyncClient(transport=llm_transport) as http:  # once, at start: httpx is fine
            found = await detect(http, settings.llm_base_url, api_key=settings.llm_api_key)
        provider = found.provider
        log.info("llm_provider_detected", extra={"provider": provider, "evidence": found.evidence})
    client: ChatCompletionsClient = http_client(settings.llm_base_url, settings.llm_api_key)
    if settings.llm_fallbacks:
        sent = select_preset(provider=provider, model=model)
        arms = [Arm(model, client)]
        for f in settings.llm_fallbacks:
            own_server = f.base_url is not None and f.base_url != settings.llm_base_url
            key = f.api_key if f.api_key is not None or own_server else settings.llm_api_key
            to = _fallback_preset(f, provider)
            shape = None if to == sent else functools.partial(adapt, sent=sent, to=to)
            arms.append(Arm(f.model, http_client(f.base_url or settings.llm_base_url, key), shape))
        client = FallbackClient(
            arms,
            cooldown_s=settings.llm_cooldown_s,
            observe=lambda a: metrics.observe_model(model=a.model, outcome=a.code or "ok"),
        )
    log.info(
        "llm_client",
        extra={
            "client": "http",
            "base_url": settings.llm_base_url,
            "model": model,
            "provider": provider,
            "fallbacks": [f.model for f in settings.llm_fallbacks],
        },
    )
    return client, model, provider


def _fallback_preset(fallback: FallbackModel, provider: str) -> Preset:
    """A fallback model's preset: its own provider's, else LLM_MODEL's provider's, for its name."""
    return select_preset(provider=fallback.provider or provider, model=fallback.model)


def _router(settings: Settings, sessionmaker: async_sessionmaker[AsyncSession], preset: Preset, clock: Clock) -> Router:
    """The choice among LLM_MODEL and LLM_FALLBACKS (services/turn/routing.py); a model's price is its own
    when given, else its preset's."""
    prices = {settings.llm_model: Price(preset.price_in_per_mtok, preset.price_out_per_mtok)}
    for f in settings.llm_fallbacks:
        own = _fallback_preset(f, preset.provider)
        prices[f.model] = Price(
            own.price_in_per_mtok if f.price_in_per_mtok is None else f.price_in_per_mtok,
            own.price_out_per_mtok if f.price_out_per_mtok is None else f.price_out_per_mtok,
        )
    tuning = Tuning(
        epsilon=settings.routing_epsilon,
        ucb_c=settings.routing_ucb_c,
        floor=settings.routing_success_floor,
        min_turns=settings.routing_min_turns,
    )
    return Router(
        models=[settings.llm_model, *(f.model for f in settings.llm_fallbacks)],
        prices=prices,
        strategy=settings.routing_strategy,
        tuning=tuning,
        window=settings.routing_window,
        refresh_s=settings.routing_refresh_s,
        sessionmaker=sessionmaker,
        clock=clock,
        max_age_s=settings.routing_max_age_s,
        seed=settings.routing_seed,
    )


def _allow_cors(app: FastAPI, origins: list[str]) -> None:
    app.add_middleware(
        CORSMiddleware,
        allow_origins=origins,
        allow_methods=["GET", "POST", "PATCH", "DELETE"],
        allow_headers=_CORS_REQUEST_HEADERS,
        expose_headers=_CORS_RESPONSE_HEADERS,
    )


@asynccontextmanager
async def _pruning(
    sessionmaker: async_sessionmaker[AsyncSession], settings: Settings, clock: Clock | None
) -> AsyncIterator[None]:
    """The service forgets what is past retention every PRUNE_INTERVAL_S (0: never) while it runs."""
    task = None
    if settings.prune_interval_s > 0:
        task = asyncio.create_task(prune_periodically(sessionmaker, settings, clock=clock))
    try:
        yield
    finally:
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def _wire(stack: AsyncExitStack, llm_transport: httpx.AsyncBaseTransport | None) -> Wire:
    """The ONE HTTP client for the model: aiohttp's, or httpx's around a test's scripted transport."""
    if llm_transport is None:
        return AiohttpWire(await stack.enter_async_context(AiohttpWire.session()))
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=20)
    return HttpxWire(await stack.enter_async_context(httpx.AsyncClient(transport=llm_transport, limits=limits)))


async def _keys(stack: AsyncExitStack, settings: Settings, url: str) -> KeySet:
    """The identity provider's keys (JWT_JWKS_URL), on a client of their own: the model's may be a
    test's scripted transport."""
    http = await stack.enter_async_context(httpx.AsyncClient(timeout=5.0))
    return KeySet(url, http, refresh_s=settings.jwt_jwks_refresh_s, max_age_s=settings.jwt_jwks_max_age_s)


def _lifespan(
    settings: Settings,
    *,
    llm_transport: httpx.AsyncBaseTransport | None,
    clock: Clock | None,
    metrics: Metrics,
    mcp: McpHttpEndpoint,
    served_gc: bool = False,
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """What the app holds while it runs: the engine, ONE HTTP client for the model (aiohttp's; a
    test's scripted transport goes through httpx's), the model client, the chat
    and REST services, the identity provider's keys, the pruning task and the MCP endpoint (which starts
    the SDK's session manager on its first request, mcp/http.py)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        read_words("add milk and delete it")  # ~600 patterns compile (a second): before the first turn, not in it
        engine = create_engine(settings)
        async with AsyncExitStack() as stack:
            wire = await _wire(stack, llm_transport)
            client, model, provider = await _llm_client(settings, wire, llm_transport, metrics=metrics)
            app.state.settings = settings
            app.state.clock = the_clock = clock or SystemClock()
            app.state.engine = engine
            app.state.sessionmaker = create_sessionmaker(engine)
            if settings.jwt_jwks_url:
                app.state.keys = await _keys(stack, settings, settings.jwt_jwks_url)
            preset = select_preset(provider=provider, model=model)
            several = isinstance(client, FallbackClient)
            service = ChatService(
                settings=settings,
                sessionmaker=app.state.sessionmaker,
                client=MeteredClient(client, metrics),
                model=model,
                preset=preset,
                clock=the_clock,
                metrics=metrics,
                router=_router(settings, app.state.sessionmaker, preset, the_clock) if several else None,
            )
            app.state.chat_service = service
            tools_for_user = app.state.tools_for = service.tools_for
            app.state.task_writes = TaskWrites(
                tools_for=tools_for_user,
                sessionmaker=app.state.sessionmaker,
                settings=settings,
                clock=service.clock,
                metrics=metrics,
            )
            try:
                pruning = _pruning(app.state.sessionmaker, settings, clock)
                async with pruning, mcp.run(tools_for_user=tools_for_user, metrics=metrics):
                    with collector_as_served() if served_gc else contextlib.nullcontext():
                        yield
            finally:
                await engine.dispose()

    return lifespan
