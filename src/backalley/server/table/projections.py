"""What a table shows, read from its state: its description (the table object), its lobby
entry, and each receiver's view of the game — a seat's from its own view, a spectator's from
the public one (DESIGN: information leaves the engine only through a view)."""

from __future__ import annotations

from typing import Any

from backalley.server import protocol
from backalley.server.table.state import TableState


def describe(state: TableState, seats: list[dict[str, Any]]) -> dict[str, Any]:
    """The table as anyone at it sees it: settings, ``seats`` (who is here), the rematch."""
    settings, rules = state.settings, state.rules
    return {
        "id": state.id,
        "status": state.status.value,
        "rules": rules.name,
        "options": rules.changed_options(),
        "level": settings.level,
        "pace": settings.pace,
        "turn_timer": settings.turn_timer,
        "grace": settings.grace,
        "public": settings.public,
        "hand_sizes": list(rules.hand_sizes),
        "seats": seats,
        "rematch": None if state.rematch is None else state.rematch.to_json(),
        "takebacks": state.takebacks,
        "daily": settings.daily,  #: ``DAY/SET`` at a table of the daily deals, else null
        "match": settings.match,  #: ``MATCH/N`` at table N of a team match, else null
    }


def lobby_entry(state: TableState, names: list[str | None]) -> dict[str, Any]:
    """The table as the lobby lists it: its rules, who sits where, how far the game is."""
    game, rules = state.game, state.rules
    return {
        "id": state.id,
        "status": state.status.value,
        "rules": rules.name,
        "options": rules.changed_options(),
        "hand_sizes": list(rules.hand_sizes),
        "level": state.settings.level,
        "turn_timer": state.settings.turn_timer,
        "seats": [
            {"seat": s, "name": names[s], "bot": seat.bot} for s, seat in enumerate(state.seats)
        ],
        "match": state.settings.match,
        "deal": None if game is None else game.counted_deals,
        "scores": None if game is None else list(game.scores),
    }


def view_of(state: TableState, seat: int | None) -> dict[str, Any] | None:
    """The game as ``seat`` (``None``: a spectator) sees it, and beyond the engine's view:
    the table's last trick, which may be the last deal's (a view holds only its own deal's
    tricks), and who won it; the counted deals played to their end (D2: a thrown-in deal
    does not count); and whether ``seat`` may take back a move."""
    game = state.game
    if game is None:
        return None
    view = game.public_view() if seat is None else game.view(seat)
    return {**protocol.view_json(view), **_extras(state, seat)}


def views(state: TableState, seats: list[int]) -> tuple[dict[str, Any] | None, dict[int, Any]]:
    """The public view, and each of ``seats``' own: the public one with its own fields
    (:func:`~backalley.server.protocol.seat_json`), which is the same as :func:`view_of`
    for it, made once for everyone."""
    game = state.game
    if game is None:
        return None, dict.fromkeys(seats)
    public = {**protocol.view_json(game.public_view()), **_extras(state, None)}
    own = {
        seat: {**public, **protocol.seat_json(game.view(seat)), "undo": state.undoable(seat) > 0}
        for seat in seats
    }
    return public, own


def _extras(state: TableState, seat: int | None) -> dict[str, Any]:
    game = state.game
    assert game is not None
    last = None if state.last_trick is None else [list(pair) for pair in state.last_trick]
    return {
        "last_trick": last,
        "last_winner": state.last_winner,
        "counted_deals": game.counted_deals,
        "undo": state.undoable(seat) > 0,
    }


__all__ = ["describe", "lobby_entry", "view_of", "views"]
