"""The server's routes: the HTTP API, the page, and each table's WebSocket (served by
:mod:`~backalley.server.sockets`). No game logic lives here: requests are checked and handed
to a :class:`~backalley.server.table.Table`.

Every route, message and close code is documented in docs/protocol.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import json
import logging
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute

from backalley.bots import BOT_NAMES, LEVELS
from backalley.cards import N_
from backalley.i18n import LANGUAGES, translator
from backalley.rules import ALL_PASS_LIMIT, GAME_LENGTHS, OPTIONS, PRESETS, game_length
from backalley.server import protocol
from backalley.server.account_routes import (
    ROUTES,
    SIGN_INS_PER_MINUTE,
    SIGN_UPS_PER_HOUR,
    TRIES_PER_DEVICE,
    TRIES_PER_NAME,
    CookieGuard,
    account_of,
    session_of,
)
from backalley.server.accounts import Accounts
from backalley.server.assets import WEB, Assets
from backalley.server.bots import BotPool
from backalley.server.daily_routes import ROUTES as DAILY_ROUTES
from backalley.server.daily_routes import Kept
from backalley.server.limits import (
    GUESSES_PER_MINUTE,
    REVIEWS_PER_MINUTE,
    TABLES_PER_MINUTE,
    Quota,
    address_of,
    may_guess,
    may_make_tables,
)
from backalley.server.matches import ROUTES as MATCH_ROUTES
from backalley.server.matches import may_read_twin
from backalley.server.middleware import Compressed, Forwarder, SecurityHeaders
from backalley.server.refusals import HANDLERS
from backalley.server.registry import Tables
from backalley.server.requests import bearer, body, catalog_of
from backalley.server.settings import Settings, TableError, check_level
from backalley.server.sockets import table_socket
from backalley.server.store import Store
from backalley.server.table import Table

log = logging.getLogger("backalley.server")

# ---------------------------------------------------------------------- HTTP


async def _table(request: Request) -> Table:
    tables: Tables = request.app.state.tables
    table = await tables.get(request.path_params["table_id"])
    if table is None:
        raise TableError("no_table", N_("there is no such table"))
    return table


#: What a reader is told of a private table it may not see: the same as of no table at all.
HIDDEN = N_("there is no such table, or it is private: it opens with its invite or watch link")
REVIEW_RETRY = 2  #: seconds a client waits before it asks again for a review that is pending


async def _readable(request: Request) -> Table:
    """The request's table, if its reader may see it (:meth:`Table.may_read`): anyone at a
    public table; at a private one, the holder of one of its secrets (``Authorization:
    Bearer``) or an account that played it. A private table is to anyone else as no table
    is; a secret that opens nothing is a wrong guess.

    :raises TableError: ``no_table``, ``forbidden`` or ``too_many_guesses``.
    """
    token = bearer(request)
    if token:
        may_guess(request)
    try:
        table = await _table(request)
    except TableError as error:
        if error.code == "no_table":
            raise TableError("no_table", HIDDEN) from None
        raise
    account = account_of(request)
    if table.may_read(token, account) or (account is not None and await table.played_by(account)):
        return table
    if await may_read_twin(request, table):  # one that played the same deals, both finished
        return table
    if token:
        raise TableError("forbidden", N_("this token does not open this table"))
    raise TableError("no_table", HIDDEN)


def links_of(request: Request, table: Table, secrets_: dict[str, Any]) -> dict[str, Any]:
    """A new table's id, host token, invites (with their addresses), watch link and table."""
    base = str(request.base_url).rstrip("/")
    return {
        "id": table.id,
        "host": secrets_["host"],
        "invites": [
            {"seat": s, "invite": code, "url": f"{base}/t/{table.id}?seat={s}&invite={code}"}
            for s, code in enumerate(secrets_["invites"])
        ],
        "watch": {
            "code": secrets_["watch"],
            "url": f"{base}/t/{table.id}?watch={secrets_['watch']}",
        },
        "table": table.describe(),
    }


