"""A table at a server: its state, and the one place its commands are carried out, one at a
time — decided (:func:`~backalley.server.table.decide.decide`), stored, applied
(:func:`~backalley.server.table.evolve.evolve`) and only then published (turbo-hearts'
"persist, then apply, then broadcast").

One lock a table serializes its commands (rather than a task and a queue): every caller —
a request, a WebSocket, the driver — waits for its own command's outcome (a token, an
acknowledgement, a refusal), which a lock hands back as it is, and asyncio's lock serves its
waiters in the order they came. Nothing is undone when a write fails: the state is replaced
only once the store has taken the change, so a failed write leaves it as it was. A write
reported as failed may yet have been stored (the database failing as it answered): the
table then reads itself back from the store before it takes another change.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from backalley.cards import N_
from backalley.server import protocol
from backalley.server.bots import BotPool
from backalley.server.credentials import digest, matches, secret
from backalley.server.protocol import ProtocolError
from backalley.server.settings import Settings, TableError, check_level, check_name
from backalley.server.store import LeaseLost, Store, fingerprint
from backalley.server.table.broadcast import publish, say_presence, tells_table
from backalley.server.table.decide import (
    Act,
    Command,
    Context,
    DealDue,
    End,
    GiveToBot,
    LapseRematch,
    Leave,
    TakeSeat,
    decide,
)
from backalley.server.table.driver import Driver
from backalley.server.table.events import (
    GAME_KINDS,
    ChatSaid,
    Event,
    Left,
    RematchChanged,
    SeatTaken,
    Started,
)
from backalley.server.table.evolve import evolved, with_account
from backalley.server.table.persist import rows_of
from backalley.server.table.presence import Client, Presence
from backalley.server.table.projections import describe, lobby_entry, view_of
from backalley.server.table.records import Records, count_given_away
from backalley.server.table.state import RematchStatus, TableState, TableStatus

log = logging.getLogger("backalley.server")

MOVED = N_("this table moved to another server: reconnecting")
RESYNC_LIMIT = 500  #: a client further behind than this many events gets the whole state
CHAT_KEPT = 50  #: chat messages a (re)joining client is shown


class Table:
    """One table at this server: its state, the clients connected to it, and its driver."""

    def __init__(self, state: TableState, store: Store, pool: BotPool) -> None:
        self.state = state
        self.store, self.pool = store, pool
        self.lock = asyncio.Lock()  #: one change at a time (see the module's docstring)
        # The public log, one JSON text an event (texts are not tracked by the garbage
        # collector, whose full passes over a million event objects stalled every table).
        self.log: list[str] = []
        self.chat: deque[str] = deque(maxlen=CHAT_KEPT)
        #: "seat:client id" of each message stored, and the version it made (a message sent
        #: again is acknowledged, not applied twice): like the log, a projection of it, kept
        #: beside the state (which would copy it at every event)
        self.applied: dict[str, int] = {}
        self.changed = asyncio.Event()  #: something the driver may care about changed
        self.presence = Presence(
            state.id, len(state.seats), state.settings.grace, store, lambda: self.state,
            self.changed.set, self.say_presence, self.later,
        )  # fmt: skip
        self.driver = Driver(self)
        self.records = Records(state.id)
        self.renamed: dict[str, str] = {}  #: deleted accounts' seats: the name shown instead
        self.turn_started = time.monotonic()  #: when the game last changed (the timer's start)
        self.rng: Any = secrets.SystemRandom()  #: what deals (the OS's secure generator)
        #: what deals instead at a table of the daily deals (set by the registry, which
        #: holds the day's secret): :func:`backalley.server.daily.dealer`
        self.dealer: Callable[[Any], None] | None = None
        #: a daily table's seed, which its bots' choices come from (set with ``dealer``)
        self.daily_seed: str | None = None
        self._tasks: set[asyncio.Future[Any]] = set()  #: work scheduled for later, held
        self.claiming = False  #: a claim is with the solver
        self.recovering = False  #: a write failed: catching up with the store, no changes
        #: another node holds the table now: this copy takes no change (its clients were
        #: closed with CLOSE_MOVED, and come back through the owner)
        self.released = False
        #: makes the rematch's table (set by the registry, which holds every table)
        self.spawn: Any = None
        #: told once the game's end is stored (set by the registry: the ratings)
        self.on_end: Callable[[], None] | None = None
        #: told when a write finds that this node no longer holds the table
        self.on_lost: Callable[[], None] | None = None

    @property
    def id(self) -> str:
        return self.state.id

    @property
    def settings(self) -> Settings:
        return self.state.settings

    @property
    def status(self) -> TableStatus:
        return self.state.status

    @property
    def version(self) -> int:
        return self.state.version

    @property
    def names(self) -> list[str | None]:
        """Each seat's name as shown: a deleted account's seat under a neutral name."""
        return [self.renamed.get(seat.account or "", seat.name) for seat in self.state.seats]

    # ------------------------------------------------------------------ life

    async def resume(self) -> None:
        """Go on after a load: a due deal dealt, the people away since they went (nobody is
        connected yet), and the driver started."""
        if self.state.game is not None and self.state.status == TableStatus.PLAYING:
            async with self.lock:
                await self.execute(DealDue())
            for seat in self.state.people():
                self.presence.away(seat, self.presence.away_at[seat])
        self.driver.start()

    def stop(self) -> None:
        self.driver.stop()

    def start_driver(self) -> None:
        self.driver.start()

    def fingerprint(self) -> tuple[Any, ...]:
        """:meth:`Store.fingerprint` of the table as it is here (equal to the store's while
        this node holds it and no change is under way)."""
        state = self.state
        return fingerprint(
            state.status.value, state.version or None, [s.token_hash for s in state.seats],
            self.presence.away_at, [s.account for s in state.seats],
        )  # fmt: skip

    def release(self) -> None:
        """Another node holds the table from now on: no change is taken here any more, the
        driver and the work scheduled stop, and every client is closed with CLOSE_MOVED,
        after the frames already queued, so that it reconnects with ``since`` and is served
        by the new owner."""
        self.released = self.presence.quiet = True
        self.stop()
        for task in list(self._tasks):
            task.cancel()
        for client in list(self.presence.everyone()):
            client.close(protocol.CLOSE_MOVED)

    # ------------------------------------------------------------------ carrying out

    def context(self) -> Context:
        return Context(self.rng, time.time(), self.dealer)

    async def execute(self, command: Command) -> list[Event]:
        """Carry out ``command`` (under the lock): decided, stored, applied, published; the
        events it made (none: nothing to do).

        :raises TableError: ``moved`` (another node holds the table), or the refusal.
        :raises ProtocolError: ``recovering`` while the table catches up with its store.
        :raises StoreError: the store did not take the change (the table is as it was).
        """
        self.check_changeable()
        events = decide(self.state, command, self.context())
        if events:
            await self.store_change(self.state, evolved(self.state, events), events)
        return events

    def check_changeable(self) -> None:
        if self.released:
            raise TableError("moved", MOVED)
        if self.recovering:
            raise ProtocolError(
                "recovering",
                N_("this table is catching up with its storage: try again in a moment"),
            )

    async def store_change(
        self, before: TableState, after: TableState, events: list[Event], extra: Any = None
    ) -> None:
        """Store ``events`` (and ``extra`` rows) in one transaction; then, and only then, the
        table is ``after``, and everyone is told."""
        rows = list(extra or []) + rows_of(before, after, events)
        try:
            await self.store.write(rows)
        except LeaseLost as error:  # another node's now: nothing to catch up with
            if self.on_lost is not None:
                self.on_lost()
            raise TableError("moved", MOVED) from error
        except BaseException:
            self.recovering = True
            self.later(self._recover())
            raise
        self.state = after
        for event in events:
            self.log.append(event.text())
            if event.client_id is not None:
                self.applied[event.client_id] = event.version
            if isinstance(event.payload, ChatSaid):
                self.chat.append(self.log[-1])
        self._after(before, events)
        publish(after, events, self.presence, self.describe() if tells_table(events) else None)
        self.changed.set()

    def _after(self, before: TableState, events: list[Event]) -> None:
        """What follows a stored change: the turn timer restarted by a move, the people not
        connected at a game's start away, a departure's connections closed, a rematch's
        lapse timed, and a game's end told."""
        state = self.state
        if any(event.kind in GAME_KINDS for event in events):
            self.turn_started = time.monotonic()
        for event in events:
            payload = event.payload
            if isinstance(payload, Started):
                for seat in state.people():
                    if not self.presence.connected(seat):
                        self.presence.away(seat)
            elif isinstance(payload, Left):
                self.presence.forget(payload.seat)
            elif isinstance(payload, RematchChanged) and payload.offer.status == RematchStatus.OPEN:
                until = payload.offer.until
                if before.rematch is None or before.rematch.until != until:
                    delay = max(0.0, until - time.time())
                    asyncio.get_running_loop().call_later(delay, self._lapse_at, until)
        if state.status == TableStatus.FINISHED and before.status != TableStatus.FINISHED:
            if self.on_end is not None:
                self.on_end()
            if any(seat.account for seat in state.seats):
                self.later(count_given_away(self))

    def later(self, work: Any) -> None:
        """Run the coroutine ``work`` as a task the table holds until it is done."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _recover(self) -> None:
        """After a failed write: read the table back from the store, off the event loop,
        until the store answers; if the write was stored after all, take what was stored.
        Changes are refused meanwhile; then the driver goes on."""
        delay = 0.2
        while True:
            try:
                stored = await asyncio.to_thread(self.store.load, self.id)
            except Exception:
                log.warning("table %s: the store is still failing; trying again", self.id)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            async with self.lock:
                if stored is not None and stored.events and stored.events[-1].seq > self.version:
                    log.warning("table %s: a write reported as failed was stored", self.id)
                    from backalley.server.table.making import load  # it makes Tables

                    fresh = load(stored, self.store, self.pool)
                    self.state, self.log, self.chat = fresh.state, fresh.log, fresh.chat
                    self.applied = fresh.applied
                self.recovering = False
                self.changed.set()
            return

    async def move(self, act: Act, still: Callable[[], bool]) -> bool:
        """A move made for a seat (a bot's, a stand-in's, a timed-out turn's), if ``still()``
        holds under the lock (the game has not moved on): whether it is done with (made, or
        moot); not while the table catches up with its store.

        :raises IllegalAction: the engine refuses it (a bot's bug).
        :raises StoreError: it was not stored.
        """
        async with self.lock:
            if self.released or not still():
                return True
            if self.recovering:
                return False
            await self.execute(act)
        return True

    # ------------------------------------------------------------------ seats

    def seat_of(self, token: str | None, account: str | None = None) -> int | None:
        """The seat ``token`` holds, or else the seat of ``account`` (signed in), or ``None``."""
        return self.state.seat_of(token, account)

    def may_watch(self, code: str | None) -> bool:
        """Whether ``code`` lets a spectator in: the watch code, or anything at a public
        table."""
        return self.settings.public or matches(code, self.state.secrets.watch)

    def is_host(self, token: str | None) -> bool:
        return matches(token, self.state.secrets.host)

    def may_read(self, credential: str | None, account: str | None = None) -> bool:
        """Whether a reader may see this table — its settings and seats, its game's record,
        replay and reviews: anyone at a public table; at a private one, whoever holds one
        of its secrets or the account of one of its seats. (An account that left it is known
        to the store: :meth:`played_by`.)"""
        return (
            self.settings.public
            or self.state.opens(credential)
            or (account is not None and self.state.holds(account))
        )

    async def played_by(self, account: str) -> bool:
        """Whether ``account`` held a seat of this table's game, here now or left for good."""
        return self.state.holds(account) or await asyncio.to_thread(
            self.store.played, self.id, account
        )

    async def take(self, seat: int, invite: str, name: object, account: str | None = None) -> str:
        """Seat a person who holds ``seat``'s invite: their token (shown once).

        :raises TableError: no such seat, a wrong invite, a taken seat, a bad name.
        """
        self._check_seat(seat)
        if not matches(invite, self.state.secrets.invites[seat]):
            raise TableError("forbidden", N_("this invite does not open seat {seat}"), seat=seat)
        return (await self._sit(seat, check_name(name), account))[1]

    async def take_free_seat(self, name: object, account: str | None = None) -> tuple[int, str]:
        """Seat a person at the first free seat of a public table (from the lobby): the seat
        and its token (shown once).

        :raises TableError: a private table, no free seat, a bad name.
        """
        return await self._sit(None, check_name(name), account)

    async def _sit(self, seat: int | None, name: str, account: str | None) -> tuple[int, str]:
        token = secret()
        async with self.lock:
            events = await self.execute(TakeSeat(seat, name, digest(token), account))
        taken = events[0].payload
        assert isinstance(taken, SeatTaken)
        return taken.seat, token

    async def claim_seat(self, token: str | None, account: str) -> int:
        """The seat a guest's ``token`` holds now belongs to ``account`` as well: its seat.
        (A credential, kept with the seat's row: no event.)

        :raises TableError: a token that opens no seat here, or the account already seated.
        """
        async with self.lock:
            state = self.state
            seat = state.seat_of(token)
            if seat is None:
                raise TableError("forbidden", N_("this token does not open this table"))
            if state.seats[seat].account == account:
                return seat
            if state.holds(account):
                held = state.seat_of(None, account)
                raise TableError(
                    "seated", N_("your account already holds seat {seat} at this table"),
                    seat=held,
                )  # fmt: skip
            if state.seats[seat].account is not None:
                raise TableError("forbidden", N_("this seat belongs to another account"))
            rows = Store.account(self.id, seat, account)
            await self.store.write(rows + Store.claimed(self.id, seat, account))
            self.state = with_account(self.state, seat, account)
            return seat

    def rename(self, account: str, name: str) -> None:
        """A deleted account's seats: shown under ``name`` from now on (the log is not
        rewritten: the names shown are a projection)."""
        self.renamed[account] = name
        self.records.forget()

    async def leave_seat(self, token: str | None, account: str | None = None) -> None:
        """The player holding ``token`` leaves the table for good: before the game their seat
        is free again, during it a bot of the table's level takes it at once (the record says
        who left when), after it they are gone from any rematch. Their token no longer opens
        the seat, and their connections are closed.

        :raises TableError: a token that holds no seat here.
        """
        async with self.lock:
            seat = self.state.seat_of(token, account)
            if seat is None:
                raise TableError("forbidden", N_("this token does not open this table"))
            await self.execute(Leave(seat))
        for client in list(self.presence.clients[seat]):
            client.close(protocol.CLOSE_LEFT)

    async def end(self, credential: str | None) -> None:
        """The host ends a table whose game has not started: nobody may sit down any more.

        :raises TableError: not the host, or the game has started.
        """
        if not self.is_host(credential):
            raise TableError("forbidden", N_("only the host may end this table"))
        async with self.lock:
            await self.execute(End())
        self.stop()

    async def give_to_bot(
        self, seat: int, level: str, credential: str | None, account: str | None = None
    ) -> None:
        """Give the empty ``seat`` to a bot; the host or a seated player may.

        :raises TableError: not allowed, no such seat or level, the seat taken.
        """
        self._check_seat(seat)
        if not self.is_host(credential) and self.seat_of(credential, account) is None:
            raise TableError(
                "forbidden", N_("only the host or a player at this table may seat a bot")
            )
        check_level(level)
        async with self.lock:
            await self.execute(GiveToBot(seat, level))

    def _check_seat(self, seat: object) -> None:
        if type(seat) is not int or not 0 <= seat < len(self.state.seats):
            raise TableError(
                "no_seat", N_("there is no seat {seat} at this table"), seat=str(seat)[:10]
            )

    # ------------------------------------------------------------------ connections

    def say_presence(self) -> None:
        say_presence(self.state, self.presence, self.presence.seats(self.names))

    def state_for(self, seat: int | None) -> dict[str, Any]:
        """The whole state as ``seat`` (``None``: a spectator) may see it."""
        chat = [json.loads(text) for text in self.chat]
        view = view_of(self.state, seat)
        return protocol.state(self.version, self.describe(), seat, view, chat)

    async def stored_description(self) -> dict[str, Any]:
        """:meth:`describe` as stored: after any change under way."""
        async with self.lock:
            return self.describe()

    def describe(self) -> dict[str, Any]:
        """The table as anyone at it sees it: settings, seats, who is here."""
        return describe(self.state, self.presence.seats(self.names))

    def lobby_entry(self) -> dict[str, Any]:
        return lobby_entry(self.state, self.names)

    def _lapse_at(self, until: float) -> None:
        self.later(self._lapse(until))

    async def _lapse(self, until: float) -> None:
        """The rematch offered until ``until`` lapses, if nobody settled it meanwhile."""
        async with self.lock:
            await self.execute(LapseRematch(until))

    # ------------------------------------------------------------------ records

    async def record(self, seat: int | None) -> dict[str, Any]:
        """The game's ``backalley/1`` record as stored (see :meth:`Records.record`)."""
        async with self.lock:
            return self.records.record(self.state, seat, self.names)

    async def start_review(
        self, deal: int, may_start: Callable[[], None] | None = None
    ) -> asyncio.Future[dict[str, Any]]:
        """The double-dummy review of deal ``deal``, under way or done, to be awaited
        (shielded: others may wait for it too); see :meth:`Records.review`."""
        async with self.lock:
            return self.records.review(self.state, deal, self.names, self.pool, may_start)

    async def review(
        self, deal: int, may_start: Callable[[], None] | None = None
    ) -> dict[str, Any]:
        """The double-dummy review of deal ``deal``, once it is done."""
        return await asyncio.shield(await self.start_review(deal, may_start))

    async def replay(self) -> dict[str, Any]:
        """A finished game card by card (see :meth:`Records.replay`)."""
        async with self.lock:
            state, names = self.state, self.names
        return self.records.replay(state, names)


__all__ = ["MOVED", "Client", "Table"]
