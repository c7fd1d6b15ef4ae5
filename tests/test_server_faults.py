"""The server's own failure paths, in process: a database that fails for a write and then
comes back, a group commit holding one bad write, a table that cannot be loaded. In each,
nothing acknowledged is lost, nothing is applied twice, and the stored log stays gap-free."""

from __future__ import annotations

import asyncio
import json
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from backalley.i18n import translator
from backalley.record import verify
from backalley.server.bots import BotPool
from backalley.server.protocol import Act, ProtocolError
from backalley.server.store import Store, Write
from backalley.server.tables import Settings, Table, Tables


class FlakyStore(Store):
    """A real store on SQLite whose writes fail while ``down`` (as a lost database does)."""

    down = False
    failed = 0

    async def write(self, rows: Write) -> None:
        if self.down:
            self.failed += 1
            raise ConnectionError("the database is gone")
        await super().write(rows)

    def load(self, table_id: str) -> Any:
        if self.down:
            raise ConnectionError("the database is gone")
        return super().load(table_id)


class Person:
    """A connection as a table sees it, keeping what it is sent."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.catalog = translator("en")
        self.sent: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any] | str) -> None:
        self.sent.append(json.loads(message) if isinstance(message, str) else message)

    def close(self, code: int) -> None:
        pass


def stored_versions(store: Store, table_id: str) -> list[int]:
    with store.engine.connect() as connection:
        rows = connection.execute(
            text("SELECT seq FROM events WHERE table_id = :t ORDER BY seq"), {"t": table_id}
        )
        return [row.seq for row in rows]


async def a_table_of_four(store: Store) -> tuple[Tables, Table, list[Person]]:
    tables = Tables(store, BotPool(executor=ThreadPoolExecutor(1)))
    table, secrets = await tables.create(Settings(options={"hand_sizes": [3, 2]}, pace=0))
    people = [Person(seat) for seat in range(4)]
    for seat, person in enumerate(people):
        await table.take(seat, secrets["invites"][seat], f"P{seat}")
        await table.join(person, None)
    return tables, table, people


async def play_one(table: Table, people: list[Person], rng: random.Random, n: int) -> str:
    """Send the next action of the seat to move (client id ``n``); the action sent."""
    assert table.game is not None and table.game.to_move is not None
    seat = table.game.to_move
    view = table.game.view(seat)
    action = str(rng.choice(view.legal_actions))
    await table.act(people[seat], Act(str(n), action, None))
    return action


def test_a_write_that_fails_leaves_the_table_as_stored_and_play_goes_on(tmp_path: Path) -> None:
    """The database fails for one action, then comes back: the action is not applied, the
    table catches up with the store, the next one gets the next version; restarted, the
    table is the same game (once, the failed rollback re-read the database, failed again,
    kept the unstored action and numbered the next event one too far)."""

    async def scenario() -> tuple[list[int], int, dict[str, Any], Any]:
        store = FlakyStore(f"sqlite:///{tmp_path / 'db.sqlite'}")
        tables, table, people = await a_table_of_four(store)
        rng = random.Random(1)
        for n in range(5):
            await play_one(table, people, rng, n)
        before = (table.version, len(table.log), json.dumps(table._full_record()))
        store.down = True
        with pytest.raises(ConnectionError):
            await play_one(table, people, rng, 100)
        assert (table.version, len(table.log), json.dumps(table._full_record())) == before
        with pytest.raises(ProtocolError) as refused:  # catching up: no change meanwhile
            await play_one(table, people, rng, 101)
        assert refused.value.code == "recovering"
        store.down = False
        while table.recovering:
            await asyncio.sleep(0.05)
        n = 200
        while not table.game.is_over:  # type: ignore[union-attr]
            await play_one(table, people, rng, n)
            n += 1
        record = table._full_record()
        versions = stored_versions(store, table.id)
        again = Table.load(store.load(table.id), store, table.pool)
        tables.stop()
        store.close()
        return versions, table.version, record, again

    versions, version, record, again = asyncio.run(scenario())
    assert versions == list(range(1, version + 1))  # gap-free
    assert verify(record).exit_code == 0
    assert again._full_record() == record  # restarted: the same game


def test_one_bad_write_in_a_group_commit_fails_alone(tmp_path: Path) -> None:
    """Two tables' writes in one transaction: table a's event with a version already stored,
    table b's harmless; only a's fails (once, b's was lost with it)."""
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")

    async def scenario() -> tuple[BaseException | None, BaseException | None]:
        await store.write(Store.event("a", 1, "chat", {"text": "first"}, None))
        loop = asyncio.get_running_loop()
        bad, good = loop.create_future(), loop.create_future()
        store._commit([  # one batch, as the writer thread makes when both are waiting
            (Store.event("a", 1, "chat", {"text": "again"}, None), bad),
            (Store.event("b", 1, "chat", {"text": "fine"}, None), good),
        ])  # fmt: skip
        results = await asyncio.gather(bad, good, return_exceptions=True)
        return tuple(r if isinstance(r, BaseException) else None for r in results)  # type: ignore[return-value]

    bad, good = asyncio.run(scenario())
    assert bad is not None and good is None
    assert stored_versions(store, "b") == [1]
    store.close()
