"""What the server tells of its players: each seat's figures for a game (kept when it ends),
a player's profile, and the leaderboard (docs/protocol.md, players)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select, true
from sqlalchemy.engine import Connection

from backalley.engine import DealKind, Game, contract_made
from backalley.ratings import Standing, anchors
from backalley.server.statuses import UNFINISHED
from backalley.server.store import (
    accounts,
    game_players,
    rating_history,
    ratings,
    seats,
    tables,
)

GAMES_SHOWN = 100  #: a profile's games, newest first


def seat_stats(game: Game, seat: int) -> dict[str, Any]:
    """One seat's figures over the counted deals played so far: its side's contracts made and
    set, boards bid and made, and its side's points (S1–S3)."""
    side = game.rules.side_of(seat)
    stats = dict(deals=0, points=0, contracts=0, made=0, sets=0, boards=0, boards_made=0)
    for deal in game.deals:
        if deal.points is None or deal.thrown_in is not None or deal.kind != DealKind.NORMAL:
            continue
        stats["deals"] += 1
        stats["points"] += deal.points[side]
        contract = deal.contracts[side]
        made = contract_made(contract, deal.tricks[side], deal.hand_size)
        if made is None:
            continue
        stats["contracts"] += 1
        stats["made" if made else "sets"] += 1
        if contract == "board":
            stats["boards"] += 1
            stats["boards_made"] += made
    return stats


def profile(
    connection: Connection, account_id: str, viewer: str | None = None
) -> dict[str, Any] | None:
    """An account's profile: its name, rating and its history, its figures summed over its
    games, its partners, and its games (in play and finished). To anyone but the account
    itself (``viewer``), its games, partners and the tables of its rating's history are
    those of public tables only; the figures and the rating count every game (they name
    none)."""
    row = connection.execute(select(accounts).where(accounts.c.id == account_id)).first()
    if row is None or row.deleted is not None:
        return None
    own = viewer == account_id
    rows = connection.execute(
        select(game_players, tables.c.config, tables.c.summary, tables.c.status, tables.c.public)
        .join(tables, tables.c.id == game_players.c.table_id)
        .where(game_players.c.account_id == account_id)
        .order_by(game_players.c.ended.desc().nulls_first())
    ).all()
    totals = dict(games=0, left=0, won=0, deals=0, points=0, contracts=0, made=0, sets=0,
                  boards=0, boards_made=0, reviewed=0, given_away=0)  # fmt: skip
    games: list[dict[str, Any]] = []
    partners: dict[str, int] = {}
    for r in rows:
        stats = json.loads(r.stats or "{}")
        summary = json.loads(r.summary) if r.summary else None
        totals["left"] += r.left
        if summary is None:
            continue
        totals["games"] += 1
        for key in ("deals", "points", "contracts", "made", "sets", "boards", "boards_made",
                    "reviewed", "given_away"):  # fmt: skip
            totals[key] += stats.get(key, 0)
        config = json.loads(r.config)
        sides = 3 if len(summary["players"]) == 3 else 2
        side = r.seat % sides
        won = summary.get("winner") == side and not r.left
        totals["won"] += won
        if not (own or r.public):
            continue
        if sides == 2 and not r.left:
            partner = summary["players"][(r.seat + 2) % 4]
            partners[partner] = partners.get(partner, 0) + 1
        games.append({
            "table": r.table_id, "seat": r.seat, "rules": config["rules"], "ended": r.ended,
            "players": summary["players"], "scores": summary["scores"], "side": side,
            "won": won, "left": bool(r.left), "rated": bool(summary.get("rated")) and not r.left,
        })  # fmt: skip
    playing = connection.execute(
        select(seats.c.table_id, seats.c.seat, tables.c.config, tables.c.status)
        .join(tables, tables.c.id == seats.c.table_id)
        .where(seats.c.account_id == account_id, tables.c.status.in_(UNFINISHED))
        .where(tables.c.public == 1 if not own else true())
        .order_by(tables.c.created.desc())
    ).all()
    deals = totals["deals"]
    figures = totals | {
        "points_per_deal": round(totals["points"] / deals, 2) if deals else None,
        "given_away_per_deal": (
            round(totals["given_away"] / totals["reviewed"], 3) if totals["reviewed"] else None
        ),
    }
    return {
        "id": row.id,
        "name": row.name,
        "since": row.created,
        "rating": _standing(connection, account_id).to_json(),
        "history": history(connection, account_id, own),
        "figures": figures,
        "partners": [
            {"name": name, "games": count}
            for name, count in sorted(partners.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
        ],
        "playing": [
            {
                "table": p.table_id,
                "seat": p.seat,
                "rules": json.loads(p.config)["rules"],
                "status": p.status,
            }
            for p in playing
        ],
        "games": games[:GAMES_SHOWN],
    }


def _standing(connection: Connection, account_id: str) -> Standing:
    row = connection.execute(select(ratings).where(ratings.c.account_id == account_id)).first()
    return Standing() if row is None else Standing(row.mu, row.sigma, row.games)


def history(connection: Connection, account_id: str, own: bool = True) -> list[dict[str, Any]]:
    """The account's rating after each of its rated games, oldest first; unless ``own``,
    a private table's id is left out (``null``)."""
    rows = connection.execute(
        select(rating_history, tables.c.public)
        .join(tables, tables.c.id == rating_history.c.table_id, isouter=True)
        .where(rating_history.c.account_id == account_id)
        .order_by(rating_history.c.at, rating_history.c.table_id)
    ).all()
    return [
        {
            "table": r.table_id if own or r.public else None,
            "at": r.at,
            "rating": Standing(r.mu, r.sigma, r.games).shown,
        }
        for r in rows
    ]


def leaderboard(connection: Connection, limit: int = 200) -> dict[str, Any]:
    """The rated players, best first, and apart from them the provisional ones."""
    rows = connection.execute(
        select(ratings, accounts.c.name)
        .join(accounts, accounts.c.id == ratings.c.account_id)
        .where(accounts.c.deleted.is_(None))
    ).all()
    entries = []
    for r in rows:
        standing = Standing(r.mu, r.sigma, r.games)
        entries.append({"id": r.account_id, "name": r.name} | standing.to_json())
    entries.sort(key=lambda e: (-e["rating"], e["name"]))
    return {
        "rated": [e for e in entries if not e["provisional"]][:limit],
        "provisional": [e for e in entries if e["provisional"]][:limit],
        # the bots' fixed ratings, which hold the scale: a player sees where they stand
        "bots": [{"level": level} | s.to_json() for level, s in anchors().items()],
    }


def seats_of(connection: Connection, account_id: str) -> list[dict[str, Any]]:
    """Every seat ``account_id`` holds (in games to come, under way and over), newest first."""
    found = connection.execute(
        select(seats.c.table_id, seats.c.seat, tables.c.status)
        .join(tables, tables.c.id == seats.c.table_id)
        .where(seats.c.account_id == account_id)
        .order_by(tables.c.created.desc())
        .limit(200)
    ).all()
    return [{"table": r.table_id, "seat": r.seat, "status": r.status} for r in found]


__all__ = ["history", "leaderboard", "profile", "seat_stats", "seats_of"]
