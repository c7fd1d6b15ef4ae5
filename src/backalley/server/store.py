"""Where the server keeps its tables: SQL through SQLAlchemy — SQLite by default, PostgreSQL by
URL.

A table's events (``events``: table, sequence number, kind, data, client id) are its truth;
the ``tables`` and ``seats`` rows only say how to open it again (its settings, the hashes of its
secrets, who sits where). Writes go through one writer thread that commits whatever is waiting
in one transaction (a group commit): under load many tables' actions share a commit, and each
caller learns its own write is durable before it broadcasts anything.
"""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column,
    Float,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    insert,
    inspect,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine

from backalley.server.leases import fence, lease_new


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


metadata = MetaData()

tables = Table(
    "tables",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("created", Float, nullable=False),
    Column("config", Text, nullable=False),  # JSON: the rules and the table's settings
    Column("host_hash", LargeBinary, nullable=False),
    Column("watch_hash", LargeBinary, nullable=False),
    Column("status", String(8), nullable=False),  # open, playing, finished, ended
    Column("finished", Float),
    Column("summary", Text),  # JSON, once finished: players, scores, winner (the history list)
    # Whether the ratings have taken the finished game in: null not yet, 1 rated, 0 not rated.
    Column("rating", Integer),
    # 1: listed to everyone (the lobby, finished games, profiles); 0: only to its players
    # (the setting ``public``, kept apart from ``config`` to be queried).
    Column("public", Integer),
)
#: The tables whose game is not over are looked for often (start-up, and every node's scan
#: for tables whose owner is gone): by status, not through every finished game.
Index("tables_status", tables.c.status)