async def create_table(request: Request) -> Response:
    settings = Settings.checked(await body(request))
    may_make_tables(request)
    table, secrets_ = await request.app.state.tables.create(settings)
    return JSONResponse(links_of(request, table, secrets_), status_code=201)


async def show_table(request: Request) -> Response:
    return JSONResponse(await (await _readable(request)).stored_description())


def _seat_name(request: Request, data: dict[str, Any]) -> object:
    """The name a seat is taken under: the account's when signed in, else the one given."""
    session = session_of(request)
    return data.get("name") if session is None else session.account.name


async def take_seat(request: Request) -> Response:
    may_guess(request)
    table = await _table(request)
    data = await body(request)
    seat = request.path_params["seat"]
    invite = data.get("invite")
    if not isinstance(invite, str):
        raise TableError("forbidden", N_("this invite does not open seat {seat}"), seat=seat)
    token = await table.take(seat, invite, _seat_name(request, data), account_of(request))
    return JSONResponse(
        {"seat": seat, "token": token, "table": await table.stored_description()}, status_code=201
    )


async def take_free_seat(request: Request) -> Response:
    table = await _table(request)
    data = await body(request)
    seat, token = await table.take_free_seat(_seat_name(request, data), account_of(request))
    return JSONResponse(
        {"seat": seat, "token": token, "table": await table.stored_description()}, status_code=201
    )


async def leave_table(request: Request) -> Response:
    may_guess(request)
    table = await _table(request)
    await table.leave_seat(bearer(request), account_of(request))
    return JSONResponse({"table": await table.stored_description()})


async def end_table(request: Request) -> Response:
    may_guess(request)
    table = await _table(request)
    await table.end(bearer(request))
    return JSONResponse({"table": await table.stored_description()})


async def lobby(request: Request) -> Response:
    """The public tables of every node (see :meth:`Cluster.lobby`)."""
    here = request.app.state.tables.lobby()
    cluster = request.app.state.cluster
    if cluster is None:
        return JSONResponse(here)
    merged = await cluster.heartbeat.lobby(here)
    if "partial" in merged:
        merged["partial"] = catalog_of(request).gettext(merged["partial"])
    return JSONResponse(merged)


async def seat_bot(request: Request) -> Response:
    may_guess(request)
    table = await _table(request)
    data = await body(request)
    level = data.get("level", table.settings.level)
    await table.give_to_bot(
        request.path_params["seat"], str(level), bearer(request), account_of(request)
    )
    return JSONResponse({"table": await table.stored_description()})


async def table_record(request: Request) -> Response:
    table = await _readable(request)
    token = bearer(request)
    seat = table.seat_of(token, account_of(request))
    if token and seat is None and not table.state.opens(token):
        raise TableError("forbidden", N_("this token does not open this table"))
    return JSONResponse(await table.record(seat))


async def finished_games(request: Request) -> Response:
    """The latest finished games of public tables, and the viewer's own private ones."""
    games = await request.app.state.tables.finished(account=account_of(request))
    return JSONResponse({"games": games})


async def about(request: Request) -> Response:
    return JSONResponse(
        {
            "server": "backalley",
            "protocol": protocol.VERSION,
            "presets": list(PRESETS),
            "options": [
                {"name": o.name, "choices": o.choices, "rule": o.rule, "help": o.help}
                for o in OPTIONS
                if o.choices is not None
            ],
            "levels": list(LEVELS),
            # false while the solver is being prepared (the strong bots play below their
            # level, claims and reviews wait)
            "solver": {"ready": request.app.state.tables.pool.solver_ready.is_set()},
            "bot_names": BOT_NAMES,
            "all_pass_limit": ALL_PASS_LIMIT,
            "lengths": {
                preset: {length: game_length(preset, length) for length in GAME_LENGTHS}
                for preset in PRESETS
            },
            "languages": list(LANGUAGES),
        }
    )


#: The page's routes: one page for all, which reads its route from the address.
PAGES = (
    "/",
    "/t/{table_id}",
    "/replay/{table_id}",
    "/account",
    "/players/{account}",
    "/leaderboard",
    "/daily/{day}/{set}",
    "/m/{match_id}",
)
_MESSAGE = re.compile(r"""\bt\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""")


