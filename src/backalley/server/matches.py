"""Team matches: two tables of four play the same deals with the seats turned — team A holds
at table 1 the cards team B holds at table 2 — so that the luck of the cards cancels out
(docs/protocol.md, team matches).

Both tables deal from the match's seed (an HMAC of its id under the server's secret, as the
daily deals), each deal keyed by its place, kind and attempt: a deal thrown in at one table
is dealt again there as its next attempt, the same cards as the other table's next attempt,
and by the same dealer (a match plays D7's ``redeal_same`` where its rules say ``redeal``),
so that both tables' later deals stay in step.
Team A is side 0 at table 1 and side 1 at table 2. A deal's result for team A is its points
less team B's at each table, summed over both tables; it is counted once both tables have
played it with the same dealer (the key and dealer of :func:`daily.result_key`). The match's
result is the sum over its deals.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from backalley.cards import N_
from backalley.engine import Game
from backalley.server import daily
from backalley.server.account_routes import account_of
from backalley.server.credentials import matches
from backalley.server.limits import may_make_tables
from backalley.server.requests import bearer, body
from backalley.server.settings import Settings, TableError
from backalley.server.statuses import TableStatus
from backalley.server.store import Store, game_players, seats, tables
from backalley.server.store import matches as match_rows
from backalley.server.store.writes import NewMatch
from backalley.server.table import Table, making
from backalley.server.table.state import TableState

TEAMS = ("A", "B")
#: each team's side at table 1 and at table 2
SIDES = {"A": (0, 1), "B": (1, 0)}


def team_seats(team: str, table: int) -> list[int]:
    """The seats ``team`` holds at table ``table`` (1 or 2): 0 and 2 for side 0."""
    side = SIDES[team][table - 1]
    return [side, side + 2]


def finished_deals(game: Game | None) -> dict[str, tuple[int, tuple[int, ...]]]:
    """The deals played to their end (thrown-in ones left out): by result key, the deal's
    index and each side's points."""
    if game is None:
        return {}
    return {
        daily.result_key(game.deals, i): (i, tuple(deal.points))
        for i, deal in enumerate(game.deals)
        if deal.points is not None
    }


def deal_by_deal(first: Game | None, second: Game | None) -> list[dict[str, Any]]:
    """Each deal both tables have played to its end, in table 1's order: each table's points
    by side, team A's margin at each (its points less team B's) and their sum."""
    at_second = finished_deals(second)
    shown = []
    for key, (index, points) in sorted(finished_deals(first).items(), key=lambda kv: kv[1][0]):
        if key not in at_second:
            continue
        other_index, other_points = at_second[key]
        margins = [points[0] - points[1], other_points[1] - other_points[0]]
        shown.append({
            "key": key, "number": index, "numbers": [index, other_index],
            "points": [list(points), list(other_points)], "margins": margins,
            "difference": sum(margins),
        })  # fmt: skip
    return shown


def _teams(states: list[TableState | None]) -> dict[str, list[list[str | None]]]:
    """Each team's players at table 1 and at table 2, by name (``None``: an empty seat)."""
    found: dict[str, list[list[str | None]]] = {}
    for team in TEAMS:
        found[team] = [
            [None if state is None else state.seats[s].name for s in team_seats(team, n + 1)]
            for n, state in enumerate(states)
        ]
    return found


async def create(request: Request) -> Response:
    """A team match: two tables with the same settings, each with its own invites and host
    token; bots are given seats afterwards as at any table."""
    from backalley.server.app import links_of  # the tables' links, as POST /api/tables

    settings = Settings.checked(await body(request))
    settings = replace(settings, options=daily.in_step(settings.rules, settings.options))
    if settings.ruleset().num_players != 4:
        raise TableError("bad_rules", N_("a team match is for two partnerships of two"))
    may_make_tables(request, 2)
    match_id = secrets.token_urlsafe(6)
    tables = request.app.state.tables
    first, first_secrets = await tables.create(replace(settings, match=f"{match_id}/1"))
    config = {k: v for k, v in vars(settings).items() if k not in ("daily", "match")}
    second, second_secrets = await tables.create(
        replace(settings, match=f"{match_id}/2"),
        lambda table_id: [NewMatch(table_id, match_id, first.id, config)],
    )
    return JSONResponse(
        {
            "id": match_id,
            "tables": [
                links_of(request, first, first_secrets),
                links_of(request, second, second_secrets),
            ],
            "teams": {team: [team_seats(team, 1), team_seats(team, 2)] for team in TEAMS},
        },
        status_code=201,
    )


