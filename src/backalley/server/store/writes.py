"""What the store writes, one typed row each: a new table, an event of a log, a seat's
columns, a player's row, a table's status, a finished game's figures. A :data:`Write` is a
list of them, committed in one transaction; each row knows its table (for the lease fence of
a node of several: only a table's holder may change its rows) and how it is run."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

from sqlalchemy import insert, update
from sqlalchemy.engine import Connection

from backalley.server.leases import lease_new
from backalley.server.statuses import TableStatus
from backalley.server.store.schema import (
    EVENT_SCHEMA,
    daily_entries,
    events,
    game_players,
    matches,
    seats,
    tables,
)


@dataclass(frozen=True)
class NewTable:
    """A table's row, with its first lease (its maker's, on a node of several); not fenced:
    nobody holds it yet."""

    FENCED: ClassVar[bool] = False
    table_id: str
    config: dict[str, Any]
    host_hash: bytes
    watch_hash: bytes
    created: float = field(default_factory=time.time)

    def run(self, connection: Connection, node: str | None) -> None:
        connection.execute(
            insert(tables).values(
                id=self.table_id, created=self.created, config=json.dumps(self.config),
                host_hash=self.host_hash, watch_hash=self.watch_hash, status=TableStatus.OPEN,
                public=int(bool(self.config.get("public"))),
            )
        )  # fmt: skip
        if node is not None:
            lease_new(connection, node, self.table_id)


@dataclass(frozen=True)
class NewSeat:
    FENCED: ClassVar[bool] = True
    table_id: str
    seat: int
    invite_hash: bytes

    def run(self, connection: Connection, node: str | None) -> None:
        connection.execute(
            insert(seats).values(table_id=self.table_id, seat=self.seat,
                                 invite_hash=self.invite_hash)
        )  # fmt: skip


@dataclass(frozen=True)
class EventRow:
    """One event of a table's log (the rows of a transaction's events go in one insert)."""

    FENCED: ClassVar[bool] = True
    table_id: str
    seq: int
    kind: str
    data: dict[str, Any]
    client_id: str | None
    at: float = field(default_factory=time.time)

    def values(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id, "seq": self.seq, "kind": self.kind,
            "data": json.dumps(self.data, separators=(",", ":")), "client_id": self.client_id,
            "at": self.at, "schema": EVENT_SCHEMA,
        }  # fmt: skip

    def run(self, connection: Connection, node: str | None) -> None:
        connection.execute(insert(events), [self.values()])


@dataclass(frozen=True)
class SeatColumns:
    """Columns of one seat's row: its token hash and account, or when its person went."""

    FENCED: ClassVar[bool] = True
    table_id: str
    seat: int
    columns: dict[str, Any]

    def run(self, connection: Connection, node: str | None) -> None:
        connection.execute(
            update(seats)
            .where(seats.c.table_id == self.table_id, seats.c.seat == self.seat)
            .values(**self.columns)
        )


@dataclass(frozen=True)
class PlayerRow:
    """Who held a seat of a game (or left it for good), with their figures."""

    FENCED: ClassVar[bool] = True
    table_id: str
    row: dict[str, Any]

    def run(self, connection: Connection, node: str | None) -> None:
        connection.execute(insert(game_players).values(**self.row))


@dataclass(frozen=True)
class Status:
    """A table's new status: ``playing``, ``ended``, or ``finished`` with the game's summary
    (then the players' rows end with it)."""

    FENCED: ClassVar[bool] = True
    table_id: str
    status: TableStatus
    summary: dict[str, Any] | None = None

    def run(self, connection: Connection, node: str | None) -> None:
        values: dict[str, Any] = {"status": self.status}
        if self.status == TableStatus.FINISHED:
            values["finished"] = time.time()
            values["summary"] = json.dumps(self.summary)
        connection.execute(update(tables).where(tables.c.id == self.table_id).values(**values))
        if self.status == TableStatus.FINISHED:
            connection.execute(
                update(game_players)
                .where(game_players.c.table_id == self.table_id)
                .values(ended=values["finished"])
            )


