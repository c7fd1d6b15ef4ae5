"""What a connected client's messages do at a table (docs/protocol.md, WebSocket): joining
and leaving, a bid or card, a take-back, a claim, a rematch answered, chat — each carried out
by the table as a command, and answered with its ``ack`` or its refusal. A message sent again
with the same client id is acknowledged again, never applied twice."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from dataclasses import replace
from typing import Any

from backalley.cards import N_
from backalley.engine import IllegalAction
from backalley.i18n import explain_in
from backalley.record import write_record
from backalley.rules import Phase
from backalley.server import protocol
from backalley.server.protocol import ProtocolError
from backalley.server.table.decide import (
    Act,
    AnswerRematch,
    PlayOut,
    Say,
    Undo,
    decide,
    rematch_complete,
)
from backalley.server.table.events import RematchChanged
from backalley.server.table.presence import Client
from backalley.server.table.projections import view_of
from backalley.server.table.service import RESYNC_LIMIT, Table
from backalley.server.table.state import TableState

STALE_EVERY = 0.2  #: seconds between two looks, while a claim is settled, at whether play went on


async def join(table: Table, client: Client, since: int | None) -> None:
    """Connect ``client`` and bring it up to date: the events it missed after version
    ``since``, or the whole state — as stored: it waits for a change under way."""
    async with table.lock:
        if table.released:  # it came as the table moved: it comes back to the new owner
            client.close(protocol.CLOSE_MOVED)
            return
        table.presence.join(client)
        seat, version = client.seat, table.version
        if since is not None and version - RESYNC_LIMIT <= since <= version:
            events = [json.loads(text) for text in table.log[since:]]
            view = view_of(table.state, seat)
            client.send(protocol.resync(version, events, table.describe(), view))
        else:
            client.send(table.state_for(seat))
        table.say_presence()


def leave(table: Table, client: Client) -> None:
    """Disconnect ``client``; a player whose last connection closed is away, and after the
    grace period a bot of the table's level stands in."""
    table.presence.leave(client)
    if client.seat is not None:
        table.say_presence()


async def act(table: Table, client: Client, message: protocol.Act) -> None:
    """A seat's bid or card: applied, stored and broadcast, or refused with the rule and
    nothing changed. The same client id again is acknowledged, not applied again."""
    seat, key = _acting(client, message.id)
    if message.seat is not None and message.seat != seat:
        raise ProtocolError(
            "not_your_seat",
            N_("you hold seat {seat}, not seat {other}"),
            seat=seat,
            other=message.seat,
        )
    async with table.lock:
        if _acked_before(table, client, message.id, key):
            return
        try:
            events = await table.execute(Act(seat, message.action, key))
        except IllegalAction as error:  # refused by the engine before anything changed
            client.send(
                protocol.error(
                    "illegal", explain_in(error, client.catalog), rule=error.rule,
                    error=error, id=message.id, version=table.version,
                )
            )  # fmt: skip
            return
        client.send(protocol.ack(message.id, events[0].version))


def _acked_before(table: Table, client: Client, message_id: str, key: str) -> bool:
    """Whether the message ``key`` names (a seat and its client id) was applied before;
    if so it is acknowledged again, with the version it made, and not applied twice."""
    if key not in table.applied:
        return False
    client.send(protocol.ack(message_id, table.applied[key], repeated=True))
    return True


async def undo(table: Table, client: Client, message: protocol.Undo) -> None:
    """Take back ``client``'s last bid or card (see :meth:`TableState.undoable`): one
    more event in the log, naming the versions it takes back."""
    seat, key = _acting(client, message.id)
    async with table.lock:
        if _acked_before(table, client, message.id, key):
            return
        events = await table.execute(Undo(seat, key))
        client.send(protocol.ack(message.id, events[0].version))


