"""The server's storage: its tables in SQL (:mod:`~.schema`), the rows it writes, typed
(:mod:`~.writes`), and the :class:`Store` that writes them in group commits and reads tables
back (:mod:`~.store`)."""

from backalley.server.store.schema import (
    EVENT_SCHEMA,
    accounts,
    daily_entries,
    default_url,
    devices,
    events,
    facts,
    game_players,
    in_memory,
    leases,
    matches,
    metadata,
    open_engine,
    rating_history,
    ratings,
    seats,
    sessions,
    tables,
)
from backalley.server.store.store import (
    LeaseLost,
    Store,
    StoredEvent,
    StoredTable,
    StoreError,
    fingerprint,
)
from backalley.server.store.writes import Write

__all__ = [
    "EVENT_SCHEMA",
    "LeaseLost",
    "Store",
    "StoreError",
    "StoredEvent",
    "StoredTable",
    "Write",
    "accounts",
    "daily_entries",
    "default_url",
    "devices",
    "events",
    "facts",
    "fingerprint",
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
