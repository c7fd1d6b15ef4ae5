"""The daily deals' routes: a try started (or taken up again), today's sets, and a day's
results — the ranking for all; each deal's field, review and the others' play only for whoever
finished that day's set (docs/protocol.md, daily deals)."""

from __future__ import annotations

import bisect
import json
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Connection
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from backalley.cards import N_
from backalley.server import daily
from backalley.server.account_routes import account_of, session_of
from backalley.server.limits import may_guess, may_make_tables
from backalley.server.matches import opened_settings
from backalley.server.requests import bearer, body
from backalley.server.settings import Settings, TableError, check_name
from backalley.server.statuses import TableStatus
from backalley.server.store import Store, StoreError, daily_entries

OTHERS_SHOWN = 50  #: the others' tables a deal lists, nearest in points first
RANKING_SHOWN = 100  #: the ranking's rows sent from the top (and the viewer's, with neighbours)
NEIGHBOURS = 2  #: rows sent either side of the viewer's place when it is below the top ones


def _set_of(request: Request) -> daily.DailySet:
    found = daily.SETS.get(request.path_params["set"])
    if found is None:
        raise TableError(
            "no_daily", N_("no daily deals called {name}; there are {names}"),
            name=str(request.path_params["set"])[:20], names=", ".join(daily.SETS),
        )  # fmt: skip
    return found


def _tries(connection: Connection, day: str, set_name: str, account: str) -> list[Any]:
    return list(
        connection.execute(
            select(daily_entries).where(
                daily_entries.c.day == day,
                daily_entries.c.set_name == set_name,
                daily_entries.c.account_id == account,
            )
        )
    )


async def start(request: Request) -> Response:
    """A try at today's deals of a set: a new table of one's own with three bots, seat 0
    taken; a signed-in player's first of the day is ranked, and an unfinished ranked try is
    taken up again rather than a new one begun."""
    chosen = _set_of(request)
    data = await body(request)
    session = session_of(request)
    account = None if session is None else session.account.id
    name = check_name(data.get("name") if session is None else session.account.name)
    day = daily.today()
    store: Store = request.app.state.tables.store
    ranked = False
    if account is not None:
        tries = await store.transaction(lambda c: _tries(c, day, chosen.name, account))
        ranked_try = next((t for t in tries if t.ranked_key is not None), None)
        if ranked_try is not None and ranked_try.finished is None:
            resumed = {"id": ranked_try.table_id, "seat": daily.SEAT, "ranked": True,
                       "resumed": True, "daily": f"{day}/{chosen.name}"}  # fmt: skip
            return JSONResponse(resumed)
        ranked = ranked_try is None
    may_make_tables(request)
    settings = replace(Settings(**chosen.settings(day)), pace=_pace(data))
    label = f"{day}/{chosen.name}"
    try:
        table, secrets_ = await request.app.state.tables.create(
            settings, lambda table_id: Store.daily_entry(table_id, label, account, name, ranked)
        )
    except StoreError as error:
        if ranked and "unique" in str(error.__cause__).lower():
            raise TableError(
                "daily_started", N_("your try at today's deals has just begun elsewhere")
            ) from None
        raise
    for seat in range(len(table.state.seats)):
        if seat != daily.SEAT:
            await table.give_to_bot(seat, chosen.level, secrets_["host"])
    token = await table.take(daily.SEAT, secrets_["invites"][daily.SEAT], name, account)
    answer = {
        "id": table.id, "seat": daily.SEAT, "token": token, "ranked": ranked, "resumed": False,
        "daily": label, "table": await table.stored_description(),
    }  # fmt: skip
    return JSONResponse(answer, status_code=201)


def _pace(data: dict[str, Any]) -> float:
    """The bots' pace the player asked for (it changes nothing but the wait)."""
    pace = data.get("pace", daily.PACE)
    if isinstance(pace, bool) or not isinstance(pace, int | float) or not 0 <= pace <= 5:
        raise TableError("bad_field", N_("{field} must be a number from {low} to {high}"),
                         field="pace", low=0, high=5)  # fmt: skip
    return float(pace)


