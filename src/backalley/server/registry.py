"""The server's tables: the open ones held in memory, rebuilt from their logs at start-up,
the finished ones loaded from the store on demand and let go when nobody watches.

A node of several (:mod:`~backalley.server.cluster`) holds only the tables it has a lease on:
it takes them (:meth:`Tables.adopt`) when it makes them, when they are asked for and nobody
holds them, or when their owner is gone; and lets them go when it stops, when another node
took them, or once a finished one has nobody at it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from backalley.cards import N_
from backalley.server.bots import BotPool
from backalley.server.daily import day_seed, dealer, load_secret
from backalley.server.settings import Settings, TableError
from backalley.server.standings import Standings
from backalley.server.statuses import TableStatus
from backalley.server.store import Store, Write
from backalley.server.table import Table, making

if TYPE_CHECKING:
    from backalley.server.cluster import Cluster

log = logging.getLogger("backalley.server")


class Tables:
    """Every table the server holds: the open ones in memory, the finished ones on demand."""

    def __init__(self, store: Store, pool: BotPool) -> None:
        self.store = store
        self.pool = pool
        self.tables: dict[str, Table] = {}
        self.standings = Standings(store.engine)
        self._rating: set[asyncio.Task[int]] = set()
        self.cluster: Cluster | None = None  #: set on a node of several
        self._loading: dict[str, asyncio.Future[Table | None]] = {}  #: being adopted
        #: tables being made here (their ids not known yet), and tables being taken, whose
        #: leases are stored before they are held
        self._making = 0
        self._taking: dict[str, int] = {}
        self._held_at: dict[str, float] = {}  #: when each table came to be held here
        #: the daily deals' secret (:func:`backalley.server.daily.load_secret`), read at start
        self.daily_secret: bytes | None = None

    def _ended(self) -> None:
        """A game's end is stored: the ratings take it in (off the event loop)."""
        task = asyncio.ensure_future(self.standings.catch_up())
        self._rating.add(task)
        task.add_done_callback(self._rating.discard)

    async def start(self) -> int:
        """Rebuild every unfinished table from its log; how many there were. A table that
        cannot be rebuilt (a log this server cannot read, an action its engine refuses) is
        said in the log and left in the store: the others start all the same. A node of
        several rebuilds only the tables it takes (its share of those nobody holds). The
        ratings then take in what they have not yet: a game that ended just before a crash,
        and all of them again when this release's anchors are new to the database."""
        self._ended()
        self.daily_secret = await asyncio.to_thread(load_secret, self.store.engine)
        if self.cluster is not None:
            return await self.cluster.start()
        for table_id in await asyncio.to_thread(self.store.unfinished):
            try:
                stored = await asyncio.to_thread(self.store.load, table_id)
                if stored is not None:
                    self._hold(making.load(stored, self.store, self.pool))
                    await self.tables[table_id].resume()
            except Exception:
                log.exception("table %s could not be rebuilt from its log: left out", table_id)
                table = self._drop(table_id)
                if table is not None:
                    table.stop()
        return len(self.tables)

    async def create(
        self, settings: Settings, extra: Callable[[str], Write] | None = None
    ) -> tuple[Table, dict[str, Any]]:
        """A new table (``extra(its id)``: more rows of its making, as a daily try's)."""
        self.sweep()
        with self.taking():
            table, secrets_ = await making.create(settings, self.store, self.pool, extra)
            self._hold(table)
        return table, secrets_

    async def _rematch(self, old: Table) -> Table:
        with self.taking():
            return self._hold(await making.rematch_of(old))

    @contextlib.contextmanager
    def taking(self, *table_ids: str) -> Iterator[None]:
        """Tables ``table_ids`` are being taken here (none: a table is being made): their
        leases may be stored before they are held, and are not ones to let go meanwhile
        (:meth:`check_held`)."""
        self._making += not table_ids
        for table_id in table_ids:
            self._taking[table_id] = self._taking.get(table_id, 0) + 1
        try:
            yield
        finally:
            self._making -= not table_ids
            for table_id in table_ids:
                self._taking[table_id] -= 1
                if not self._taking[table_id]:
                    del self._taking[table_id]

    def daily_seed(self, daily: str) -> str:
        """The seed of the daily deals ``DAY/SET``, from the secret every node shares."""
        if self.daily_secret is None:
            self.daily_secret = load_secret(self.store.engine)
        return day_seed(self.daily_secret, daily)

    def loading(self) -> bool:
        """Whether a table is being rebuilt here now."""
        return bool(self._loading)

    def _hold(self, table: Table) -> Table:
        settings = table.state.settings
        if settings.daily is not None:  # its cards and its bots' choices: the day's seed
            table.daily_seed = seed = self.daily_seed(settings.daily)
            table.dealer = dealer(seed)
        elif settings.match is not None:  # both tables of a match deal the same cards
            table.dealer = dealer(self.daily_seed("match/" + settings.match.split("/")[0]))
        table.spawn = self._rematch
        table.on_end = self._ended
        table.on_lost = lambda: self.lose(table.id, table)
        self.tables[table.id] = table
        self._held_at[table.id] = time.monotonic()
        return table

    async def get(self, table_id: str) -> Table | None:
        """The table ``table_id`` (a finished one loaded from the store, off the event loop),
        or ``None``. On a node of several, a table another node holds is refused as moved
        (its requests are forwarded there before they get here: it moved meanwhile).

        :raises TableError: ``moved``.
        """
        table = self.tables.get(table_id)
        if table is None and self.cluster is not None and len(table_id) <= 16:
            owner = await self.cluster.locate(table_id)
            if owner is not None and owner != self.cluster.node:
                raise TableError("moved", N_("this table moved to another server: try again"))
            return self.tables.get(table_id)
        if table is None and len(table_id) <= 16:
            stored = await asyncio.to_thread(self.store.load, table_id)
            table = self.tables.get(table_id)  # loaded meanwhile by another request
            if table is None and stored is not None:
                table = self._hold(making.load(stored, self.store, self.pool))
        return table

    def sweep(self) -> None:
        """Let go of the finished tables nobody is connected to: the store keeps them."""
        for table_id, table in list(self.tables.items()):
            if table.status.over and not table.presence.anyone():
                table.stop()
                self._drop(table_id)
                if self.cluster is not None:
                    self.cluster.forget(table_id, finished=True)

    def _drop(self, table_id: str) -> Table | None:
        """No longer hold ``table_id`` here: the table that was held, if one was."""
        self._held_at.pop(table_id, None)
        return self.tables.pop(table_id, None)

    # ------------------------------------------------------------------ a node of several

    async def adopt(self, table_id: str) -> Table | None:
        """Hold ``table_id``, whose lease this node has just taken: rebuilt from its log and
        going on (its driver started, a due deal dealt). ``None``, and the lease let go, when
        there is no such table or it cannot be rebuilt.

        A table still held here whose lease had lapsed (this node stalled) may have been
        changed meanwhile by a node that took it and let it go again: it is kept only if the
        store holds it as it is here; else it is let go (its clients come back with ``since``)
        and rebuilt from its log."""
        held = self.tables.get(table_id)
        if held is not None:
            async with held.lock:  # no change of its own under way: memory is the log
                as_stored = await asyncio.to_thread(self.store.fingerprint, table_id)
                if as_stored == held.fingerprint():
                    return held
                log.warning("table %s: changed elsewhere while its lease lapsed", table_id)
                self.lose(table_id, held)
        if table_id in self._loading:
            return await self._loading[table_id]
        loading: asyncio.Future[Table | None] = asyncio.get_running_loop().create_future()
        self._loading[table_id] = loading
        table = None
        assert self.cluster is not None
        try:
            table = await self.cluster.ready(table_id)  # read ahead: its owner died
            if table is None:
                stored = await asyncio.to_thread(self.store.load, table_id)
                table = None if stored is None else making.load(stored, self.store, self.pool)
            if table is not None:
                self._hold(table)
                await table.resume()
        except Exception:
            log.exception("table %s could not be rebuilt from its log: let go", table_id)
            dropped = self._drop(table_id)
            if dropped is not None:
                dropped.release()
            table = None
        finally:
            del self._loading[table_id]
            loading.set_result(table)
        if table is None:
            self.cluster.forget(table_id)
        else:
            self.cluster.taken(table_id)
        return table

    async def let_go(self, table_id: str) -> None:
        """Hand ``table_id`` over (this node is stopping): once the change under way is
        stored, its lease is let go and its clients told to reconnect, to its next owner."""
        table = self.tables.get(table_id)
        if table is None:
            return
        assert self.cluster is not None
        async with table.lock:  # no change can come meanwhile: it waits for the lock
            finished = table.status.over
            try:
                await asyncio.to_thread(self.cluster.leases.release, table_id, finished)
            except Exception as error:  # it lapses by itself
                log.warning("table %s: lease not let go (%s): it lapses", table_id, error)
            self._drop(table_id)
            table.release()
        self.cluster.let_go(table_id)

    def lose(self, table_id: str, table: Table | None = None) -> None:
        """This node no longer holds ``table_id`` (another took it, or the lease may have
        lapsed): drop it here, its clients reconnect to its owner."""
        held = self.tables.get(table_id)
        if held is not None and (table is None or held is table):
            self._drop(table_id)
            log.warning("table %s: no longer held by this node: let go", table_id)
            held.release()

    def check_held(self, leased: set[str], asked: float) -> None:
        """The tables whose leases were renewed at ``asked`` (the monotonic clock) are
        ``leased``: a table held here since before then but not leased is another node's
        now; a lease with no table here (a rebuild that failed half-way) is let go."""
        for table_id in list(self.tables):
            if table_id not in leased and self._held_at.get(table_id, 0.0) < asked:
                self.lose(table_id)
        if self._making:
            return
        assert self.cluster is not None
        for table_id in leased - set(self.tables) - set(self._loading) - set(self._taking):
            self.cluster.forget(table_id)

    def lobby(self) -> dict[str, list[dict[str, Any]]]:
        """The public tables: those waiting for players (oldest first: they have waited
        longest) and those being played, to watch."""
        public = [t for t in self.tables.values() if t.settings.public]
        return {
            "waiting": [t.lobby_entry() for t in public if t.status == TableStatus.OPEN],
            # a team match's table is not watched: a player at its other table would see the
            # cards they are about to be dealt
            "playing": [
                t.lobby_entry()
                for t in public
                if t.status == TableStatus.PLAYING and t.settings.match is None
            ],
        }

    async def finished(self, limit: int = 50, account: str | None = None) -> list[dict[str, Any]]:
        """The latest finished games of public tables (and ``account``'s own), newest first:
        id, rules, players, scores, winner."""
        return await asyncio.to_thread(self.store.finished, limit, account)

    async def rename(self, account: str, name: str) -> None:
        """A deleted account's games: under ``name`` wherever they are shown (on every node)."""
        await asyncio.to_thread(self.store.rename, account, name)
        self.rename_here(account, name)
        if self.cluster is not None:
            self.cluster.renamed(account, name)

    def rename_here(self, account: str, name: str) -> None:
        for table in self.tables.values():
            table.rename(account, name)

    async def call(self, table_id: str, method: str, *args: Any) -> Any:
        """``table.method(*args)`` on whichever node holds the table.

        :raises TableError: the table's refusal, no such table, or its node unreachable.
        """
        if self.cluster is not None:  # found, and taken when nobody holds it, once
            owner = await self.cluster.locate(table_id)
            if owner is not None and owner != self.cluster.node:
                return await self.cluster.relay.call(owner, table_id, method, *args)
            table = self.tables.get(table_id)
        else:
            table = await self.get(table_id)
        if table is None:
            raise TableError("no_table", N_("there is no such table"))
        return await getattr(table, method)(*args)

    def stop(self) -> None:
        for table in self.tables.values():
            table.stop()
        for task in self._rating:
            task.cancel()


__all__ = ["Tables"]
