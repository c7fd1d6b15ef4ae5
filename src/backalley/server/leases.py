"""Which node holds which table, when several ``backalley serve`` nodes share one PostgreSQL
database (docs/deploy.md).

A table has at most one owner at a time: the node whose lease on it, a row of ``leases``,
has not expired. Every time here is the database's clock (``clock_timestamp()``), never a
node's, so that nodes whose clocks disagree still agree on who holds what. A lease is taken
by compare-and-set (an update of the row only where it is free, lapsed or already ours, or
the table's first row), renewed by its owner every :data:`RENEW` seconds, and lapses
:data:`LEASE` seconds after its last renewal: a node killed outright loses its tables that
long after.

Every write of a table's log is fenced in its own transaction (:func:`fence`): it reads the
table's lease with a share lock, and fails with :class:`~backalley.server.store.LeaseLost`
unless this node holds it; a node taking the table waits for that transaction to end, so it
loads a log with everything the old owner stored. The ``(table, version)`` key of the log is
the last guard against a second writer all the same.

Locks on several leases are always taken in the order of their table ids (the renewal and
the fence alike), so that the writer and the renewal never wait for each other in a cycle.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from typing import Any

from sqlalchemy import bindparam, text
from sqlalchemy.engine import Connection, Engine

from backalley.server.statuses import UNFINISHED

LEASE = 2.0  #: seconds a lease lasts after its last renewal
RENEW = 0.5  #: seconds between a node's renewals of all its leases
SCAN = 0.5  #: seconds between a node's looks for tables whose owner is gone

NOW = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION)"
#: The statuses of a table whose game goes on without anyone, as SQL.
_UNFINISHED = "(" + ", ".join(f"'{status.value}'" for status in UNFINISHED) + ")"


class LeaseBusy(Exception):
    """A table's lease changed hands under every look: ask again in a moment."""


