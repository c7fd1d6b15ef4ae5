"""Telling a table's clients what happened: each stored event to everyone, as anyone may see
it, and with the last of a change, each receiver's view — a seat's own, a spectator's public
one — and the table's description when it changed. Frames are made once and shared by the
connections of one seat (DESIGN: only what is stored is broadcast, and only through views)."""

from __future__ import annotations

from typing import Any

from backalley.server import protocol
from backalley.server.table.events import GAME_KINDS, TABLE_KINDS, Event
from backalley.server.table.presence import Presence
from backalley.server.table.projections import views
from backalley.server.table.state import TableState


def publish(
    state: TableState, events: list[Event], presence: Presence, table: dict[str, Any] | None
) -> None:
    """Send stored ``events`` (which left the table in ``state``) to every client;
    ``table`` is the table's description, sent with the last when the events changed it."""
    if not events:
        return
    game_changed = any(e.kind in GAME_KINDS for e in events)
    last = len(events) - 1
    for i, event in enumerate(events):
        redacted = event.redact()
        if i < last or (not game_changed and table is None):
            frame = protocol.dumps(protocol.event(event.version, redacted))
            for client in presence.everyone():
                client.send(frame)
            continue
        seated = [seat for seat, clients in enumerate(presence.clients) if clients]
        public, own = views(state, seated)
        for seat in seated:
            message = protocol.event(event.version, redacted, table=table, view=own[seat])
            frame = protocol.dumps(message)
            for client in presence.clients[seat]:
                client.send(frame)
        if presence.watchers:
            frame = protocol.dumps(
                protocol.event(event.version, redacted, table=table, view=public)
            )
            for client in presence.watchers:
                client.send(frame)


def tells_table(events: list[Event]) -> bool:
    """Whether ``events`` change the table as its description gives it."""
    return any(e.kind in TABLE_KINDS for e in events)


def say_presence(state: TableState, presence: Presence, seats: list[dict[str, Any]]) -> None:
    """Tell everyone at the table who is here (``seats``)."""
    message = protocol.dumps(protocol.presence(state.version, seats))
    for client in presence.everyone():
        client.send(message)


__all__ = ["publish", "say_presence", "tells_table"]
