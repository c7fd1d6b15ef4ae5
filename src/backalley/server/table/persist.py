"""What a change to a table stores, in one transaction with its events: each event's row, and
what the tables' other rows say of it — a seat's credentials, the table's status, who played
a finished game (with each seat's figures, for profiles and ratings)."""

from __future__ import annotations

import json
from typing import Any

from backalley.server import daily
from backalley.server.players import seat_stats
from backalley.server.store import Store, Write
from backalley.server.table.events import Event, Left, SeatTaken, Started
from backalley.server.table.state import TableState, TableStatus


def rows_of(before: TableState, after: TableState, events: list[Event]) -> Write:
    """The rows that store ``events``, which take the table from ``before`` to ``after``."""
    table = before.id
    rows: Write = []
    for event in events:
        payload = event.payload
        rows += Store.event(table, event.version, event.kind.value, payload.data(),
                            event.client_id)  # fmt: skip
        if isinstance(payload, SeatTaken):
            rows += Store.token(table, payload.seat, payload.token_hash, payload.account)
        elif isinstance(payload, Left):
            rows += Store.token(table, payload.seat, None)
            if payload.bot is not None:  # left during the game: the leaver's figures
                rows += Store.player(player_row(before, payload.seat, left=True))
        elif isinstance(payload, Started):
            rows += Store.status(table, TableStatus.PLAYING)
    if after.status == TableStatus.ENDED and before.status != TableStatus.ENDED:
        rows += Store.status(table, TableStatus.ENDED)
    if after.status == TableStatus.FINISHED and before.status != TableStatus.FINISHED:
        rows += finished_rows(after)
    return rows


def finished_rows(state: TableState) -> Write:
    """A game's end: who held each seat with their figures, and the table's summary."""
    assert state.game is not None
    summary = {
        "players": state.names,
        "scores": state.game.scores,
        "winner": state.game.winner,
        # a game with a take-back, that a person left for good, or in which a bot played
        # below its level (the solver not ready yet), is never rated
        "rated": state.takebacks == 0 and not state.departures and not any(state.below_level),
    }
    rows: Write = []
    for seat in range(len(state.seats)):
        rows += Store.player(player_row(state, seat))
    if state.settings.daily is not None and not state.departures:  # a try left: no result
        rows += Store.daily_result(state.id, daily.results(state.game))
    return rows + Store.status(state.id, TableStatus.FINISHED, summary)


def player_row(state: TableState, seat: int, left: bool = False) -> dict[str, Any]:
    """Who holds ``seat`` (or is leaving it for good) and their figures, for the profile
    and the ratings."""
    assert state.game is not None
    holder = state.seats[seat]
    return {
        "table_id": state.id, "seat": seat, "left": int(left), "account_id": holder.account,
        "rated_as": holder.account, "level": holder.bot, "name": holder.name,
        "stats": json.dumps(seat_stats(state.game, seat)),
    }  # fmt: skip


__all__ = ["finished_rows", "player_row", "rows_of"]