async def _states(request: Request, row: Any) -> list[TableState | None]:
    """Both tables' states: from this node's memory when it holds them, else from their logs
    in the store (a table held by another node, or finished)."""
    tables = request.app.state.tables
    store: Store = tables.store
    found: list[TableState | None] = []
    for table_id in (row.table_1, row.table_2):
        held: Table | None = tables.tables.get(table_id)
        if held is not None:
            found.append(held.state)
            continue
        stored = await asyncio.to_thread(store.load, table_id)
        found.append(None if stored is None else making.state_of(stored)[0])
    return found


async def show(request: Request) -> Response:
    """A match as it stands: its tables and teams, each deal both tables have finished with
    team A's margins, and the total; each table's record once both are over."""
    match_id = request.path_params["match_id"]
    store: Store = request.app.state.tables.store
    row = await store.transaction(
        lambda c: c.execute(select(match_rows).where(match_rows.c.id == match_id)).first()
    )
    if row is None:
        raise TableError("no_match", N_("there is no such team match"))
    states = await _states(request, row)
    games = [None if state is None else state.game for state in states]
    deals = deal_by_deal(*games)
    over = all(state is not None and state.status == TableStatus.FINISHED for state in states)
    config = json.loads(row.config)
    return JSONResponse({
        "id": row.id, "rules": config["rules"], "options": config["options"],
        "level": config["level"], "created": row.created,
        "tables": [
            {"id": table_id, "number": n + 1,
             "status": None if state is None else state.status.value,
             "deals_played": len(finished_deals(games[n])),
             "hand_sizes": None if state is None else list(state.rules.hand_sizes)}
            for n, (table_id, state) in enumerate(zip((row.table_1, row.table_2), states,
                                                      strict=True))
        ],
        "teams": _teams(states), "seats": {t: [team_seats(t, 1), team_seats(t, 2)] for t in TEAMS},
        "deals": deals, "total": sum(d["difference"] for d in deals), "over": over,
    })  # fmt: skip


def opened_settings(
    connection: Connection, table_id: str, token: str | None, account: str | None
) -> tuple[Settings, str] | None:
    """The settings and status of table ``table_id`` if ``token`` (a seat's, the host's or
    the watch code) or ``account`` (one of its seats', now or having left) opens it, else
    ``None``: read from the store, so that any node answers alike, whichever holds it."""
    row = connection.execute(
        select(tables.c.config, tables.c.status, tables.c.host_hash, tables.c.watch_hash).where(
            tables.c.id == table_id
        )
    ).first()
    if row is None:
        return None
    held = connection.execute(
        select(seats.c.token_hash, seats.c.account_id).where(seats.c.table_id == table_id)
    ).all()
    opened = False
    for stored in (row.host_hash, row.watch_hash, *(s.token_hash for s in held)):
        opened |= matches(token, stored)  # all of them: no early exit to time
    if not opened and account is not None:
        opened = (
            any(s.account_id == account for s in held)
            or connection.execute(
                select(game_players.c.table_id).where(
                    game_players.c.table_id == table_id, game_players.c.account_id == account
                )
            ).first()
            is not None
        )
    return (Settings(**json.loads(row.config)), row.status) if opened else None


async def may_read_twin(request: Request, table: Table) -> bool:
    """Whether the reader may see ``table``, finished, through ``?via=ID``: their own finished
    table that played the same deals (a try at the same day's daily deals, or the other
    table of the same team match), which their token or account opens."""
    via = request.query_params.get("via")
    if not via or via == table.id or table.state.status != TableStatus.FINISHED:
        return False
    store: Store = request.app.state.tables.store
    token, account = bearer(request), account_of(request)
    found = await store.transaction(lambda c: opened_settings(c, via, token, account))
    if found is None or found[1] != TableStatus.FINISHED:
        return False
    own, settings = found[0], table.settings
    same_daily = settings.daily is not None and own.daily == settings.daily
    same_match = (
        settings.match is not None
        and own.match is not None
        and own.match.split("/")[0] == settings.match.split("/")[0]
    )
    return same_daily or same_match


ROUTES = [
    Route("/api/matches", create, methods=["POST"]),
    Route("/api/matches/{match_id}", show),
]

__all__ = [
    "ROUTES",
    "SIDES",
    "TEAMS",
    "deal_by_deal",
    "may_read_twin",
    "opened_settings",
    "team_seats",
]