@functools.cache
def web_messages() -> tuple[str, ...]:
    """Every message the browser client shows: its ``t("…")`` strings, the options' help."""
    found: set[str] = {option.help for option in OPTIONS} | set(LEVELS)
    for path in WEB.glob("*.js"):
        for double, single in _MESSAGE.findall(path.read_text(encoding="utf-8")):
            found.add(json.loads(f'"{double}"') if double else single)
    return tuple(sorted(found))


async def catalog(request: Request) -> Response:
    """The browser client's messages in one language: ``{"messages": {english: translated}}``."""
    lang = request.path_params["lang"]
    if lang not in LANGUAGES:
        raise TableError("no_language", N_("no language {lang}"), lang=lang[:10])
    translations = translator(lang)
    messages = {m: translations.gettext(m) for m in web_messages()}
    return JSONResponse({"lang": lang, "messages": {k: v for k, v in messages.items() if k != v}})


async def game_replay(request: Request) -> Response:
    return JSONResponse(await (await _readable(request)).replay())


async def deal_review(request: Request) -> Response:
    table = await _readable(request)

    def may_start() -> None:  # a new review is a solver's job: so many a minute an address
        request.app.state.reviews.refuse(
            address_of(request),
            "too_many",
            N_("too many reviews asked from this address: try again in {seconds} s"),
        )

    reviewing = await table.start_review(request.path_params["deal"], may_start)
    if not reviewing.done() and not table.pool.solver_ready.is_set():
        # the solver is being prepared: the review waits for it; asked again, it is there
        answer = {"pending": True, "solver_ready": False, "retry_after": REVIEW_RETRY}
        return JSONResponse(answer, 202, headers={"retry-after": str(REVIEW_RETRY)})
    return JSONResponse(await asyncio.shield(reviewing))


async def ask_bot(request: Request) -> Response:
    """One decision of one of our bots for a program playing elsewhere: a seat's knowledge
    in, the action out (docs/bots.md); off unless the server is started with ``--bot-api``."""
    address = address_of(request)
    request.app.state.bot_api.refuse(
        address,
        "too_many",
        N_("too many decisions asked from this address: try again in {seconds} s"),
    )
    data = await body(request)
    level = data.pop("level", "medium")
    check_level(level)
    pool = request.app.state.tables.pool
    playing = pool.plays_as(level)
    answer = await pool.answer(data, playing, key=f"api:{address}")
    if "error" in answer:
        wrong = answer["error"]
        refusal = protocol.error("bad_knowledge", wrong["message"], rule=wrong["rule"])
        if "id" in answer:
            refusal["id"] = answer["id"]
        return JSONResponse(refusal, status_code=400)
    answer["level"] = level
    if playing != level:  # the solver is being prepared: a medium bot stands in meanwhile
        answer["played_as"] = playing
    return JSONResponse(answer)


