"""The server's tables in SQL (SQLAlchemy Core): their columns, and what makes a database an
older server wrote into one this server reads (the columns added since, filled in)."""

from __future__ import annotations

import json
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
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine

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

#: What the database holds about itself, by name: ``anchors``, the bots' anchors its
#: ratings were computed with (server/standings.py).
facts = Table(
    "facts",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", Text, nullable=False),
)

#: The tries at the daily deals (server/daily.py): one row a table, made with it; its deals'
#: results once its game is over. ``ranked_key`` (``DAY/SET/ACCOUNT``) is set on an account's
#: one ranked try of a day's set, and unique.
daily_entries = Table(
    "daily_entries",
    metadata,
    Column("table_id", String(16), primary_key=True),
    Column("day", String(10), nullable=False),
    Column("set_name", String(16), nullable=False),
    Column("account_id", String(16)),  # null: a guest's
    Column("name", String(40), nullable=False),
    Column("ranked_key", String(64), unique=True),
    Column("started", Float, nullable=False),
    Column("finished", Float),
    Column("deals", Text),  # JSON, once finished: [[key, points], …] for the person's side
    Index("daily_entries_day", "day", "set_name", "finished"),
)

#: Team matches (server/matches.py): two tables that play the same deals, seats turned.
matches = Table(
    "matches",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("created", Float, nullable=False),
    Column("config", Text, nullable=False),  # JSON: the tables' settings
    Column("table_1", String(16), nullable=False),
    Column("table_2", String(16), nullable=False),
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


__all__ = [
    "EVENT_SCHEMA",
    "accounts",
    "daily_entries",
    "default_url",
    "devices",
    "events",
    "facts",
    "game_players",
    "in_memory",
    "leases",
    "matches",
    "metadata",
    "open_engine",
    "rating_history",
    "ratings",
    "seats",
    "sessions",
    "tables",
]