seats = Table(
    "seats",
    metadata,
    Column("table_id", String(16), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("invite_hash", LargeBinary, nullable=False),
    Column("token_hash", LargeBinary),  # set when a person takes the seat
    # When the seat's person was last seen going (the wall clock), null while connected: so
    # that a restart re-arms the stand-in's grace where it had got to.
    Column("away_at", Float),
    Column("account_id", String(16)),  # the account the seat belongs to, null: a guest's
)

accounts = Table(
    "accounts",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("name", String(40), nullable=False),  # once deleted, a neutral name
    # What the name looks like (accounts.skeleton): no two accounts look alike.
    Column("skeleton", String(160), nullable=False, unique=True),
    Column("password", Text),  # its argon2id hash; null once the account is deleted
    Column("created", Float, nullable=False),
    Column("deleted", Float),
)

sessions = Table(
    "sessions",
    metadata,
    Column("hash", LargeBinary, primary_key=True),  # of the cookie's secret
    Column("account_id", String(16), nullable=False, index=True),
    Column("csrf", String(32), nullable=False),  # sent back in a header by every change
    Column("created", Float, nullable=False),
)

#: The devices (browsers) that have signed in to an account: the hash of the device cookie's
#: secret, for each account it signed in to. A known device is not locked out of its account
#: by a stranger's wrong guesses (OWASP's device cookies; docs/protocol.md, limits).
devices = Table(
    "devices",
    metadata,
    Column("hash", LargeBinary, primary_key=True),
    Column("account_id", String(16), primary_key=True),
    Column("created", Float, nullable=False),
)

#: Who played a finished game, seat by seat, with what the profile counts: one row for
#: whoever held the seat at the end (``left`` 0), one for a person who left it for good
#: during the game (``left`` 1, written when they left).
game_players = Table(
    "game_players",
    metadata,
    Column("table_id", String(16), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("left", Integer, primary_key=True, autoincrement=False),
    Column("account_id", String(16), index=True),  # now (a guest may claim the seat later)
    Column("rated_as", String(16)),  # the account as the game ended: what ratings read
    Column("level", String(8)),  # a bot's level; null: a person
    Column("name", String(40)),
    Column("ended", Float),  # the game's stored end; null for a leaver's row until then
    Column("stats", Text),  # JSON: the seat's deals, contracts, points, double-dummy losses
)

ratings = Table(
    "ratings",
    metadata,
    Column("account_id", String(16), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
)

rating_history = Table(
    "rating_history",
    metadata,
    Column("account_id", String(16), primary_key=True),
    Column("table_id", String(16), primary_key=True),
    Column("at", Float, nullable=False),  # the game's stored end
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
)

events = Table(
    "events",
    metadata,
    Column("table_id", String(16), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(8), nullable=False),
    Column("data", Text, nullable=False),  # JSON
    Column("client_id", String(40)),  # "seat:id" of the message that caused it, for replays
    Column("at", Float, nullable=False),
    Column("schema", Integer),  # EVENT_SCHEMA when stored; rows stored before it: 1
)

#: Which node holds which table, when several share the database (server/leases.py): the
#: node, and when its lease lapses (the database's clock, seconds since the epoch).
leases = Table(
    "leases",
    metadata,
    Column("table_id", String(16), primary_key=True),
    Column("node", String(64), index=True),
    Column("expires", Float, nullable=False),
)

#: The version of the events' stored form: a server refuses a log written by a newer one.
EVENT_SCHEMA = 1


def default_url() -> str:
    """SQLite in the user's data directory."""
    from platformdirs import user_data_path

    folder = user_data_path("backalley")
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'server.db'}"


def in_memory(url: str) -> bool:
    """Whether ``url`` names an SQLite database in memory (``sqlite://``,
    ``sqlite:///:memory:``): a database of each connection's own, so no server's."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    return parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:")


def open_engine(url: str) -> Engine:
    """An SQLAlchemy engine for ``url``; SQLite in write-ahead-log mode.

    ``synchronous=NORMAL`` with WAL keeps every commit through a crash of the process (what
    the crash test kills); only a power cut may lose the last commits.
    """
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(connection: Any, _record: Any) -> None:
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

    else:
        if url.startswith("postgresql://"):
            url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
        engine = create_engine(url, pool_pre_ping=True)
    metadata.create_all(engine)
    with engine.begin() as connection:  # a database made before the index was
        connection.execute(text("CREATE INDEX IF NOT EXISTS tables_status ON tables (status)"))
    if _add_columns(
        engine, "tables", {"summary": "TEXT", "rating": "INTEGER", "public": "INTEGER"}
    ):
        _fill_public(engine)
    _add_columns(engine, "events", {"schema": "INTEGER"})
    _add_columns(engine, "seats", {"away_at": "FLOAT", "account_id": "VARCHAR(16)"})
    return engine


def _add_columns(engine: Engine, table: str, wanted: dict[str, str]) -> bool:
    """Add the columns a database made by an older server lacks: whether any was."""
    have = {c["name"] for c in inspect(engine).get_columns(table)}
    added = False
    for name, kind in wanted.items():
        if name not in have:
            with engine.begin() as connection:
                connection.execute(text(f"ALTER TABLE {table} ADD COLUMN {name} {kind}"))
            added = True
    return added


def _fill_public(engine: Engine) -> None:
    """The ``public`` column of the tables an older server made, from their settings."""
    with engine.begin() as connection:
        rows = connection.execute(
            select(tables.c.id, tables.c.config).where(tables.c.public.is_(None))
        ).all()
        for row in rows:
            public = int(bool(json.loads(row.config).get("public")))
            connection.execute(update(tables).where(tables.c.id == row.id).values(public=public))


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


Write = list[tuple[str, Any]]  # (operation, arguments) run in one transaction


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
        rows: Write = [
            (
                "table",
                dict(
                    id=table_id,
                    created=time.time(),
                    config=json.dumps(config),
                    host_hash=host,
                    watch_hash=watch,
                    status="open",
                    public=int(bool(config.get("public"))),
                ),
            )
        ]
        rows += [
            ("seat", dict(table_id=table_id, seat=s, invite_hash=h)) for s, h in enumerate(invites)
        ]
        return rows

    @staticmethod
    def event(
        table_id: str, seq: int, kind: str, data: dict[str, Any], client_id: str | None
    ) -> Write:
        """One event of a table's log."""
        row = dict(
            table_id=table_id,
            seq=seq,
            kind=kind,
            data=json.dumps(data, separators=(",", ":")),
            client_id=client_id,
            at=time.time(),
            schema=EVENT_SCHEMA,
        )
        return [("event", row)]

    @staticmethod
    def token(
        table_id: str, seat: int, token_hash: bytes | None, account_id: str | None = None
    ) -> Write:
        """A seat's token hash and account, set when a person takes it (``None``: left)."""
        columns = {"token_hash": token_hash, "account_id": account_id}
        return [("seat_set", (table_id, seat, columns))]

    @staticmethod
    def account(table_id: str, seat: int, account_id: str) -> Write:
        """A guest's seat claimed by an account."""
        return [("seat_set", (table_id, seat, {"account_id": account_id}))]

    @staticmethod
    def claimed(table_id: str, seat: int, account_id: str) -> Write:
        """A finished game's guest seat claimed by an account: its profile counts it (the
        ratings, which took the game in as it ended, do not change)."""
        return [("claimed", (table_id, seat, account_id))]

    @staticmethod
    def stats(table_id: str, seat: int, stats: dict[str, Any]) -> Write:
        """A finished game's seat's figures, once its deals are reviewed."""
        return [("stats", (table_id, seat, stats))]

    @staticmethod
    def player(row: dict[str, Any]) -> Write:
        """One ``game_players`` row: who held a seat of a game, or left it."""
        return [("player", row)]

    @staticmethod
    def away(table_id: str, seat: int, at: float | None) -> Write:
        """When ``seat``'s person went (the wall clock), or ``None``: back."""
        return [("seat_set", (table_id, seat, {"away_at": at}))]

    @staticmethod
    def status(table_id: str, status: str, summary: dict[str, Any] | None = None) -> Write:
        """A table's new status: ``playing``, or ``finished`` with the game's ``summary``."""
        return [("status", (table_id, status, summary))]

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
                    lost = fence(connection, self.node, _fenced(writes) - _made(writes))
                    if lost:
                        raise LeaseLost(lost)
                log = []
                for rows in writes:
                    log += [row for op, row in rows if op == "event"]
                    _run(connection, [(op, row) for op, row in rows if op != "event"], self.node)
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
            query = select(tables.c.id).where(tables.c.status.in_(("open", "playing")))
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
                .where(tables.c.status == "finished", tables.c.summary.is_not(None), seen)
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


#: The writes of a table's own rows, each checked to come from the table's owner: its log,
#: its seats, its status and its players. A finished game's figures (``stats``, ``claimed``)
#: are not: they change no log, and its reviews may end after its owner let it go. Nor is a
#: new table's row: its maker takes its first lease in the same transaction.
_FENCED = ("event", "seat", "seat_set", "status", "player")


def _fenced(writes: list[Write]) -> set[str]:
    """The tables whose rows ``writes`` change, that only their owner may change."""
    return {
        _table_of(arguments)
        for rows in writes
        for operation, arguments in rows
        if operation in _FENCED
    }


def _made(writes: list[Write]) -> set[str]:
    """The tables ``writes`` make (with their first lease, this node's)."""
    return {args["id"] for rows in writes for operation, args in rows if operation == "table"}


def _table_of(arguments: Any) -> str:
    """The table a write's row belongs to."""
    if isinstance(arguments, dict):
        return str(arguments["table_id"])
    return str(arguments[0])


def _run(connection: Connection, rows: Write, node: str | None = None) -> None:
    for operation, arguments in rows:
        if operation == "table":
            connection.execute(insert(tables).values(**arguments))
            if node is not None:  # a new table is its maker's
                lease_new(connection, node, arguments["id"])
        elif operation == "seat":
            connection.execute(insert(seats).values(**arguments))
        elif operation == "seat_set":  # columns of one seat's row
            table_id, seat, columns = arguments
            connection.execute(
                update(seats)
                .where(seats.c.table_id == table_id, seats.c.seat == seat)
                .values(**columns)
            )
        elif operation == "claimed":
            table_id, seat, account_id = arguments
            connection.execute(
                update(game_players)
                .where(
                    game_players.c.table_id == table_id,
                    game_players.c.seat == seat,
                    game_players.c.account_id.is_(None),
                )
                .values(account_id=account_id)
            )
        elif operation == "stats":
            table_id, seat, stats = arguments
            connection.execute(
                update(game_players)
                .where(
                    game_players.c.table_id == table_id,
                    game_players.c.seat == seat,
                    game_players.c.left == 0,
                )
                .values(stats=json.dumps(stats))
            )
        elif operation == "player":
            connection.execute(insert(game_players).values(**arguments))
        elif operation == "status":
            table_id, status, summary = arguments
            values: dict[str, Any] = {"status": status}
            if status == "finished":
                values["finished"] = time.time()
                values["summary"] = json.dumps(summary)
            connection.execute(update(tables).where(tables.c.id == table_id).values(**values))
            if status == "finished":  # the players' rows end when the game does
                connection.execute(
                    update(game_players)
                    .where(game_players.c.table_id == table_id)
                    .values(ended=values["finished"])
                )
        else:  # pragma: no cover - a programming error
            raise ValueError(operation)


def _report(future: asyncio.Future[None], error: BaseException | None) -> None:
    future.get_loop().call_soon_threadsafe(_settle, future, error)


def _settle(future: asyncio.Future[None], error: BaseException | None) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)


__all__ = [
    "EVENT_SCHEMA",
    "LeaseLost",
    "Store",
    "StoredEvent",
    "StoredTable",
    "default_url",
    "fingerprint",
    "in_memory",
    "open_engine",
]