def claim(table: Table, client: Client, message: protocol.Claim) -> Coroutine[Any, Any, None]:
    """The player on turn claims every remaining trick: answered at once with ``pending``,
    then settled by the solver in the pool (once it is ready: it may still be being
    prepared), aside from the seat's later messages. If it holds, the deal is played out
    along its line; if not, play goes on; if the game moved on meanwhile (the claimer's
    card, the timer's), it is stale at once. What is returned settles it: the caller runs it
    as a task, answering its refusal.

    :raises ProtocolError: not the claimer's turn to play a card, or a claim under way."""
    seat, key = _acting(client, message.id)
    state = table.state
    game = state.game
    if _acked_before(table, client, message.id, key):
        return _nothing()
    if game is None or game.phase != Phase.PLAY or game.to_move != seat:
        raise ProtocolError("no_claim", N_("only the player on turn to play a card may claim"))
    if table.claiming:
        raise ProtocolError("claim_running", N_("a claim is being settled: wait for it"))
    table.claiming = True
    ready = table.pool.solver_ready.is_set()
    client.send(protocol.pending(message.id, table.version, solver_ready=ready))
    return _settle(table, client, message.id, key, seat, state)


async def _nothing() -> None:
    pass


async def _settle(
    table: Table, client: Client, id: str, key: str, seat: int, state: TableState
) -> None:
    """``seat``'s claim asked at ``state``, settled (see :func:`claim`)."""
    game = state.game
    assert game is not None
    try:
        asked = asyncio.ensure_future(table.pool.claim(write_record(game), seat, table.id))
        while not asked.done():
            await asyncio.wait({asked}, timeout=STALE_EVERY)
            if table.state.moves != state.moves:
                asked.cancel()
                raise ProtocolError("stale", N_("the game moved on before the claim was settled"))
        holds, cards = asked.result()
    finally:
        table.claiming = False
    async with table.lock:
        if table.state.moves != state.moves:
            raise ProtocolError("stale", N_("the game moved on before the claim was settled"))
        if not holds:
            client.send(
                protocol.error(
                    "claim_refused",
                    client.catalog.gettext(
                        N_("the claim does not hold against every defence: play goes on")
                    ),
                    id=id,
                    version=table.version,
                )
            )
            return
        events = await table.execute(PlayOut(seat, key, tuple(cards), state.moves))
        client.send(protocol.ack(id, events[0].version))


# ------------------------------------------------------------------ rematch, chat


async def offer_rematch(table: Table, client: Client, message: protocol.Rematch) -> None:
    """Once the game is over, a player offers a rematch, or accepts or declines the one
    offered; bots accept at once. When every player has accepted, the rematch's table is
    made (:meth:`rematch_of`) and everyone here is told its id. An offer nobody settles
    lapses after the table's ``rematch_wait`` seconds."""
    seat, key = _acting(client, message.id)
    async with table.lock:
        if _acked_before(table, client, message.id, key):
            return
        table.check_changeable()
        command = AnswerRematch(seat, message.accept, key)
        events = decide(table.state, command, table.context())
        if not events:  # started already
            client.send(protocol.ack(message.id, table.version, repeated=True))
            return
        offer = events[0].payload
        assert isinstance(offer, RematchChanged)
        if rematch_complete(table.state, offer.offer):
            rematch = await table.spawn(table)
            command = replace(command, table=rematch.id)
        events = await table.execute(command)
        client.send(protocol.ack(message.id, events[0].version))


async def say(table: Table, client: Client, text: str) -> None:
    """A chat message from a seated player, kept with the table."""
    seat = client.seat
    if seat is None:
        raise ProtocolError("spectator", N_("spectators read the chat but do not write"))
    async with table.lock:
        await table.execute(Say(seat, text))


def _acting(client: Client, message_id: str) -> tuple[int, str]:
    """The seat ``client`` acts for, and the key of its message: the seat and the client's
    id for it, which makes a message sent twice apply once.

    :raises ProtocolError: for a spectator.
    """
    if client.seat is None:
        raise ProtocolError("spectator", N_("a spectator cannot act"))
    return client.seat, f"{client.seat}:{message_id}"


__all__ = ["act", "claim", "join", "leave", "offer_rematch", "say", "undo"]
