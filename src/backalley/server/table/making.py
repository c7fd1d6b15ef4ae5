"""A table made, made again for a rematch, or loaded from its log (as a restart and a node
taking a table over do): each a :class:`~backalley.server.table.service.Table` going on."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from typing import Any

from backalley.server.bots import BotPool
from backalley.server.credentials import digest, secret
from backalley.server.settings import Settings
from backalley.server.store import Store, StoredTable, Write
from backalley.server.table.decide import Command, GiveToBot, TakeSeat, decide
from backalley.server.table.events import GAME_KINDS, ChatSaid, Event, payload_of
from backalley.server.table.evolve import evolved
from backalley.server.table.service import Table
from backalley.server.table.state import Secrets, TableState


async def create(
    settings: Settings, store: Store, pool: BotPool, extra: Callable[[str], Write] | None = None
) -> tuple[Table, dict[str, Any]]:
    """A new table, stored (with ``extra(its id)``'s rows, in the same transaction); with its
    secrets (shown once): host, watch and invites."""
    host, watch = secret(), secret()
    invites = [secret() for _ in range(settings.ruleset().num_players)]
    hashes = Secrets(digest(host), digest(watch), tuple(digest(i) for i in invites))
    table = Table(TableState.new(secrets.token_urlsafe(6), settings, hashes), store, pool)
    await store.write(new_rows(table.state) + (extra(table.id) if extra else []))
    table.driver.start()
    return table, {"host": host, "watch": watch, "invites": invites}


async def rematch_of(old: Table) -> Table:
    """The rematch of ``old``'s game: a new table with its own id and log, the same
    settings, the same people (their tokens open it, as they opened ``old``) and bots in
    the same seats, the same host and watch links; its game started."""
    before = old.state
    hashes = replace(before.secrets, invites=tuple(digest(secret()) for _ in before.seats))
    state = TableState.new(secrets.token_urlsafe(6), before.settings, hashes)
    table = Table(state, old.store, old.pool)
    table.renamed = dict(old.renamed)
    commands: list[Command] = []
    for number, seat in enumerate(before.seats):
        if seat.person:
            assert seat.name is not None and seat.token_hash is not None
            commands.append(TakeSeat(number, seat.name, seat.token_hash, seat.account))
        else:  # a bot's, or its player left: a bot (of the table's level)
            commands.append(GiveToBot(number, seat.bot or before.settings.level))
    events: list[Event] = []
    for command in commands:
        made = decide(state, command, table.context())
        state, events = evolved(state, made), events + made
    await table.store_change(table.state, state, events, extra=new_rows(table.state))
    table.driver.start()
    return table


def new_rows(state: TableState) -> Write:
    """The rows of a new table, its seats empty."""
    return Store.new_table(state.id, asdict(state.settings), state.secrets.host,
                           state.secrets.watch, list(state.secrets.invites))  # fmt: skip


def state_of(stored: StoredTable) -> tuple[TableState, list[Event]]:
    """A table's state as its log leaves it (its seats' credentials not yet read), and the
    log's events.

    :raises IllegalAction: a log this engine refuses.
    """
    settings = Settings(**stored.config)
    hashes = Secrets(stored.host_hash, stored.watch_hash, tuple(stored.invite_hashes))
    initial = TableState.new(stored.id, settings, hashes)
    events = [
        Event(row.seq, payload_of(row.kind, row.data), row.client_id) for row in stored.events
    ]
    return evolved(initial, events), events


def load(stored: StoredTable, store: Store, pool: BotPool) -> Table:
    """A table as its log leaves it: every event applied (:func:`evolve`, as in live
    play), then its seats' credentials from their rows.

    :raises IllegalAction: a log this engine refuses (the table is not loaded).
    """
    state, events = state_of(stored)
    seats = tuple(
        replace(seat, token_hash=token, account=account)
        for seat, token, account in zip(
            state.seats, stored.token_hashes, stored.account_ids or [None] * len(state.seats),
            strict=True,
        )
    )  # fmt: skip
    table = Table(replace(state, seats=seats), store, pool)
    table.applied = {e.client_id: e.version for e in events if e.client_id is not None}
    table.log = [event.text() for event in events]
    table.chat.extend(text for text, e in zip(table.log, events, strict=True)
                      if isinstance(e.payload, ChatSaid))  # fmt: skip
    table.renamed = dict(stored.renamed)
    table.presence.away_at = list(stored.away_at) or [None] * len(seats)
    # The turn timer goes on from the last change of the game, as stored.
    changed = [row.at for row in stored.events if row.kind in GAME_KINDS]
    if changed:
        table.turn_started = time.monotonic() - max(0.0, time.time() - changed[-1])
    return table


__all__ = ["create", "load", "new_rows", "rematch_of", "state_of"]