def create_app(
    url: str,
    *,
    workers: int | None = None,
    warm_up: bool = True,
    tables_per_minute: int = TABLES_PER_MINUTE,
    guesses_per_minute: int = GUESSES_PER_MINUTE,
    reviews_per_minute: int = REVIEWS_PER_MINUTE,
    sign_ins_per_minute: int = SIGN_INS_PER_MINUTE,
    sign_ups_per_hour: int = SIGN_UPS_PER_HOUR,
    on_ready: Callable[[int], None] | None = None,
    redis: str | None = None,
    node: str | None = None,
    pool: BotPool | None = None,
    on_solver: Callable[[str, float], None] | None = None,
    bot_api: int | None = None,
) -> Starlette:
    """The server's ASGI app, on the database at ``url``; ``on_ready`` is told how many
    unfinished tables were resumed, once the server can take requests. One client address
    may create ``tables_per_minute`` tables at once, and then as many a minute; and send
    ``guesses_per_minute`` wrong credentials at once, and then as many a minute. With
    ``redis``, the app is node ``node`` of several (docs/deploy.md). The bots think in
    ``pool`` when given (tests), else in ``workers`` processes of the app's own, whose
    solver's preparation ``on_solver`` is told of (:meth:`BotPool.warm_up`). With
    ``bot_api``, ``POST /api/bot`` answers programs, so many decisions a minute an address."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = Store(url, node=node if redis is not None else None)
        bots = pool or BotPool(workers, progress=on_solver)
        tables = Tables(store, bots)
        app.state.tables = tables
        app.state.cluster = None
        if redis is not None:
            assert node is not None
            from backalley.server.cluster import Cluster

            tables.cluster = app.state.cluster = Cluster(node, redis, tables)
            tables.cluster.relay.app = app
        app.state.accounts = Accounts(store)
        app.state.daily_standings = Kept()
        quotas = {
            "sign_ins": Quota(sign_ins_per_minute / 60, sign_ins_per_minute),
            "name_tries": Quota(TRIES_PER_NAME / 3600, TRIES_PER_NAME),
            "device_tries": Quota(TRIES_PER_DEVICE / 3600, TRIES_PER_DEVICE),
            "sign_ups": Quota(sign_ups_per_hour / 3600, sign_ups_per_hour),
            "quota": Quota(tables_per_minute / 60, tables_per_minute),
            "guesses": Quota(guesses_per_minute / 60, guesses_per_minute),
            "reviews": Quota(reviews_per_minute / 60, reviews_per_minute),
            "bot_api": Quota((bot_api or 1) / 60, bot_api or 1),
        }
        for name, quota in quotas.items():
            setattr(app.state, name, quota)
        if tables.cluster is not None:  # the limits are the cluster's, not each node's
            tables.cluster.share_quotas(quotas)
        app.state.resumed = await tables.start()
        # What is alive now (modules, the resumed tables) lives as long as the server: out of
        # the garbage collector's full passes, which otherwise stall every table. Rarer
        # passes too: each stalls every table at once (benchmarks/server.py: the p99 at a
        # thousand tables went from about 70 ms to about 40 ms).
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 50, 20)
        warming = asyncio.create_task(bots.warm_up()) if warm_up else None
        if on_ready is not None:
            on_ready(app.state.resumed)
        try:
            yield
        finally:
            if warming is not None:
                warming.cancel()
            tables.stop()
            bots.close()
            store.close()  # every write under way stored, and no more
            if tables.cluster is not None:  # then its leases go: the others take its tables
                await tables.cluster.stop()

    assets = Assets()
    routes = [
        *(Route(path, assets.index) for path in PAGES),
        *ROUTES,
        *DAILY_ROUTES,
        *MATCH_ROUTES,
        Route("/static/{release}/{name}", assets.released),
        Route("/static/{name}", assets.plain),
        Route("/api", about),
        Route("/api/i18n/{lang}", catalog),
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/games", finished_games),
        Route("/api/lobby", lobby),
        Route("/api/tables/{table_id}", show_table),
        Route("/api/tables/{table_id}/seats/{seat:int}", take_seat, methods=["POST"]),
        Route("/api/tables/{table_id}/seats/{seat:int}/bot", seat_bot, methods=["POST"]),
        Route("/api/tables/{table_id}/join", take_free_seat, methods=["POST"]),
        Route("/api/tables/{table_id}/leave", leave_table, methods=["POST"]),
        Route("/api/tables/{table_id}/end", end_table, methods=["POST"]),
        Route("/api/tables/{table_id}/record", table_record),
        Route("/api/tables/{table_id}/review/{deal:int}", deal_review),
        Route("/api/tables/{table_id}/replay", game_replay),
        WebSocketRoute("/ws/tables/{table_id}", table_socket),
    ]
    if bot_api:
        routes.append(Route("/api/bot", ask_bot, methods=["POST"]))
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers=HANDLERS,
    )
    app.add_middleware(CookieGuard)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(Compressed)
    app.add_middleware(Forwarder)  # outermost: a forwarded request is served whole elsewhere
    return app


__all__ = ["create_app"]
