"""Tables: each owns one game and its log, and is the only place the game changes.

A :class:`Table` applies what its seats send in order (one lock per table, taken only here):
the engine checks the action, the store commits it with the table's next version, and only
then is it broadcast — to each seat built from its own view, to spectators from the public
view. The log is the truth: :meth:`Table.load` rebuilds a table by replaying it, which is how
the server comes back after a crash.

The table's other jobs are modules of their own: its settings and the names people sit
under (:mod:`~backalley.server.settings`), the secrets that open it
(:mod:`~backalley.server.credentials`), its log's events and what a receiver may see of them
(:mod:`~backalley.server.events`), the record, reviews and replay it gives out
(:mod:`~backalley.server.records`), the driver task that acts for bots, stand-ins and the
turn timer (:mod:`~backalley.server.driver`), and the registry of every table
(:mod:`~backalley.server.registry`).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict
from typing import Any, Protocol

from backalley.bots import LEVELS, bot_name
from backalley.cards import (
    N_,
    card_name,
)
from backalley.engine import Game, IllegalAction, is_bid_text
from backalley.i18n import explain_in
from backalley.record import dealt, read_record, replay, write_record
from backalley.rules import Phase, action_name
from backalley.server import protocol
from backalley.server.bots import BotPool
from backalley.server.credentials import digest, matches, secret
from backalley.server.driver import Driver
from backalley.server.events import GAME_KINDS, TABLE_KINDS, Event, EventKind
from backalley.server.players import seat_stats
from backalley.server.protocol import ProtocolError
from backalley.server.records import Records
from backalley.server.settings import Settings, TableError, check_name
from backalley.server.store import LeaseLost, Store, StoredTable, Write, fingerprint

log = logging.getLogger("backalley.server")

MOVED = N_("this table moved to another server: reconnecting")
RESYNC_LIMIT = 500  #: a client further behind than this many events gets the whole state
CHAT_KEPT = 50  #: chat messages a (re)joining client is shown
#: A table's attributes that its log decides (a change alters them, a rebuild replaces them),
#: what a change may alter of who is here, and what only a successful commit adds to.
GAME_STATE = ("game", "token_hashes", "accounts", "names", "bots", "status", "moves", "last_trick",
              "last_winner", "deal_moves", "takebacks", "departures", "rematch")  # fmt: skip
PRESENCE = ("away_since", "stand_in")
STORED_LOG = ("version", "_issued", "log", "chat", "applied", "_finish_stored")


class Client(Protocol):
    """A connection as a table sees it: where it sits and how to reach it."""

    seat: int | None
    catalog: Any  #: gettext translations in the client's language

    def send(self, message: dict[str, Any] | str) -> None: ...

    def close(self, code: int) -> None: ...


class Table(Records, Driver):
    """One table: its settings, seats, game, log and the clients connected to it."""

    def __init__(
        self,
        table_id: str,
        settings: Settings,
        store: Store,
        pool: BotPool,
        *,
        host_hash: bytes,
        watch_hash: bytes,
        invite_hashes: list[bytes],
    ) -> None:
        self.id = table_id
        self.settings = settings
        self.rules = settings.ruleset()
        self.store = store
        self.pool = pool
        self.host_hash = host_hash
        self.watch_hash = watch_hash
        n = self.rules.num_players
        self.invite_hashes = invite_hashes
        self.token_hashes: list[bytes | None] = [None] * n
        self.accounts: list[str | None] = [None] * n  #: the account each seat belongs to
        self.names: list[str | None] = [None] * n
        self.bots: list[str | None] = [None] * n  #: the level of a seat given to a bot
        self.game: Game | None = None
        self.status = "open"
        self._finish_stored = False  #: the store knows the game is over
        #: finished deals' reviews, each asked of the pool once (under way, or done)
        self._reviews: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._claiming = False  #: a claim is with the solver
        self._replayed: dict[str, Any] | None = None  #: the finished game's replay
        self.version = 0
        self._issued = 0  #: the last version given to an event, stored or about to be
        # The public log, one JSON text an event (texts are not tracked by the garbage
        # collector, whose full passes over a million event objects stalled every table).
        self.log: list[str] = []
        self.chat: deque[str] = deque(maxlen=CHAT_KEPT)
        self.applied: dict[str, int] = {}  #: "seat:client id" → the version it made
        self.clients: list[set[Client]] = [set() for _ in range(n)]
        self.watchers: set[Client] = set()
        self.away_since: list[float | None] = [None] * n
        self.stand_in = [False] * n
        self.moves = 0  #: actions applied: the position's number, for the driver
        self.last_trick: list[list[Any]] | None = None  #: [seat, card] pairs, as in a view
        self.last_winner: int | None = None  #: the seat that won the last trick
        #: (version, seat, by) of each bid and card of the deal in play, for take-backs
        self.deal_moves: list[tuple[int, int, str | None]] = []
        self.takebacks = 0  #: take-backs made (a game with any is never rated)
        self.departures: list[dict[str, Any]] = []  #: who left when, for the record
        self.rematch: dict[str, Any] | None = None  #: the rematch offered once the game is over
        #: makes the rematch's table (set by :class:`Tables`, which holds every table)
        self.spawn: Any = None
        #: told once the game's end is stored (set by :class:`Tables`: the ratings)
        self.on_end: Callable[[], None] | None = None
        self.turn_started = time.monotonic()
        self.lock = asyncio.Lock()
        self._changed = asyncio.Event()
        self._driver: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Future[Any]] = set()  #: work scheduled for later, held
        self.recovering = False  #: a write failed: catching up with the store, no changes
        #: another node holds the table now: this copy takes no change (its clients were
        #: closed with CLOSE_MOVED, and come back through the owner)
        self.released = False
        #: told when a write finds that this node no longer holds the table (set by
        #: :class:`Tables`, which lets the table go)
        self.on_lost: Callable[[], None] | None = None
        self._away_at: list[float | None] = [None] * n  #: as stored: when each seat's person went

    # ------------------------------------------------------------------ creating, loading

    @classmethod
    async def create(
        cls, settings: Settings, store: Store, pool: BotPool
    ) -> tuple[Table, dict[str, Any]]:
        """A new table, stored; with its secrets (shown once): host, watch and invites."""
        host, watch = secret(), secret()
        n = settings.ruleset().num_players
        invites = [secret() for _ in range(n)]
        table = cls(
            secrets.token_urlsafe(6), settings, store, pool,
            host_hash=digest(host), watch_hash=digest(watch),
            invite_hashes=[digest(i) for i in invites],
        )  # fmt: skip
        await store.write(table._new_rows())
        table.start_driver()
        return table, {"host": host, "watch": watch, "invites": invites}

    @classmethod
    async def rematch_of(cls, old: Table) -> Table:
        """The rematch of ``old``'s game: a new table with its own id and log, the same
        settings, the same people (their tokens open it, as they opened ``old``) and bots in
        the same seats, the same host and watch links; its game started."""
        table = cls(
            secrets.token_urlsafe(6), old.settings, old.store, old.pool,
            host_hash=old.host_hash, watch_hash=old.watch_hash,
            invite_hashes=[digest(secret()) for _ in old.names],  # never shown: seats are full
        )  # fmt: skip
        rows = table._new_rows()
        events = []
        for seat, name in enumerate(old.names):
            assert name is not None
            level = old.bots[seat]
            if level is None and old.token_hashes[seat] is None:  # its player left: a bot
                level, name = old.settings.level, bot_name(old.settings.level, old.names)
            table._seat(seat, name, level)
            if level is None:
                table.token_hashes[seat] = old.token_hashes[seat]
                table.accounts[seat] = old.accounts[seat]
                rows += Store.token(table.id, seat, old.token_hashes[seat], old.accounts[seat])
                events.append(table._event(EventKind.SEAT, {"seat": seat, "name": name}))
            else:
                events.append(
                    table._event(EventKind.BOT, {"seat": seat, "level": level, "name": name})
                )
        events += table._start_if_full()
        with table._changing():
            await table._commit(events, rows)
        table.start_driver()
        return table

    def _new_rows(self) -> Write:
        return Store.new_table(
            self.id, asdict(self.settings), self.host_hash, self.watch_hash, self.invite_hashes
        )

    @classmethod
    def load(cls, stored: StoredTable, store: Store, pool: BotPool) -> Table:
        """A table as its log leaves it: every event replayed through the engine."""
        table = cls(
            stored.id, Settings(**stored.config), store, pool,
            host_hash=stored.host_hash, watch_hash=stored.watch_hash,
            invite_hashes=stored.invite_hashes,
        )  # fmt: skip
        for row in stored.events:
            table._replay(Event(row.seq, EventKind(row.kind), row.data, row.client_id))
        # Who holds each seat now, as stored: after the replay, whose departures clear the
        # seats they name (a seat left and taken again kept no token after a restart).
        table.token_hashes = list(stored.token_hashes)
        table.accounts = list(stored.account_ids) or [None] * len(table.names)
        table.status = stored.status
        table._finish_stored = stored.status == "finished"
        table._away_at = list(stored.away_at) or [None] * len(table.names)
        # The turn timer goes on from the last change of the game, as stored.
        changed = [row.at for row in stored.events if row.kind in GAME_KINDS]
        if changed:
            table.turn_started = time.monotonic() - max(0.0, time.time() - changed[-1])
        return table

    def _replay(self, event: Event) -> None:
        data = event.data
        if event.kind in (EventKind.SEAT, EventKind.BOT):
            self._seat(data["seat"], data["name"], data.get("level"))
        elif event.kind == EventKind.START:
            self.game = Game(self.rules)
        elif event.kind == EventKind.DEAL:
            assert self.game is not None
            self.game.start_deal(data["dealer"], data["hands"], data["stock"])
            self.deal_moves = []
        elif event.kind in (EventKind.BID, EventKind.CARD):
            self._take(data["action"], data["seat"])  # the stored seat: a wrong one is refused
            self.deal_moves.append((event.version, data["seat"], data.get("by")))
        elif event.kind == EventKind.TAKEBACK:
            self._take_back(len(data["versions"]))
        elif event.kind == EventKind.LEFT:
            self._depart(data)
        elif event.kind == EventKind.ENDED:
            self.status = "ended"
        elif event.kind == EventKind.REMATCH:
            self.rematch = data
        if event.client_id is not None:
            self.applied[event.client_id] = event.version
        self.log.append(event.text())
        if event.kind == EventKind.CHAT:
            self.chat.append(self.log[-1])
        self.version = self._issued = event.version

    async def resume(self) -> None:
        """Go on after a load: deal from the secure generator from now on (dealing a due
        deal), and start the driver."""
        if self.game is not None and self.status != "finished":
            async with self.lock:
                with self._changing():
                    before = len(self.game.deals)
                    self.game.attach_rng(secrets.SystemRandom())
                    events = self._deal_events(before)
                    if events:
                        await self._commit(events)
                self._publish(events)
            for seat in self._people():  # nobody is connected yet: away since they went
                self._away(seat, self._away_at[seat])
        self.start_driver()

    def start_driver(self) -> None:
        if self.status != "finished" and self._driver is None:
            self._driver = asyncio.create_task(self._drive(), name=f"table {self.id}")

    def stop(self) -> None:
        if self._driver is not None:
            self._driver.cancel()
            self._driver = None

    def fingerprint(self) -> tuple[Any, ...]:
        """:meth:`Store.fingerprint` of the table as it is here (equal to the store's while
        this node holds it and no change is under way)."""
        return fingerprint(
            self.status, self.version or None, self.token_hashes, self._away_at, self.accounts
        )

    def release(self) -> None:
        """Another node holds the table from now on: no change is taken here any more, the
        driver and the work scheduled stop, and every client is closed with CLOSE_MOVED,
        after the frames already queued, so that it reconnects with ``since`` and is served
        by the new owner."""
        self.released = True
        self.stop()
        for task in list(self._tasks):
            task.cancel()
        for client in list(self._all_clients()):
            client.close(protocol.CLOSE_MOVED)

    # ------------------------------------------------------------------ seats

    def seat_of(self, token: str | None, account: str | None = None) -> int | None:
        """The seat ``token`` holds, or else the seat of ``account`` (signed in), or ``None``."""
        found = None
        for seat, stored in enumerate(self.token_hashes):  # all of them: no early exit to time
            if matches(token, stored):
                found = seat
        if found is None and account is not None and account in self.accounts:
            found = self.accounts.index(account)
        return found

    def may_watch(self, code: str | None) -> bool:
        """Whether ``code`` lets a spectator in: the watch code, or anything at a public
        table."""
        return self.settings.public or matches(code, self.watch_hash)

    def is_host(self, token: str | None) -> bool:
        return matches(token, self.host_hash)

    def may_read(self, credential: str | None, account: str | None = None) -> bool:
        """Whether a reader may see this table — its settings and seats, its game's record,
        replay and reviews: anyone at a public table; at a private one, whoever holds one
        of its secrets (a seat's token, the host's, an invite, the watch code) or the
        account of one of its seats. (An account that left it is known to the store:
        :meth:`played_by`.)"""
        return (
            self.settings.public
            or self.opens(credential)
            or (account is not None and account in self.accounts)
        )

    def opens(self, credential: str | None) -> bool:
        """Whether ``credential`` is one of the table's secrets: a seat's token, the host's,
        an invite or the watch code."""
        found = False
        for stored in (*self.token_hashes, self.host_hash, self.watch_hash, *self.invite_hashes):
            found |= matches(credential, stored)  # all of them: no early exit to time
        return found

    async def played_by(self, account: str) -> bool:
        """Whether ``account`` held a seat of this table's game, here now or left for good."""
        return account in self.accounts or await asyncio.to_thread(
            self.store.played, self.id, account
        )

    async def take(self, seat: int, invite: str, name: object, account: str | None = None) -> str:
        """Seat a person who holds ``seat``'s invite: their token (shown once).

        :raises TableError: no such seat, a wrong invite, a taken seat, a bad name.
        """
        self._check_seat(seat)
        if not matches(invite, self.invite_hashes[seat]):
            raise TableError("forbidden", N_("this invite does not open seat {seat}"), seat=seat)
        name = check_name(name)
        async with self.lock:
            return await self._sit(seat, name, account)

    async def take_free_seat(self, name: object, account: str | None = None) -> tuple[int, str]:
        """Seat a person at the first free seat of a public table (from the lobby): the seat
        and its token (shown once).

        :raises TableError: a private table, no free seat, a bad name.
        """
        if not self.settings.public:
            raise TableError(
                "forbidden", N_("this table is private: it is joined by its invite links")
            )
        name = check_name(name)
        async with self.lock:
            free = [seat for seat, taken in enumerate(self.names) if taken is None]
            if not free:
                raise TableError("seat_taken", N_("every seat at this table is taken"))
            return free[0], await self._sit(free[0], name, account)

    async def _sit(self, seat: int, name: str, account: str | None) -> str:
        """Seat ``name`` at the empty ``seat`` (under the lock), for ``account`` when signed
        in: its new token."""
        self._check_open()
        if self.names[seat] is not None:
            raise TableError("seat_taken", N_("seat {seat} is taken"), seat=seat)
        self._check_unseated(account)
        token = secret()
        with self._changing():
            self.token_hashes[seat] = digest(token)
            self.accounts[seat] = account
            self._seat(seat, name)
            events = [self._event(EventKind.SEAT, {"seat": seat, "name": name})]
            events += self._start_if_full()
            await self._commit(events, Store.token(self.id, seat, self.token_hashes[seat], account))
        self._publish(events)
        return token

    def _check_unseated(self, account: str | None) -> None:
        if account is not None and account in self.accounts:
            raise TableError(
                "seated",
                N_("your account already holds seat {seat} at this table"),
                seat=self.accounts.index(account),
            )

    async def claim_seat(self, token: str | None, account: str) -> int:
        """The seat a guest's ``token`` holds now belongs to ``account`` as well: its seat.

        :raises TableError: a token that opens no seat here, or the account already seated.
        """
        async with self.lock:
            seat = self.seat_of(token)
            if seat is None:
                raise TableError("forbidden", N_("this token does not open this table"))
            if self.accounts[seat] == account:
                return seat
            self._check_unseated(account)
            if self.accounts[seat] is not None:
                raise TableError("forbidden", N_("this seat belongs to another account"))
            rows = Store.account(self.id, seat, account)
            await self.store.write(rows + Store.claimed(self.id, seat, account))
            self.accounts[seat] = account
            return seat

    def rename(self, account: str, name: str) -> None:
        """A deleted account's seats: shown under ``name`` from now on."""
        for seat, holder in enumerate(self.accounts):
            if holder == account:
                self.names[seat] = name
                self._replayed = None

    def _check_open(self) -> None:
        if self.status == "ended":
            raise TableError("ended", N_("this table was closed by its host"))

    async def leave_seat(self, token: str | None, account: str | None = None) -> None:
        """The player holding ``token`` leaves the table for good: before the game their seat
        is free again, during it a bot of the table's level takes it at once (the record says
        who left when), after it they are gone from any rematch. Their token no longer opens
        the seat, and their connections are closed.

        :raises TableError: a token that holds no seat here.
        """
        async with self.lock:
            seat = self.seat_of(token, account)
            if seat is None:
                raise TableError("forbidden", N_("this token does not open this table"))
            data: dict[str, Any] = {"seat": seat, "name": self.names[seat]}
            rows = Store.token(self.id, seat, None)
            if self.status == "playing":
                level = self.settings.level
                data |= {"level": level, "bot": bot_name(level, self.names)}
                rows += Store.player(self._player_row(seat, left=True))
            events = [self._event(EventKind.LEFT, data)]
            with self._changing():
                self._depart(data)
                if self.rematch is not None and self.rematch["status"] == "open":
                    events.append(self._rematch_event(dict(self.rematch, status="declined",
                                                           declined=seat)))  # fmt: skip
                await self._commit(events, rows)
            self._publish(events)
            for client in list(self.clients[seat]):
                client.close(protocol.CLOSE_LEFT)

    def _depart(self, data: dict[str, Any]) -> None:
        """``data["seat"]``'s player leaves (a ``left`` event): a bot takes the seat in a game
        under way, else the seat is free."""
        seat = data["seat"]
        self.token_hashes[seat] = None
        self.accounts[seat] = None
        self.away_since[seat] = None
        self.stand_in[seat] = False
        if "bot" in data:
            game = self.game
            assert game is not None and game.current_deal is not None
            deal = game.current_deal
            self.departures.append(
                {"seat": seat, "player": data["name"], "deal": len(game.deals) - 1,
                 "bids": len(deal.bids), "play": len(deal.play)}
            )  # fmt: skip
            self._seat(seat, data["bot"], data["level"])
        elif self.status == "open":
            self._seat(seat, None)

    async def end(self, credential: str | None) -> None:
        """The host ends a table whose game has not started: nobody may sit down any more.

        :raises TableError: not the host, or the game has started.
        """
        if not self.is_host(credential):
            raise TableError("forbidden", N_("only the host may end this table"))
        async with self.lock:
            if self.status == "ended":
                raise TableError("ended", N_("this table was closed by its host"))
            if self.status != "open":
                raise TableError(
                    "started", N_("only a table whose game has not started can be ended")
                )
            events = [self._event(EventKind.ENDED, {})]
            with self._changing():
                self.status = "ended"
                await self._commit(events, Store.status(self.id, "ended"))
            self._publish(events)
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
        if level not in LEVELS:
            raise TableError(
                "bad_field",
                N_("unknown bot level {level}; the levels are {levels}"),
                level=str(level)[:20],
                levels=", ".join(LEVELS),
            )
        async with self.lock:
            self._check_open()
            if self.names[seat] is not None:
                raise TableError("seat_taken", N_("seat {seat} is taken"), seat=seat)
            name = bot_name(level, self.names)
            with self._changing():
                self._seat(seat, name, level)
                events = [self._event(EventKind.BOT, {"seat": seat, "level": level, "name": name})]
                events += self._start_if_full()
                await self._commit(events)
            self._publish(events)

    def _seat(self, seat: int, name: str | None, level: str | None = None) -> None:
        """Sit ``name`` at ``seat``: a person, or a bot of ``level``."""
        self.names[seat], self.bots[seat] = name, level

    def _check_seat(self, seat: object) -> None:
        if type(seat) is not int or not 0 <= seat < self.rules.num_players:
            raise TableError(
                "no_seat", N_("there is no seat {seat} at this table"), seat=str(seat)[:10]
            )

    def _start_if_full(self) -> list[Event]:
        """Start the game when every seat is filled: the start and the first deal, dealt
        with the operating system's secure generator."""
        if self.game is not None or any(name is None for name in self.names):
            return []
        self.game = Game(self.rules, rng=secrets.SystemRandom())
        self.status = "playing"
        for seat in self._people():
            if not self.clients[seat]:
                self._away(seat)
        return [self._event(EventKind.START, {}), *self._deal_events(0)]

    def _people(self) -> list[int]:
        return [s for s in range(self.rules.num_players) if self.bots[s] is None]

    # ------------------------------------------------------------------ connections

    async def join(self, client: Client, since: int | None) -> None:
        """Connect ``client`` and bring it up to date: the events it missed after version
        ``since``, or the whole state — as stored: it waits for a commit under way."""
        async with self.lock:
            self._join(client, since)

    def _join(self, client: Client, since: int | None) -> None:
        if self.released:  # it came as the table moved: it comes back to the new owner
            client.close(protocol.CLOSE_MOVED)
            return
        seat = client.seat
        if seat is None:
            self.watchers.add(client)
        else:
            self.clients[seat].add(client)
            if self.away_since[seat] is not None or self.stand_in[seat]:
                self.away_since[seat] = None
                self.stand_in[seat] = False
                self._changed.set()
            if self._away_at[seat] is not None:
                self._note_away(seat, None)
        if since is not None and self.version - RESYNC_LIMIT <= since <= self.version:
            events = [json.loads(text) for text in self.log[since:]]
            client.send(protocol.resync(self.version, events, self.describe(), self._view_of(seat)))
        else:
            client.send(self.state_for(seat))
        self._send_presence()

    def leave(self, client: Client) -> None:
        """Disconnect ``client``; a player whose last connection closed is away, and after the
        grace period a bot of the table's level stands in."""
        seat = client.seat
        if seat is None:
            self.watchers.discard(client)
            return
        self.clients[seat].discard(client)
        if not self.clients[seat] and self.bots[seat] is None and self.game is not None:
            self._away(seat)
        self._send_presence()

    def _away(self, seat: int, went: float | None = None) -> None:
        """``seat``'s player is not connected: a bot stands in after the grace period, timed
        on the monotonic clock (a wall clock stepped back once meant no bot ever stood in).
        The wall-clock time they went is stored, so that after a restart (``went``) the
        grace goes on from where it had got to."""
        elapsed = 0.0 if went is None else min(max(0.0, time.time() - went), self.settings.grace)
        self.away_since[seat] = time.monotonic() - elapsed
        if went is None:
            self._note_away(seat, time.time())
        wait = self.settings.grace - elapsed
        asyncio.get_running_loop().call_later(wait, self._check_away, seat)

    def _note_away(self, seat: int, at: float | None) -> None:
        """Store when ``seat``'s person went (``None``: came back): presence, not the log, so
        outside any change; a write that fails costs only a full grace after a restart. A
        table another node holds now stores nothing here: its clients are leaving this one."""
        if self.released:
            return
        self._away_at[seat] = at

        async def store() -> None:
            try:
                await self.store.write(Store.away(self.id, seat, at))
            except Exception as error:  # the store failing: said, and nothing else depends on it
                log.warning("table %s: seat %d's presence not stored: %s", self.id, seat, error)

        self._later(store())

    def _check_away(self, seat: int) -> None:
        since = self.away_since[seat]
        gone = since is not None and time.monotonic() - since >= self.settings.grace - 0.01
        if gone and not self.stand_in[seat] and self.status == "playing":
            self.stand_in[seat] = True
            self._send_presence()
            self._changed.set()

    def state_for(self, seat: int | None) -> dict[str, Any]:
        """The whole state as ``seat`` (``None``: a spectator) may see it."""
        chat = [json.loads(text) for text in self.chat]
        return protocol.state(self.version, self.describe(), seat, self._view_of(seat), chat)

    async def stored_description(self) -> dict[str, Any]:
        """:meth:`describe` as stored: after any commit under way."""
        async with self.lock:
            return self.describe()

    def describe(self) -> dict[str, Any]:
        """The table as anyone at it sees it: settings, seats, who is here."""
        return {
            "id": self.id,
            "status": self.status,
            "rules": self.rules.name,
            "options": self.rules.changed_options(),
            "level": self.settings.level,
            "pace": self.settings.pace,
            "turn_timer": self.settings.turn_timer,
            "grace": self.settings.grace,
            "public": self.settings.public,
            "hand_sizes": list(self.rules.hand_sizes),
            "seats": self._seats(),
            "rematch": self.rematch,
            "takebacks": self.takebacks,
        }

    def lobby_entry(self) -> dict[str, Any]:
        """The table as the lobby lists it: its rules, who sits where, how far the game is."""
        game = self.game
        return {
            "id": self.id,
            "status": self.status,
            "rules": self.rules.name,
            "options": self.rules.changed_options(),
            "hand_sizes": list(self.rules.hand_sizes),
            "level": self.settings.level,
            "turn_timer": self.settings.turn_timer,
            "seats": [
                {"seat": s, "name": name, "bot": level}
                for s, (name, level) in enumerate(zip(self.names, self.bots, strict=True))
            ],
            "deal": None if game is None else game.counted_deals,
            "scores": None if game is None else list(game.scores),
        }

    def _seats(self) -> list[dict[str, Any]]:
        return [
            {
                "seat": s,
                "name": self.names[s],
                "bot": self.bots[s],
                "connected": bool(self.clients[s]) or self.bots[s] is not None,
                "stand_in": self.stand_in[s],
            }
            for s in range(self.rules.num_players)
        ]

    def _send_presence(self) -> None:
        message = protocol.dumps(protocol.presence(self.version, self._seats()))
        for client in self._all_clients():
            client.send(message)

    def _all_clients(self) -> Iterable[Client]:
        for clients in self.clients:
            yield from clients
        yield from self.watchers

    def _view_of(self, seat: int | None) -> dict[str, Any] | None:
        if self.game is None:
            return None
        view = self.game.public_view() if seat is None else self.game.view(seat)
        # Beyond the engine's view: the table's last trick, which may be the last deal's (a
        # view holds only its own deal's tricks) and who won it, the counted deals played to
        # their end (D2: a thrown-in deal does not count), and whether ``seat`` may take back
        # a move.
        return {
            **protocol.view_json(view),
            "last_trick": self.last_trick,
            "last_winner": self.last_winner,
            "counted_deals": self.game.counted_deals,
            "undo": self._undoable(seat) > 0,
        }

    # ------------------------------------------------------------------ actions

    async def act(self, client: Client, message: protocol.Act) -> None:
        """A seat's bid or card: applied, stored and broadcast, or refused with the rule and
        nothing changed. The same client id again is acknowledged, not applied again."""
        seat, key = self._acting(client, message.id)
        if message.seat is not None and message.seat != seat:
            raise ProtocolError(
                "not_your_seat",
                N_("you hold seat {seat}, not seat {other}"),
                seat=seat,
                other=message.seat,
            )
        async with self.lock:
            if self._acked_before(client, message.id, key):
                return
            if self.game is None:
                raise ProtocolError("not_started", N_("the game starts when every seat is filled"))
            try:
                with self._changing():
                    events = self._apply(seat, message.action, key)
                    await self._commit(events)
            except IllegalAction as error:  # refused by the engine before anything changed
                client.send(
                    protocol.error(
                        "illegal", explain_in(error, client.catalog), rule=error.rule,
                        error=error, id=message.id, version=self.version,
                    )
                )  # fmt: skip
                return
            self._publish(events)
            client.send(protocol.ack(message.id, events[0].version))

    @staticmethod
    def _acting(client: Client, message_id: str) -> tuple[int, str]:
        """The seat ``client`` acts for, and the key of its message: the seat and the
        client's id for it, which makes a message sent twice apply once.

        :raises ProtocolError: for a spectator.
        """
        if client.seat is None:
            raise ProtocolError("spectator", N_("a spectator cannot act"))
        return client.seat, f"{client.seat}:{message_id}"

    def _acked_before(self, client: Client, message_id: str, key: str) -> bool:
        """Whether the message ``key`` names (a seat and its client id) was applied before;
        if so it is acknowledged again, with the version it made, and not applied twice."""
        if key not in self.applied:
            return False
        client.send(protocol.ack(message_id, self.applied[key], repeated=True))
        return True

    def _apply(self, seat: int, action: str, key: str | None, by: str | None = None) -> list[Event]:
        """Apply ``seat``'s action to the game: its event, and the deals it brings about."""
        game = self.game
        assert game is not None
        before = len(game.deals)
        is_bid, taken, won_by = self._take(action, seat)
        # The record's spelling ("pass", "3", "TS"), whatever the client wrote ("0", "10s").
        data: dict[str, Any] = {"seat": seat, "action": action_name(taken)}
        if by is not None:
            data["by"] = by
        if won_by is not None:
            data["won_by"] = won_by
        events = [self._event(EventKind.BID if is_bid else EventKind.CARD, data, key)]
        self.deal_moves.append((events[0].version, seat, by))
        if game.phase == Phase.OVER:
            self.status = "finished"
        return events + self._deal_events(before)

    def _take(self, action: str, seat: int | None = None) -> tuple[bool, int, int | None]:
        """Apply ``action``, read as the engine reads it (a bid if spelt as one, B1, else a
        card, C2), checked to be ``seat``'s if given: whether it was a bid, the action taken,
        and the seat that won the trick if it completed one (P5). The engine refuses a bad
        one, with its rule, before anything changes. A completed trick is kept as the last
        trick: the view holds only its own deal's tricks, and a page shows the last one after
        its deal too."""
        game = self.game
        assert game is not None
        deal, trick, mover = game.current_deal, game.trick, game.to_move
        is_bid = is_bid_text(action, bidding=game.phase == Phase.BID)
        if is_bid:
            game.bid(action, seat)
        else:
            game.play(action, seat)
        self.moves += 1
        assert deal is not None and mover is not None
        taken = (deal.bids if is_bid else deal.play)[-1]
        won_by = None
        if not is_bid and not game.trick:
            played = [*trick, (mover, taken)]
            won_by = deal.winners[-1]
            self.last_trick = [[s, card_name(c)] for s, c in played]
            self.last_winner = won_by
        return is_bid, taken, won_by

    # ------------------------------------------------------------------ take-backs

    def _undoable(self, seat: int | None) -> int:
        """How many actions a take-back by ``seat`` would take back now; 0 when none may be.

        Only at a table where every other seat is a bot: the seat's last bid or card of the
        deal in play, with the bots' replies after it, while its trick is not complete (for a
        bid, before the deal's first card)."""
        game = self.game
        if seat is None or game is None or self.status != "playing" or self.bots[seat]:
            return 0
        if any(self.bots[s] is None for s in range(self.rules.num_players) if s != seat):
            return 0
        deal = game.current_deal
        own = [i for i, (_, s, by) in enumerate(self.deal_moves) if s == seat and by != "claim"]
        if deal is None or not own:
            return 0
        first = own[-1]
        bids = len(deal.bids)
        if first < bids:  # a bid: before the first card
            return len(self.deal_moves) - first if not deal.play else 0
        in_trick = len(game.trick)  # the last cards played, those of the trick in progress
        after = len(self.deal_moves) - first
        return after if after <= in_trick else 0

    async def undo(self, client: Client, message: protocol.Undo) -> None:
        """Take back ``client``'s last bid or card (see :meth:`_undoable`): one more event in
        the log, naming the versions it takes back; the game is their replay without them."""
        seat, key = self._acting(client, message.id)
        async with self.lock:
            if self._acked_before(client, message.id, key):
                return
            count = self._undoable(seat)
            if not count:
                raise ProtocolError(
                    "no_undo",
                    N_(
                        "nothing can be taken back now: only your last bid or card, at a table "
                        "with no other person, before its trick is complete (a bid: before the "
                        "first card)"
                    ),
                )
            versions = [version for version, _, _ in self.deal_moves[-count:]]
            event = self._event(EventKind.TAKEBACK, {"seat": seat, "versions": versions}, key)
            with self._changing():
                self._take_back(count)
                await self._commit([event])
            self._publish([event])
            client.send(protocol.ack(message.id, event.version))

    def _take_back(self, count: int) -> None:
        """Take back the last ``count`` actions of the deal in play: the game becomes the
        replay of its record without them."""
        assert self.game is not None
        record = write_record(self.game)
        deal = record["deals"][-1]
        bids, play = deal["bids"], deal["play"]
        keep = len(bids) + len(play) - count
        deal["bids"], deal["play"] = bids[: min(keep, len(bids))], play[: max(0, keep - len(bids))]
        rng = self.game.rng
        self.game = replay(read_record(record))
        if rng is not None:
            self.game.attach_rng(rng)
        del self.deal_moves[-count:]
        last = len(record["deals"]) - 1
        for departure in self.departures:  # a take-back of moves made before someone left
            if departure["deal"] == last:
                departure["bids"] = min(departure["bids"], len(deal["bids"]))
                departure["play"] = min(departure["play"], len(deal["play"]))
        self.takebacks += 1
        self.moves += 1

    def _deal_events(self, before: int) -> list[Event]:
        """The events of the deals dealt since there were ``before``: each as dealt."""
        game = self.game
        assert game is not None
        events = []
        for number in range(before, len(game.deals)):
            events.append(
                self._event(EventKind.DEAL, {"deal": number, **dealt(game.deals[number])})
            )
            self.deal_moves = []
        return events

    async def claim(self, client: Client, message: protocol.Claim) -> None:
        """The player on turn claims every remaining trick: the solver settles it in the
        pool; if it holds the deal is played out along its line, else play goes on."""
        seat, key = self._acting(client, message.id)
        game = self.game
        if self._acked_before(client, message.id, key):
            return
        if game is None or game.phase != Phase.PLAY or game.to_move != seat:
            raise ProtocolError("no_claim", N_("only the player on turn to play a card may claim"))
        if self._claiming:
            raise ProtocolError("claim_running", N_("a claim is being settled: wait for it"))
        moves = self.moves
        self._claiming = True
        try:
            holds, cards = await self.pool.claim(write_record(game), seat, self.id)
        finally:
            self._claiming = False
        async with self.lock:
            # The same position: no move since, and the same game (not one the table took
            # back from the store meanwhile).
            if self.moves != moves or self.game is not game:
                raise ProtocolError("stale", N_("the game moved on before the claim was settled"))
            if not holds:
                client.send(
                    protocol.error(
                        "claim_refused",
                        client.catalog.gettext(
                            N_("the claim does not hold against every defence: play goes on")
                        ),
                        id=message.id,
                        version=self.version,
                    )
                )
                return
            left = len(cards)
            events = [self._event(EventKind.CLAIM, {"seat": seat, "cards": left}, key)]
            with self._changing():
                for card in cards:
                    mover = game.to_move
                    assert mover is not None
                    events += self._apply(mover, card, None, by="claim")
                await self._commit(events)
            self._publish(events)
            client.send(protocol.ack(message.id, events[0].version))

    # ------------------------------------------------------------------ rematch

    async def offer_rematch(self, client: Client, message: protocol.Rematch) -> None:
        """Once the game is over, a player offers a rematch, or accepts or declines the one
        offered; bots accept at once. When every player has accepted, the rematch's table is
        made (:meth:`rematch_of`) and everyone here is told its id. An offer nobody settles
        lapses after the table's ``rematch_wait`` seconds."""
        seat, key = self._acting(client, message.id)
        async with self.lock:
            if self._acked_before(client, message.id, key):
                return
            if self.status != "finished":
                raise ProtocolError(
                    "not_finished", N_("a rematch is offered once the game is over")
                )
            offer = self.rematch
            if offer is None or offer["status"] in ("declined", "expired") or self._lapsed():
                if not message.accept:
                    raise ProtocolError("no_rematch", N_("there is no rematch offer to decline"))
                bots = [s for s in range(len(self.names)) if not self._person(s)]
                wait = self.settings.rematch_wait
                until = time.time() + wait
                offer = {
                    "status": "open", "by": seat, "accepted": sorted({seat, *bots}),
                    "declined": None, "until": until, "table": None,
                }  # fmt: skip
                asyncio.get_running_loop().call_later(wait, lambda: self._later(self._lapse(until)))
            elif offer["status"] == "started":
                client.send(protocol.ack(message.id, self.version, repeated=True))
                return
            elif message.accept:
                offer = dict(offer, accepted=sorted({*offer["accepted"], seat}))
            else:
                offer = dict(offer, status="declined", declined=seat)
            if offer["status"] == "open" and len(offer["accepted"]) == len(self.names):
                rematch = await self.spawn(self)
                offer = dict(offer, status="started", table=rematch.id)
            with self._changing():
                event = self._rematch_event(offer, key)
                await self._commit([event])
            self._publish([event])
            client.send(protocol.ack(message.id, event.version))

    def _later(self, work: Any) -> None:
        """Run the coroutine ``work`` as a task the table holds until it is done."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _person(self, seat: int) -> bool:
        """Whether a person holds ``seat`` (not a bot, and not a player who left)."""
        return self.bots[seat] is None and self.token_hashes[seat] is not None

    def _lapsed(self) -> bool:
        """An open offer whose time ran out while the server was down (its lapse never ran)."""
        offer = self.rematch
        return offer is not None and offer["status"] == "open" and time.time() > offer["until"]

    def _rematch_event(self, offer: dict[str, Any], key: str | None = None) -> Event:
        """The event of the rematch's new state ``offer``, which it now is."""
        self.rematch = offer
        return self._event(EventKind.REMATCH, offer, key)

    async def _lapse(self, until: float) -> None:
        """The rematch offered until ``until`` lapses, if nobody settled it meanwhile."""
        async with self.lock:
            offer = self.rematch
            if offer is None or offer["status"] != "open" or offer["until"] != until:
                return
            with self._changing():
                event = self._rematch_event(dict(offer, status="expired"))
                await self._commit([event])
            self._publish([event])

    async def say(self, client: Client, text: str) -> None:
        """A chat message from a seated player, kept with the table."""
        seat = client.seat
        if seat is None:
            raise ProtocolError("spectator", N_("spectators read the chat but do not write"))
        async with self.lock:
            with self._changing():
                event = self._event(
                    EventKind.CHAT, {"seat": seat, "name": self.names[seat], "text": text}
                )
                await self._commit([event])
            self.chat.append(self.log[-1])
            self._publish([event])

    # ------------------------------------------------------------------ the log

    def _event(self, kind: EventKind, data: dict[str, Any], client_id: str | None = None) -> Event:
        """A new event, numbered after those made but not yet stored (under the lock)."""
        self._issued += 1
        return Event(self._issued, kind, data, client_id)

    @contextlib.contextmanager
    def _changing(self) -> Iterator[None]:
        """A change to the table, made and then committed (under the lock). If anything in it
        fails — the engine refusing, the store, a cancellation — the table is put back as it
        was before, from a copy taken here (never from a read that may fail too), so that
        memory never runs ahead of the log. A failed write may yet have been stored (the
        database failing as it answered), so the table then catches up with the store before
        it takes another change (:meth:`_recover`).

        :raises ProtocolError: ``recovering`` while it catches up.
        """
        if self.released:
            raise TableError("moved", MOVED)
        if self.recovering:
            raise ProtocolError(
                "recovering",
                N_("this table is catching up with its storage: try again in a moment"),
            )
        before = self._snapshot()
        try:
            yield
        except BaseException as error:
            self._restore(before)
            if isinstance(error, LeaseLost):  # another node's now: nothing to catch up with
                if self.on_lost is not None:
                    self.on_lost()
                raise TableError("moved", MOVED) from error
            if not isinstance(error, IllegalAction):
                self.recovering = True
                self._later(self._recover())
            raise

    def _snapshot(self) -> dict[str, Any]:
        """What a change may alter, copied (the log, the chat and the ids applied change only
        once a commit has succeeded, and the versions given to events are put back to the
        last stored one)."""
        saved = {
            name: copy.copy(getattr(self, name))  # lists copied; values as they are
            for name in (*GAME_STATE, *PRESENCE)
            if name not in ("game", "departures")
        }
        saved["departures"] = [dict(d) for d in self.departures]
        game = self.game
        saved["game"] = None if game is None else (game.copy(), game.rng)
        return saved

    def _restore(self, saved: dict[str, Any]) -> None:
        for name, value in saved.items():
            if name == "game" and value is not None:
                game, rng = value
                game.rng = rng  # as it was: attach_rng would deal a due deal
                value = game
            setattr(self, name, value)
        self._issued = self.version  # events numbered by the failed change are void

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
                    self._rebuild(stored)
                self.recovering = False
                self._changed.set()
            return

    async def _commit(self, events: list[Event], extra: Write | None = None) -> None:
        """Store ``events`` (and ``extra`` rows) in one transaction, then log them; inside
        :meth:`_changing`, which undoes what was applied if the store fails."""
        rows: Write = list(extra or [])
        for event in events:
            rows += Store.event(
                self.id, event.version, event.kind.value, event.data, event.client_id
            )
        if any(e.kind == EventKind.START for e in events):
            rows += Store.status(self.id, "playing")
        finishing = self.status == "finished" and not self._finish_stored
        if finishing:
            assert self.game is not None
            summary = {
                "players": self.names,
                "scores": self.game.scores,
                "winner": self.game.winner,
                # a game with a take-back, or that a person left for good, is never rated
                "rated": self.takebacks == 0 and not self.departures,
            }
            for seat in range(self.rules.num_players):
                rows += Store.player(self._player_row(seat))
            rows += Store.status(self.id, "finished", summary)
        await self.store.write(rows)
        self._finish_stored = self._finish_stored or finishing
        if finishing:
            if self.on_end is not None:
                self.on_end()
            if any(self.accounts):
                self._later(self._count_given_away())
        for event in events:
            self.log.append(event.text())
            if event.client_id is not None:
                self.applied[event.client_id] = event.version
            self.version = event.version

    def _player_row(self, seat: int, left: bool = False) -> dict[str, Any]:
        """Who holds ``seat`` (or is leaving it for good) and their figures, for the profile
        and the ratings."""
        assert self.game is not None
        account = self.accounts[seat]
        return {
            "table_id": self.id, "seat": seat, "left": int(left), "account_id": account,
            "rated_as": account, "level": self.bots[seat], "name": self.names[seat],
            "stats": json.dumps(seat_stats(self.game, seat)),
        }  # fmt: skip

    async def _count_given_away(self) -> None:
        """Once a game with an account at it is over: its deals reviewed double dummy (when
        the bots' workers have time), and the tricks each seat gave away kept with the seat's
        figures, for its profile."""
        assert self.game is not None
        n = self.rules.num_players
        given, reviewed = [0] * n, 0
        try:
            for deal in range(len(self.game.deals)):
                entry = await self.review(deal)
                if entry.get("reviewed"):
                    reviewed += 1
                    given = [a + b for a, b in zip(given, entry["given_away"], strict=True)]
            rows: Write = []
            for seat in range(n):
                stats = seat_stats(self.game, seat) | {
                    "reviewed": reviewed, "given_away": given[seat]
                }  # fmt: skip
                rows += Store.stats(self.id, seat, stats)
            await self.store.write(rows)
        except Exception:
            log.exception("table %s: its deals could not be reviewed for the profiles", self.id)

    def _rebuild(self, stored: StoredTable) -> None:
        """Take the state of the table as ``stored`` (who is connected stays as it is)."""
        fresh = Table.load(stored, self.store, self.pool)
        for name in (*GAME_STATE, *STORED_LOG):
            setattr(self, name, getattr(fresh, name))
        if self.game is not None and self.status != "finished":
            self.game.attach_rng(secrets.SystemRandom())

    def _publish(self, events: list[Event]) -> None:
        """Send stored ``events`` to every client: the public event, and with the last one
        each receiver's view — a seat's own, a spectator's public one."""
        if not events:
            return
        game_changed = any(e.kind in GAME_KINDS for e in events)
        if game_changed:
            self.turn_started = time.monotonic()
        table = self.describe() if any(e.kind in TABLE_KINDS for e in events) else None
        last = len(events) - 1
        for i, event in enumerate(events):
            redacted = event.redact()
            if i < last or (not game_changed and table is None):
                frame = protocol.dumps(protocol.event(event.version, redacted))
                for client in self._all_clients():
                    client.send(frame)
                continue
            public = self._view_of(None)
            for seat, clients in enumerate(self.clients):
                if clients:
                    view = public
                    if public is not None and self.game is not None:
                        own = protocol.seat_json(self.game.view(seat))
                        view = {**public, **own, "undo": self._undoable(seat) > 0}
                    message = protocol.event(event.version, redacted, table=table, view=view)
                    frame = protocol.dumps(message)
                    for client in clients:
                        client.send(frame)
            if self.watchers:
                message = protocol.event(event.version, redacted, table=table, view=public)
                frame = protocol.dumps(message)
                for client in self.watchers:
                    client.send(frame)
        self._changed.set()


__all__ = ["Client", "Table"]