async def sets(request: Request) -> Response:
    """Today's sets, how many have finished each, and the viewer's tries at them."""
    day = daily.today()
    account = account_of(request)

    def read(connection: Connection) -> dict[str, Any]:
        found = []
        for chosen in daily.SETS.values():
            rows = list(
                connection.execute(
                    select(daily_entries.c.account_id, daily_entries.c.table_id,
                           daily_entries.c.finished, daily_entries.c.ranked_key)
                    .where(daily_entries.c.day == day, daily_entries.c.set_name == chosen.name)
                )
            )  # fmt: skip
            mine = [r for r in rows if account is not None and r.account_id == account]
            found.append({
                "name": chosen.name, "rules": chosen.rules, "hand_sizes": list(chosen.hand_sizes),
                "level": chosen.level,
                "finished": sum(1 for r in rows if r.finished is not None and r.ranked_key),
                "tries": [{"table": r.table_id, "finished": r.finished is not None,
                           "ranked": r.ranked_key is not None} for r in mine],
            })  # fmt: skip
        return {"day": day, "sets": found}

    return JSONResponse(await request.app.state.tables.store.transaction(read))


def _entries(connection: Connection, day: str, set_name: str) -> list[daily.Entry]:
    rows = connection.execute(
        select(daily_entries.c.table_id, daily_entries.c.name, daily_entries.c.account_id,
               daily_entries.c.ranked_key, daily_entries.c.deals)
        .where(daily_entries.c.day == day, daily_entries.c.set_name == set_name,
               daily_entries.c.finished.is_not(None))
    ).all()  # fmt: skip
    every = json.loads("[" + ",".join(r.deals for r in rows) + "]")  # one parse, not thousands
    return [
        daily.Entry(r.table_id, r.name, r.account_id, r.ranked_key is not None, deals)
        for r, deals in zip(rows, every, strict=True)
    ]


@dataclass
class Standings:
    """A day's set worked out: every finished try with its shares, the ranking and its
    places, each deal's field, and who played each deal, by points."""

    stamp: tuple[Any, ...]  #: what the store said of the finished tries (count, latest)
    entries: dict[str, daily.Entry]
    ranking: list[daily.Entry]
    ranks: dict[str, int]
    fields: dict[str, list[int]]
    played: dict[str, list[tuple[int, str, str]]]  #: deal → (points, name, table), sorted


class Kept:
    """The latest days' standings, each worked out again only when the store holds another
    finished try of its set than when it was (a count and the latest end, read from an index:
    every node of a cluster sees the same), so that a results page asked again and again
    costs a query, not a ranking."""

    DAYS = 8  #: the (day, set) pairs kept

    def __init__(self) -> None:
        self.kept: dict[tuple[str, str], Standings] = {}

    def standings(self, connection: Connection, day: str, set_name: str) -> Standings:
        where = (daily_entries.c.day == day, daily_entries.c.set_name == set_name,
                 daily_entries.c.finished.is_not(None))  # fmt: skip
        stamp = tuple(
            connection.execute(
                select(func.count(), func.max(daily_entries.c.finished)).where(*where)
            ).one()
        )
        kept = self.kept.get((day, set_name))
        if kept is not None and kept.stamp == stamp:
            return kept
        entries = _entries(connection, day, set_name)
        ranking, fields = daily.standings(entries)
        played: dict[str, list[tuple[int, str, str]]] = {}
        for entry in entries:
            for key, points in entry.deals:
                played.setdefault(key, []).append((points, entry.name, entry.id))
        for others in played.values():
            others.sort()
        worked = Standings(stamp, {e.id: e for e in entries}, ranking, _ranks(ranking), fields,
                           played)  # fmt: skip
        self.kept.pop((day, set_name), None)
        self.kept[(day, set_name)] = worked
        while len(self.kept) > self.DAYS:
            self.kept.pop(next(iter(self.kept)))
        return worked


async def _viewer(request: Request, day: str, set_name: str) -> tuple[str | None, bool]:
    """The viewer's try at this day's set — the table of their ranked try when signed in
    (else their latest), or ``?table=ID`` opened by its seat's token — and whether it is
    finished; ``(None, False)`` for none."""
    account = account_of(request)
    store: Store = request.app.state.tables.store
    if account is not None:
        tries = await store.transaction(lambda c: _tries(c, day, set_name, account))
        tries.sort(key=lambda t: (t.ranked_key is None, -(t.finished or 0)))
        if tries:
            return tries[0].table_id, tries[0].finished is not None
    table_id = request.query_params.get("table")
    token = bearer(request)
    if table_id and token:
        may_guess(request)
        found = await store.transaction(lambda c: opened_settings(c, table_id, token, None))
        if found is not None and found[0].daily == f"{day}/{set_name}":
            return table_id, found[1] == TableStatus.FINISHED
    return None, False