@dataclass(frozen=True)
class Claimed:
    """A finished game's guest seat claimed by an account: its profile counts it. Not
    fenced: it changes no log, and may come after the table's holder let it go."""

    FENCED: ClassVar[bool] = False
    table_id: str
    seat: int
    account_id: str

    def run(self, connection: Connection, node: str | None) -> None:
        connection.execute(
            update(game_players)
            .where(
                game_players.c.table_id == self.table_id,
                game_players.c.seat == self.seat,
                game_players.c.account_id.is_(None),
            )
            .values(account_id=self.account_id)
        )


@dataclass(frozen=True)
class Stats:
    """A finished game's seat's figures, once its deals are reviewed (not fenced, as
    :class:`Claimed`: its reviews may end after its holder let it go)."""

    FENCED: ClassVar[bool] = False
    table_id: str
    seat: int
    stats: dict[str, Any]

    def run(self, connection: Connection, node: str | None) -> None:
        connection.execute(
            update(game_players)
            .where(
                game_players.c.table_id == self.table_id,
                game_players.c.seat == self.seat,
                game_players.c.left == 0,
            )
            .values(stats=json.dumps(self.stats))
        )


@dataclass(frozen=True)
class DailyEntry:
    """A try at a day's set of the daily deals, made with its table (not fenced, as
    :class:`NewTable`). ``ranked_key`` is unique: a second ranked try of an account fails
    the transaction, and its table is not made."""

    FENCED: ClassVar[bool] = False
    table_id: str
    day: str
    set_name: str
    account_id: str | None
    name: str
    ranked_key: str | None
    started: float = field(default_factory=time.time)

    def run(self, connection: Connection, node: str | None) -> None:
        connection.execute(
            insert(daily_entries).values(
                table_id=self.table_id, day=self.day, set_name=self.set_name,
                account_id=self.account_id, name=self.name, ranked_key=self.ranked_key,
                started=self.started,
            )
        )  # fmt: skip


@dataclass(frozen=True)
class DailyResult:
    """A daily table's game over: its deals' results, in the transaction of its end."""

    FENCED: ClassVar[bool] = True
    table_id: str
    deals: list[tuple[str, int]]

    def run(self, connection: Connection, node: str | None) -> None:
        connection.execute(
            update(daily_entries)
            .where(daily_entries.c.table_id == self.table_id)
            .values(finished=time.time(), deals=json.dumps(self.deals))
        )


@dataclass(frozen=True)
class NewMatch:
    """A team match's row, made with its second table (not fenced, as :class:`NewTable`)."""

    FENCED: ClassVar[bool] = False
    table_id: str  #: its second table's: the row is written with it
    match_id: str
    first: str
    config: dict[str, Any]
    created: float = field(default_factory=time.time)

    def run(self, connection: Connection, node: str | None) -> None:
        connection.execute(
            insert(matches).values(id=self.match_id, created=self.created,
                                   config=json.dumps(self.config), table_1=self.first,
                                   table_2=self.table_id)
        )  # fmt: skip


Row = (
    NewTable | NewSeat | EventRow | SeatColumns | PlayerRow | Status | Claimed | Stats
    | DailyEntry | DailyResult | NewMatch
)  # fmt: skip
Write = list[Row]  #: rows committed in one transaction


def fenced_tables(writes: list[Write]) -> set[str]:
    """The tables whose rows ``writes`` change, that only their holder may change."""
    return {row.table_id for rows in writes for row in rows if row.FENCED}


def made_tables(writes: list[Write]) -> set[str]:
    """The tables ``writes`` make (with their first lease, this node's)."""
    return {row.table_id for rows in writes for row in rows if isinstance(row, NewTable)}


__all__ = [
    "Claimed",
    "DailyEntry",
    "DailyResult",
    "EventRow",
    "NewMatch",
    "NewSeat",
    "NewTable",
    "PlayerRow",
    "Row",
    "SeatColumns",
    "Stats",
    "Status",
    "Write",
    "fenced_tables",
    "made_tables",
]
