"""The players' ratings, kept in the database: each finished game taken in once, in the
order the games ended (by their stored end), and the whole table rebuilt from the stored
games on demand — the same function in the same order, so a rebuild gives the very ratings
the live updates gave (docs/ratings.md).

A game is rated when it has an account at it, and nobody left it for good and nobody took a
move back (its summary's ``rated``). Its places come from the final scores
(:func:`backalley.ratings.places`); bots play at their level's anchor, guests as newcomers.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from sqlalchemy import delete, func, insert, select, text, update
from sqlalchemy.engine import Connection, Engine

from backalley.ratings import NEWCOMER, Standing, anchors, places, rate
from backalley.server.statuses import TableStatus
from backalley.server.store import facts, game_players, rating_history, ratings, tables

log = logging.getLogger("backalley.server")

BATCH = 1000  #: games taken in a transaction
RATINGS_LOCK = 0x6261_7261  #: the PostgreSQL advisory lock that takes games in one node at a time


class Standings:
    """The live ratings: :meth:`catch_up` after each game that ends, and at start-up (for
    games that ended just before a crash)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._lock = asyncio.Lock()
        self._again = False
        self._anchors_checked = False

    async def catch_up(self) -> int:
        """Take in every finished game not taken in yet, off the event loop; how many were
        rated. A failure is logged, and the games are taken in at the next call."""
        if self._lock.locked():
            self._again = True  # the one under way may have read before this game ended
            return 0
        async with self._lock:
            if not self._anchors_checked:  # first: a new release's bots may rate otherwise
                try:
                    again = await asyncio.to_thread(rebuild_if_anchors_changed, self.engine)
                except Exception:
                    log.exception("ratings: could not rebuild them for the new anchors; later")
                    return 0
                self._anchors_checked = True
                if again is not None:
                    log.info("ratings: the bots' anchors changed, %d games rated again", again)
            total = 0
            while True:
                self._again = False
                try:
                    total += await asyncio.to_thread(catch_up, self.engine)
                except Exception:
                    log.exception("ratings: could not take the latest games in; later")
                    return total
                if not self._again:
                    return total


def catch_up(engine: Engine, progress: Callable[[int], None] | None = None) -> int:
    """Take in, oldest end first, the finished games the ratings have not taken in yet; how
    many were rated. ``progress`` is told how many games each transaction took in."""
    return _take_in(engine.begin, progress)


def anchors_mark() -> str:
    """A short fingerprint of the bots' anchors (:func:`backalley.ratings.anchors`)."""
    levels = {level: (s.mu, s.sigma) for level, s in sorted(anchors().items())}
    return hashlib.sha256(json.dumps(levels).encode()).hexdigest()[:16]


def rebuild_if_anchors_changed(engine: Engine) -> int | None:
    """Rebuild every rating when the ratings were computed with other anchors than this
    release's (a new calibration of the bots): how many games were rated again, or ``None``
    when nothing had to be. A database without ratings just takes note of the anchors."""
    mark = anchors_mark()
    with engine.begin() as connection:
        stored = connection.execute(
            select(facts.c.value).where(facts.c.name == "anchors")
        ).scalar_one_or_none()
        if stored == mark:
            return None
        if (
            stored is None
            and connection.execute(select(func.count()).select_from(ratings)).scalar_one() == 0
        ):
            _note_anchors(connection, mark)
            return None
    return rebuild(engine)


def _note_anchors(connection: Connection, mark: str) -> None:
    connection.execute(delete(facts).where(facts.c.name == "anchors"))
    connection.execute(insert(facts).values(name="anchors", value=mark))


def rebuild(engine: Engine, progress: Callable[[int], None] | None = None) -> int:
    """Forget every rating and take every finished game in again, in one transaction, with
    this release's anchors; how many games were rated."""
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":  # one node at a time
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": RATINGS_LOCK})
        _note_anchors(connection, anchors_mark())
        connection.execute(delete(rating_history))
        connection.execute(delete(ratings))
        connection.execute(
            update(tables).where(tables.c.status == TableStatus.FINISHED).values(rating=None)
        )
        return _take_in(lambda: contextlib.nullcontext(connection), progress)


