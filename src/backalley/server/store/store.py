"""Where the server keeps its tables: SQL through SQLAlchemy — SQLite by default, PostgreSQL by
URL.

A table's events (``events``: table, sequence number, kind, data, client id) are its truth;
the ``tables`` and ``seats`` rows only say how to open it again (its settings, the hashes of its
secrets, who sits where). Writes (:mod:`~backalley.server.store.writes`) go through one writer
thread that commits whatever is waiting in one transaction (a group commit): under load many
tables' actions share a commit, and each caller learns its own write is durable before it
broadcasts anything.
"""

from __future__ import annotations

import asyncio
import json
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import insert, or_, select, update
from sqlalchemy.engine import Connection

from backalley.server.leases import fence
from backalley.server.statuses import UNFINISHED, TableStatus
from backalley.server.store.schema import (
    EVENT_SCHEMA,
    accounts,
    events,
    game_players,
    open_engine,
    seats,
    tables,
)
from backalley.server.store.writes import (
    Claimed,
    DailyEntry,
    DailyResult,
    EventRow,
    NewSeat,
    NewTable,
    PlayerRow,
    SeatColumns,
    Stats,
    Status,
    Write,
    fenced_tables,
    made_tables,
)


class StoreError(Exception):
    """A write the database did not take: down, full, slow past its timeout, or refusing
    it. Nothing of it was stored, unless the database failed as it answered."""

    @classmethod
    def of(cls, error: BaseException) -> StoreError:
        """The database's ``error`` in one line, kept as the cause."""
        failed = cls(f"{type(error).__name__}: {str(error).splitlines()[0]}")
        failed.__cause__ = error
        return failed


class LeaseLost(StoreError):
    """A write for tables this node no longer holds (:mod:`~backalley.server.leases`):
    another node holds them now, or may take them at any moment. Nothing of it was stored."""

    def __init__(self, table_ids: set[str]) -> None:
        super().__init__(f"this node no longer holds table(s) {', '.join(sorted(table_ids))}")
        self.table_ids = table_ids


@dataclass(frozen=True)
class StoredEvent:
    """One row of a table's log."""

    seq: int
    kind: str
    data: dict[str, Any]
    client_id: str | None
    at: float = 0.0  #: when it was stored (the wall clock)


@dataclass(frozen=True)
class StoredTable:
    """What it takes to open a table again: its row, its seats and its log."""

    id: str
    config: dict[str, Any]
    host_hash: bytes
    watch_hash: bytes
    status: str
    invite_hashes: list[bytes]
    token_hashes: list[bytes | None]
    events: list[StoredEvent]
    away_at: list[float | None] = field(default_factory=list)  #: per seat, see ``seats``
    account_ids: list[str | None] = field(default_factory=list)  #: per seat, see ``seats``
    #: the deleted accounts among the seats', and the name their seats are shown under
    renamed: dict[str, str] = field(default_factory=dict)

    def fingerprint(self) -> tuple[Any, ...]:
        """:meth:`Store.fingerprint` of the table as it was loaded."""
        last = self.events[-1].seq if self.events else None
        return fingerprint(self.status, last, self.token_hashes, self.away_at, self.account_ids)


def fingerprint(
    status: str | None,
    last: int | None,
    token_hashes: list[bytes | None],
    away_at: list[float | None],
    account_ids: list[str | None],
) -> tuple[Any, ...]:
    """What may change of a stored table, in short: its status, its log's last version
    (``None``: no event yet) and its seats, to tell one copy of the table from another."""
    return status, last, list(zip(token_hashes, away_at, account_ids, strict=True))


