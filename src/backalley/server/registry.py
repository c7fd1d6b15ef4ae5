"""The server's tables: the open ones held in memory, rebuilt from their logs at start-up,
the finished ones loaded from the store on demand and let go when nobody watches."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from backalley.server.bots import BotPool
from backalley.server.settings import Settings
from backalley.server.standings import Standings
from backalley.server.store import Store
from backalley.server.tables import Table

log = logging.getLogger("backalley.server")


class Tables:
    """Every table the server holds: the open ones in memory, the finished ones on demand."""

    def __init__(self, store: Store, pool: BotPool) -> None:
        self.store = store
        self.pool = pool
        self.tables: dict[str, Table] = {}
        self.standings = Standings(store.engine)
        self._rating: set[asyncio.Task[int]] = set()

    def _ended(self) -> None:
        """A game's end is stored: the ratings take it in (off the event loop)."""
        task = asyncio.ensure_future(self.standings.catch_up())
        self._rating.add(task)
        task.add_done_callback(self._rating.discard)

    async def start(self) -> int:
        """Rebuild every unfinished table from its log; how many there were. A table that
        cannot be rebuilt (a log this server cannot read, an action its engine refuses) is
        said in the log and left in the store: the others start all the same."""
        for table_id in await asyncio.to_thread(self.store.unfinished):
            try:
                stored = await asyncio.to_thread(self.store.load, table_id)
                if stored is not None:
                    self._hold(Table.load(stored, self.store, self.pool))
                    await self.tables[table_id].resume()
            except Exception:
                log.exception("table %s could not be rebuilt from its log: left out", table_id)
                table = self.tables.pop(table_id, None)
                if table is not None:
                    table.stop()
        return len(self.tables)

    async def create(self, settings: Settings) -> tuple[Table, dict[str, Any]]:
        self.sweep()
        table, secrets_ = await Table.create(settings, self.store, self.pool)
        self._hold(table)
        return table, secrets_

    async def _rematch(self, old: Table) -> Table:
        return self._hold(await Table.rematch_of(old))

    def _hold(self, table: Table) -> Table:
        table.spawn = self._rematch
        table.on_end = self._ended
        self.tables[table.id] = table
        return table

    async def get(self, table_id: str) -> Table | None:
        """The table ``table_id`` (a finished one loaded from the store, off the event loop),
        or ``None``."""
        table = self.tables.get(table_id)
        if table is None and len(table_id) <= 16:
            stored = await asyncio.to_thread(self.store.load, table_id)
            table = self.tables.get(table_id)  # loaded meanwhile by another request
            if table is None and stored is not None:
                table = self._hold(Table.load(stored, self.store, self.pool))
        return table

    def sweep(self) -> None:
        """Let go of the finished tables nobody is connected to: the store keeps them."""
        for table_id, table in list(self.tables.items()):
            if table.status in ("finished", "ended") and not any(table._all_clients()):
                table.stop()
                del self.tables[table_id]

    def lobby(self) -> dict[str, list[dict[str, Any]]]:
        """The public tables: those waiting for players (oldest first: they have waited
        longest) and those being played, to watch."""
        public = [t for t in self.tables.values() if t.settings.public]
        return {
            "waiting": [t.lobby_entry() for t in public if t.status == "open"],
            "playing": [t.lobby_entry() for t in public if t.status == "playing"],
        }

    async def finished(self, limit: int = 50) -> list[dict[str, Any]]:
        """The latest finished games, newest first: id, rules, players, scores, winner."""
        return await asyncio.to_thread(self.store.finished, limit)

    async def rename(self, account: str, name: str) -> None:
        """A deleted account's games: under ``name`` wherever they are shown."""
        await asyncio.to_thread(self.store.rename, account, name)
        for table in self.tables.values():
            table.rename(account, name)

    def stop(self) -> None:
        for table in self.tables.values():
            table.stop()
        for task in self._rating:
            task.cancel()


__all__ = ["Tables"]