async def results(request: Request) -> Response:
    """A day's results for a set: the ranking; the viewer's standing (a guest's or an
    unranked try's: where it would stand); once the viewer finished, each deal's field, and
    the others' tables that played it."""
    chosen = _set_of(request)
    day = daily.parse_day(request.path_params["day"])
    if day is None:
        raise TableError("bad_field", N_("{field} must be {kind}"), field="day",
                         kind=N_("a day such as 2026-12-06"))  # fmt: skip
    store: Store = request.app.state.tables.store
    kept: Kept = request.app.state.daily_standings
    worked = await store.transaction(lambda c: kept.standings(c, day, chosen.name))
    ranking, ranks = worked.ranking, worked.ranks
    mine, finished = await _viewer(request, day, chosen.name)
    own = None if mine is None else worked.entries.get(mine)
    answer: dict[str, Any] = {
        "day": day, "set": chosen.name, "rules": chosen.rules,
        "hand_sizes": list(chosen.hand_sizes), "level": chosen.level,
        "today": day == daily.today(), "players": len(ranking),
        "ranking": [
            {"rank": ranks[e.id], "position": position, "name": e.name, "account": e.account,
             "score": _percent(e.score), "you": e.id == mine,
             "table": e.id if finished else None}
            for position, e in _shown(ranking, mine)
        ],
        "you": None, "deals": None,
    }  # fmt: skip
    if mine is not None:
        answer["you"] = {"table": mine, "finished": finished,
                         "ranked": own.ranked if own else None}  # fmt: skip
    if own is not None:
        rank = ranks.get(own.id) or 1 + sum(1 for e in ranking if e.score > own.score)
        answer["you"].update(score=_percent(own.score), rank=rank)
        answer["deals"] = _deals(own, worked)
    return JSONResponse(answer)


def _shown(ranking: list[daily.Entry], mine: str | None) -> list[tuple[int, daily.Entry]]:
    """The ranking's rows sent, with their positions from 1: the top :data:`RANKING_SHOWN`,
    and the viewer's row with :data:`NEIGHBOURS` either side when it is further down."""
    at = next((i for i, e in enumerate(ranking) if e.id == mine), None)
    shown = list(range(min(RANKING_SHOWN, len(ranking))))
    if at is not None and at >= RANKING_SHOWN:
        shown += range(max(RANKING_SHOWN, at - NEIGHBOURS), min(len(ranking), at + NEIGHBOURS + 1))
    return [(i + 1, ranking[i]) for i in shown]


def _ranks(ranking: list[daily.Entry]) -> dict[str, int]:
    """Each ranked try's place, level scores sharing one (1, 2, 2, 4)."""
    ranks: dict[str, int] = {}
    for place, entry in enumerate(ranking, 1):
        before = ranking[place - 2] if place > 1 else None
        same = before is not None and _percent(before.score) == _percent(entry.score)
        ranks[entry.id] = ranks[before.id] if same and before else place
    return ranks


def _percent(share: float) -> float:
    return round(100 * share, 1)


def _deals(own: daily.Entry, worked: Standings) -> list[dict[str, Any]]:
    """Each deal of the viewer's try: its points and share, the field's points as
    ``[points, how many]``, and the others' tables that played it, nearest in points first."""
    shown = []
    for number, ((key, points), share) in enumerate(zip(own.deals, own.shares, strict=True)):
        shown.append({
            "number": number, "key": key, "points": points, "share": _percent(share),
            "field": sorted(Counter(worked.fields.get(key, [])).items()),
            "others": [{"table": t, "name": n, "points": p}
                       for p, n, t in _nearest(worked.played.get(key, []), points, own.id)],
        })  # fmt: skip
    return shown


def _nearest(
    played: list[tuple[int, str, str]], points: int, own: str
) -> list[tuple[int, str, str]]:
    """Up to :data:`OTHERS_SHOWN` of ``played`` (sorted by points), not ``own``, nearest to
    ``points`` first: outwards from where ``points`` falls."""
    at = bisect.bisect_left(played, (points,))
    low, high = at - 1, at
    found: list[tuple[int, str, str]] = []
    while len(found) < OTHERS_SHOWN and (low >= 0 or high < len(played)):
        take_high = low < 0 or (
            high < len(played) and abs(played[high][0] - points) <= abs(played[low][0] - points)
        )
        if take_high:
            candidate, high = played[high], high + 1
        else:
            candidate, low = played[low], low - 1
        if candidate[2] != own:
            found.append(candidate)
    return found


ROUTES = [
    Route("/api/daily", sets),
    Route("/api/daily/{set}", start, methods=["POST"]),
    Route("/api/daily/{day}/{set}", results),
]

__all__ = ["ROUTES", "Kept", "Standings"]