class Store:
    """The tables' storage. Reads are direct (start-up, history); writes are queued to the
    writer thread and awaited with :meth:`write`. A store of one of several nodes (``node``)
    fences every write of a table's rows with the node's lease on it."""

    def __init__(self, url: str, node: str | None = None) -> None:
        self.engine = open_engine(url)
        self.node = node
        self._queue: queue.SimpleQueue[tuple[Write, asyncio.Future[None]] | None] = (
            queue.SimpleQueue()
        )
        self._writer = threading.Thread(target=self._write_loop, name="store", daemon=True)
        self._writer.start()

    # ---------------------------------------------------------------- writing

    @staticmethod
    def new_table(
        table_id: str, config: dict[str, Any], host: bytes, watch: bytes, invites: list[bytes]
    ) -> Write:
        """The rows of a new table."""
        rows: Write = [NewTable(table_id, config, host, watch)]
        return rows + [NewSeat(table_id, s, h) for s, h in enumerate(invites)]

    @staticmethod
    def event(
        table_id: str, seq: int, kind: str, data: dict[str, Any], client_id: str | None
    ) -> Write:
        """One event of a table's log."""
        return [EventRow(table_id, seq, kind, data, client_id)]

    @staticmethod
    def token(
        table_id: str, seat: int, token_hash: bytes | None, account_id: str | None = None
    ) -> Write:
        """A seat's token hash and account, set when a person takes it (``None``: left)."""
        return [SeatColumns(table_id, seat, {"token_hash": token_hash, "account_id": account_id})]

    @staticmethod
    def account(table_id: str, seat: int, account_id: str) -> Write:
        """A guest's seat claimed by an account."""
        return [SeatColumns(table_id, seat, {"account_id": account_id})]

    @staticmethod
    def claimed(table_id: str, seat: int, account_id: str) -> Write:
        """A finished game's guest seat claimed by an account: its profile counts it (the
        ratings, which took the game in as it ended, do not change)."""
        return [Claimed(table_id, seat, account_id)]

    @staticmethod
    def stats(table_id: str, seat: int, stats: dict[str, Any]) -> Write:
        """A finished game's seat's figures, once its deals are reviewed."""
        return [Stats(table_id, seat, stats)]

    @staticmethod
    def player(row: dict[str, Any]) -> Write:
        """One ``game_players`` row: who held a seat of a game, or left it."""
        return [PlayerRow(row["table_id"], row)]

    @staticmethod
    def away(table_id: str, seat: int, at: float | None) -> Write:
        """When ``seat``'s person went (the wall clock), or ``None``: back."""
        return [SeatColumns(table_id, seat, {"away_at": at})]

    @staticmethod
    def status(table_id: str, status: TableStatus, summary: dict[str, Any] | None = None) -> Write:
        """A table's new status: ``playing``, ``ended``, or ``finished`` with the game's
        ``summary``."""
        return [Status(table_id, status, summary)]

    @staticmethod
    def daily_entry(
        table_id: str, daily: str, account_id: str | None, name: str, ranked: bool
    ) -> Write:
        """A try at the daily deals ``DAY/SET`` at table ``table_id``: an account's first of
        the day's set is its ranked one (unique: a second fails its transaction)."""
        day, set_name = daily.split("/", 1)
        key = f"{daily}/{account_id}" if ranked and account_id is not None else None
        return [DailyEntry(table_id, day, set_name, account_id, name, key)]

    @staticmethod
    def daily_result(table_id: str, deals: list[tuple[str, int]]) -> Write:
        """A daily table's game over: its deals' keys and the person's side's points."""
        return [DailyResult(table_id, deals)]

    async def write(self, rows: Write) -> None:
        """Commit ``rows`` in one transaction (maybe shared with other tables' writes).

        :raises StoreError: when the commit failed (the database's error is its cause);
            nothing was stored, or the database failed as it answered.
        """
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put((rows, future))
        await future

    def _write_loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            batch = [item]
            while len(batch) < 500:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)
                    break
                batch.append(more)
            self._commit(batch)

    def _commit(self, batch: list[tuple[Write, asyncio.Future[None]]]) -> None:
        """Commit ``batch`` in one transaction; if that fails, each write in a transaction of
        its own, so that one caller's bad write (a version already stored) fails alone."""
        outcome = self._transaction([rows for rows, _ in batch])
        if outcome is not None and len(batch) > 1:
            for rows, future in batch:
                _report(future, self._transaction([rows]))
            return
        for _, future in batch:
            _report(future, outcome)

    def _transaction(self, writes: list[Write]) -> BaseException | None:
        """Run ``writes`` in one transaction: ``None``, or the database's error."""
        try:
            with self.engine.begin() as connection:
                if self.node is not None:  # first: a stale writer changes no row at all
                    lost = fence(connection, self.node, fenced_tables(writes) - made_tables(writes))
                    if lost:
                        raise LeaseLost(lost)
                log = []
                for rows in writes:
                    for row in rows:
                        if isinstance(row, EventRow):
                            log.append(row.values())  # every event in one insert
                        else:
                            row.run(connection, self.node)
                if log:
                    connection.execute(insert(events), log)
        except LeaseLost as error:
            return error
        except Exception as error:  # reported to the waiting callers
            return StoreError.of(error)
        return None

    async def transaction(self, work: Callable[[Connection], Any]) -> Any:
        """``work(connection)`` in a transaction of its own, off the event loop and beside
        the writer's queue (accounts, profiles: rows no table's log depends on).

        :raises StoreError: when the database fails (its error is the cause).
        """

        def run() -> Any:
            with self.engine.begin() as connection:
                return work(connection)

        try:
            return await asyncio.to_thread(run)
        except Exception as error:
            raise StoreError.of(error) from error

    def close(self) -> None:
        """Finish the queued writes and stop the writer."""
        self._queue.put(None)
        self._writer.join(timeout=10)
        self.engine.dispose()

    # ---------------------------------------------------------------- reading

    def unfinished(self) -> list[str]:
        """The ids of the tables whose game is not over (nor ended by its host)."""
        with self.engine.connect() as connection:
            query = select(tables.c.id).where(tables.c.status.in_(UNFINISHED))
            return [row.id for row in connection.execute(query)]

    def finished(self, limit: int, account: str | None = None) -> list[dict[str, Any]]:
        """The latest ``limit`` finished games anyone may see, newest first: id, rules and
        summary. A private game is listed only to an ``account`` that played it."""
        seen = tables.c.public == 1
        if account is not None:
            played = select(game_players.c.table_id).where(game_players.c.account_id == account)
            seen = or_(seen, tables.c.id.in_(played))
        with self.engine.connect() as connection:
            query = (
                select(tables.c.id, tables.c.config, tables.c.summary)
                .where(tables.c.status == TableStatus.FINISHED, tables.c.summary.is_not(None), seen)
                .order_by(tables.c.finished.desc())
                .limit(limit)
            )
            return [
                {"id": row.id, "rules": json.loads(row.config)["rules"]} | json.loads(row.summary)
                for row in connection.execute(query)
            ]

    def played(self, table_id: str, account: str) -> bool:
        """Whether ``account`` held a seat of ``table_id``'s game (to its end, or until it
        left it for good)."""
        with self.engine.connect() as connection:
            query = select(game_players.c.seat).where(
                game_players.c.table_id == table_id, game_players.c.account_id == account
            )
            return connection.execute(query.limit(1)).first() is not None

    def load(self, table_id: str) -> StoredTable | None:
        """A table with its whole log, or ``None`` when there is no such table."""
        with self.engine.connect() as connection:
            row = connection.execute(select(tables).where(tables.c.id == table_id)).first()
            if row is None:
                return None
            seat_rows = connection.execute(
                select(seats).where(seats.c.table_id == table_id).order_by(seats.c.seat)
            ).all()
            log = connection.execute(
                select(events).where(events.c.table_id == table_id).order_by(events.c.seq)
            ).all()
            held = [s.account_id for s in seat_rows if s.account_id is not None]
            renamed = dict(
                connection.execute(
                    select(accounts.c.id, accounts.c.name).where(
                        accounts.c.id.in_(held), accounts.c.deleted.is_not(None)
                    )
                ).all()
            ) if held else {}  # fmt: skip
        return StoredTable(
            id=row.id,
            config=json.loads(row.config),
            host_hash=row.host_hash,
            watch_hash=row.watch_hash,
            status=row.status,
            invite_hashes=[s.invite_hash for s in seat_rows],
            token_hashes=[s.token_hash for s in seat_rows],
            events=list(_events(log)),
            away_at=[s.away_at for s in seat_rows],
            account_ids=[s.account_id for s in seat_rows],
            renamed=renamed,
        )

    def fingerprint(self, table_id: str) -> tuple[Any, ...]:
        """What :meth:`load` would read of ``table_id`` that may change, in short: its
        status, its log's last version, and its seats (to tell a copy loaded earlier from
        the table as stored now)."""
        with self.engine.connect() as connection:
            status = connection.execute(
                select(tables.c.status).where(tables.c.id == table_id)
            ).scalar()
            last = connection.execute(
                select(events.c.seq).where(events.c.table_id == table_id)
                .order_by(events.c.seq.desc()).limit(1)
            ).scalar()  # fmt: skip
            seat_rows = connection.execute(
                select(seats.c.token_hash, seats.c.away_at, seats.c.account_id)
                .where(seats.c.table_id == table_id).order_by(seats.c.seat)
            ).all()  # fmt: skip
        return fingerprint(
            status,
            last,
            [row.token_hash for row in seat_rows],
            [row.away_at for row in seat_rows],
            [row.account_id for row in seat_rows],
        )

    def rename(self, account_id: str, name: str) -> None:
        """Show every finished game ``account_id`` played under ``name`` (a deleted account's
        games): in their summaries and the players' rows. The log is never rewritten: a
        table shows a deleted account's seats under the name it is given by the accounts
        (see :attr:`StoredTable.renamed`)."""
        with self.engine.begin() as connection:
            held = connection.execute(
                select(seats.c.table_id, seats.c.seat).where(seats.c.account_id == account_id)
            ).all()
            for table_id, seat in held:
                summary = connection.execute(
                    select(tables.c.summary).where(tables.c.id == table_id)
                ).scalar()
                if summary:
                    data = json.loads(summary)
                    data["players"][seat] = name
                    connection.execute(
                        update(tables).where(tables.c.id == table_id)
                        .values(summary=json.dumps(data))
                    )  # fmt: skip
            connection.execute(
                update(game_players).where(game_players.c.account_id == account_id)
                .values(name=name)
            )  # fmt: skip


def _events(rows: Any) -> Iterator[StoredEvent]:
    for row in rows:
        schema = row.schema or 1
        if schema > EVENT_SCHEMA:
            raise ValueError(
                f"event {row.seq} is stored in form {schema}; this server reads up to "
                f"{EVENT_SCHEMA}: a newer server wrote it"
            )
        yield StoredEvent(row.seq, row.kind, json.loads(row.data), row.client_id, row.at)


def _report(future: asyncio.Future[None], error: BaseException | None) -> None:
    future.get_loop().call_soon_threadsafe(_settle, future, error)


def _settle(future: asyncio.Future[None], error: BaseException | None) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)


__all__ = ["LeaseLost", "Store", "StoreError", "StoredEvent", "StoredTable", "fingerprint"]