class Leases:
    """The leases of one node, ``node``, on the database of ``engine`` (each method is one
    short transaction; call them off the event loop)."""

    def __init__(self, engine: Engine, node: str) -> None:
        self.engine = engine
        self.node = node

    def acquire(self, table_id: str) -> str | None:
        """Take ``table_id``'s lease if it is free, lapsed or ours: the node that holds it
        now (this one if taken), or ``None`` when there is no such table.

        A lease another node holds live is only read, never locked: a node looking up the
        owner of a table for a client does not wait on the owner's writes, nor hold them up.

        :raises LeaseBusy: when the lease changed hands under every look (it is in flux).
        """
        for _ in range(5):
            with self.engine.connect() as connection:
                row = connection.execute(
                    text(f"SELECT node, expires > {NOW} AS live FROM leases WHERE table_id = :t"),
                    {"t": table_id},
                ).first()
            if row is not None and row.live and row.node not in (None, self.node):
                return str(row.node)
            with self.engine.begin() as connection:
                if _take(connection, self.node, [table_id]):
                    return self.node
                if (
                    row is None
                    and not connection.execute(
                        text("SELECT 1 FROM tables WHERE id = :t"), {"t": table_id}
                    ).first()
                ):
                    return None
        raise LeaseBusy(table_id)

    def acquire_many(self, table_ids: list[str]) -> set[str]:
        """Take the leases of those of ``table_ids`` that are free or lapsed (or never had
        one), in one transaction: the ids taken."""
        if not table_ids:
            return set()
        with self.engine.begin() as connection:
            return _take(connection, self.node, table_ids)

    def owner(self, table_id: str) -> str | None:
        """The node whose lease on ``table_id`` is live, or ``None``."""
        with self.engine.connect() as connection:
            node = connection.execute(
                text(f"SELECT node FROM leases WHERE table_id = :t AND expires > {NOW}"),
                {"t": table_id},
            ).scalar()
        return None if node is None else str(node)

    def held_by(self, node: str) -> list[str]:
        """The unfinished tables whose live leases ``node`` holds."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                text(
                    f"SELECT leases.table_id FROM leases JOIN tables ON tables.id = "
                    f"leases.table_id WHERE leases.node = :n AND leases.expires > {NOW} "
                    f"AND tables.status IN {_UNFINISHED}"
                ),
                {"n": node},
            )
            return [row.table_id for row in rows]

    def lapses_in(self, table_id: str) -> float:
        """Seconds until ``table_id``'s lease lapses (0: it has, or there is none)."""
        with self.engine.connect() as connection:
            left = connection.execute(
                text(f"SELECT expires - {NOW} FROM leases WHERE table_id = :t"),
                {"t": table_id},
            ).scalar()
        return max(0.0, float(left or 0.0))

    def renew(self) -> set[str]:
        """Renew every lease this node holds: the ids of the tables it holds now (a lease
        another node took since is not among them)."""
        with self.engine.begin() as connection:
            rows = connection.execute(
                text(
                    f"UPDATE leases SET expires = {NOW} + :ttl WHERE table_id IN "
                    f"(SELECT table_id FROM leases WHERE node = :me ORDER BY table_id "
                    f"FOR UPDATE) AND node = :me RETURNING table_id"
                ),
                {"me": self.node, "ttl": LEASE},
            )
            return {row.table_id for row in rows}

    def release(self, table_id: str, finished: bool = False) -> None:
        """Let go of ``table_id``: free for any node at once (a finished table's lease is
        forgotten: it is taken again only when someone asks for the table)."""
        with self.engine.begin() as connection:
            if finished:
                connection.execute(
                    text("DELETE FROM leases WHERE table_id = :t AND node = :me"),
                    {"t": table_id, "me": self.node},
                )
            else:
                connection.execute(
                    text(
                        "UPDATE leases SET node = NULL, expires = 0 "
                        "WHERE table_id = :t AND node = :me"
                    ),
                    {"t": table_id, "me": self.node},
                )

    def release_all(self) -> int:
        """Let go of every lease this node holds (it stops, and writes no more): how many."""
        with self.engine.begin() as connection:
            let_go = connection.execute(
                text("UPDATE leases SET node = NULL, expires = 0 WHERE node = :me"),
                {"me": self.node},
            )
            return int(let_go.rowcount)

    def orphans(self, limit: int = 500) -> list[str]:
        """Unfinished tables nobody holds: their owner's lease lapsed or was let go, or they
        never had one (a database a single node used before). The leases of finished tables
        that lapsed are forgotten on the way."""
        with self.engine.begin() as connection:
            connection.execute(
                text(
                    f"DELETE FROM leases USING tables WHERE tables.id = leases.table_id "
                    f"AND leases.expires < {NOW} AND tables.status NOT IN {_UNFINISHED}"
                )
            )
            query = text(
                f"SELECT tables.id FROM tables LEFT JOIN leases ON leases.table_id = tables.id "
                f"WHERE tables.status IN {_UNFINISHED} AND (leases.table_id IS NULL "
                f"OR leases.expires < {NOW}) LIMIT :n"
            )
            rows = connection.execute(query, {"n": limit})
            return [row.id for row in rows]

    def live_nodes(self) -> set[str]:
        """The nodes holding a live lease now."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                text(f"SELECT DISTINCT node FROM leases WHERE expires > {NOW}")
            )
            return {str(row.node) for row in rows if row.node is not None}


def share(orphans: list[str], nodes: int) -> list[str]:
    """This node's share of the ``orphans`` when ``nodes`` nodes are up: a random slice of
    about one node's part, so that the survivors of a node spread its tables between them
    (whoever asks first takes a table all the same: the lease decides)."""
    if not orphans:
        return []
    part = math.ceil(len(orphans) / max(1, nodes))
    return random.sample(orphans, min(len(orphans), part))


def _take(connection: Connection, node: str, table_ids: list[str]) -> set[str]:
    """Inside a transaction: take for ``node`` the leases of those of ``table_ids`` that are
    free, lapsed or its own already, and the first lease of those that never had one (the
    tables that exist): the ids taken. A live lease of another node's is not changed, nor
    locked (an update whose condition fails locks no row)."""
    ids: Any = bindparam("ids", expanding=True)
    values = {"ids": table_ids, "me": node, "ttl": LEASE}
    taken = connection.execute(
        text(
            f"UPDATE leases SET node = :me, expires = {NOW} + :ttl WHERE table_id IN :ids "
            f"AND (node = :me OR node IS NULL OR expires < {NOW}) RETURNING table_id"
        ).bindparams(ids),
        values,
    ).all()
    first = connection.execute(
        text(
            f"INSERT INTO leases (table_id, node, expires) "
            f"SELECT id, CAST(:me AS VARCHAR(64)), {NOW} + :ttl FROM tables WHERE id IN :ids "
            f"ON CONFLICT (table_id) DO NOTHING RETURNING table_id"
        ).bindparams(ids),
        values,
    ).all()
    return {row.table_id for row in (*taken, *first)}


def lease_new(connection: Connection, node: str, table_id: str) -> None:
    """Inside the transaction that makes table ``table_id``: its first lease, ``node``'s."""
    connection.execute(
        text(f"INSERT INTO leases (table_id, node, expires) VALUES (:t, :me, {NOW} + :ttl)"),
        {"t": table_id, "me": node, "ttl": LEASE},
    )


def fence(connection: Connection, node: str, table_ids: Iterable[str]) -> set[str]:
    """Inside a write's transaction: those of ``table_ids`` whose lease ``node`` does not
    hold now, the others locked (shared) until the transaction ends."""
    wanted = sorted(set(table_ids))
    if not wanted:
        return set()
    query = text(
        f"SELECT table_id FROM leases WHERE table_id IN :ids AND node = :me "
        f"AND expires > {NOW} ORDER BY table_id FOR SHARE"
    ).bindparams(bindparam("ids", expanding=True))
    held = {row.table_id for row in connection.execute(query, {"ids": wanted, "me": node})}
    return set(wanted) - held


__all__ = ["LEASE", "RENEW", "SCAN", "LeaseBusy", "Leases", "fence", "lease_new", "share"]