def _take_in(
    transaction: Callable[[], AbstractContextManager[Connection]],
    progress: Callable[[int], None] | None,
) -> int:
    """Batches of games until none is left, each in a ``transaction()``: games rated."""
    rated = 0
    while True:
        with transaction() as connection:
            done, count = _batch(connection)
        rated += count
        if progress is not None and done:
            progress(done)
        if done < BATCH:
            return rated


def finished_games(engine: Engine) -> int:
    """How many games are finished (what a rebuild takes in)."""
    with engine.connect() as connection:
        query = (
            select(func.count()).select_from(tables).where(tables.c.status == TableStatus.FINISHED)
        )
        return int(connection.execute(query).scalar_one())


def _batch(connection: Connection) -> tuple[int, int]:
    """Take in up to BATCH games: (games taken in, games rated)."""
    if connection.dialect.name == "postgresql":  # several nodes may catch up at once: in turn
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": RATINGS_LOCK})
    games = connection.execute(
        select(tables.c.id, tables.c.finished, tables.c.summary)
        .where(tables.c.status == TableStatus.FINISHED, tables.c.rating.is_(None))
        .order_by(tables.c.finished, tables.c.id)
        .limit(BATCH)
    ).all()
    if not games:
        return 0, 0
    ids = [g.id for g in games]
    seated: dict[str, list[Any]] = {}
    for row in connection.execute(
        select(game_players).where(game_players.c.table_id.in_(ids), game_players.c.left == 0)
    ):
        seated.setdefault(row.table_id, []).append(row)
    people = {r.rated_as for rows in seated.values() for r in rows if r.rated_as is not None}
    known = {
        r.account_id: Standing(r.mu, r.sigma, r.games)
        for r in connection.execute(select(ratings).where(ratings.c.account_id.in_(people)))
    }
    standings = dict(known)
    history: list[dict[str, Any]] = []
    outcome: dict[str, int] = {}
    for game in games:
        summary = json.loads(game.summary) if game.summary else {}
        rows = sorted(seated.get(game.id, []), key=lambda r: r.seat)
        changed = _rate(summary, rows, standings)
        outcome[game.id] = int(bool(changed))
        history += [
            {"account_id": account, "table_id": game.id, "at": game.finished, "mu": s.mu,
             "sigma": s.sigma, "games": s.games}
            for account, s in changed.items()
        ]  # fmt: skip
    touched = {h["account_id"] for h in history}
    if touched:
        connection.execute(delete(ratings).where(ratings.c.account_id.in_(touched)))
        connection.execute(
            insert(ratings),
            [{"account_id": a, "mu": standings[a].mu, "sigma": standings[a].sigma,
              "games": standings[a].games} for a in sorted(touched)],
        )  # fmt: skip
        connection.execute(insert(rating_history), history)
    for value in (0, 1):
        chosen = [game_id for game_id, rated in outcome.items() if rated == value]
        if chosen:
            connection.execute(update(tables).where(tables.c.id.in_(chosen)).values(rating=value))
    return len(games), sum(outcome.values())


def _rate(
    summary: dict[str, Any], rows: list[Any], standings: dict[str, Standing]
) -> dict[str, Standing]:
    """The accounts' new standings after one game (updated in ``standings`` too), or nothing
    when the game is not rated."""
    players = summary.get("players") or []
    if not summary.get("rated") or len(rows) != len(players) or not any(r.rated_as for r in rows):
        return {}
    sides = 2 if len(players) == 4 else len(players)
    teams: list[list[Standing]] = [[] for _ in range(sides)]
    who: list[list[str | None]] = [[] for _ in range(sides)]
    for row in rows:
        if row.rated_as is not None:
            standing = standings.get(row.rated_as, NEWCOMER)
        elif row.level is not None:
            standing = anchors()[row.level]
        else:
            standing = NEWCOMER  # a guest: a newcomer each game, who keeps nothing
        teams[row.seat % sides].append(standing)
        who[row.seat % sides].append(row.rated_as)
    after = rate(teams, places(summary["scores"], summary.get("winner")))
    changed = {}
    for names, news in zip(who, after, strict=True):
        for account, new in zip(names, news, strict=True):
            if account is not None:
                changed[account] = standings[account] = new
    return changed


__all__ = [
    "BATCH",
    "Standings",
    "anchors_mark",
    "catch_up",
    "finished_games",
    "rebuild",
    "rebuild_if_anchors_changed",
]
