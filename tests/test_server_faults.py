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


def test_a_dead_bot_worker_is_replaced_and_the_decision_made(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A worker killed (by the kernel, say) broke the process pool: every later decision
    failed, and no bot moved again."""
    import os
    import signal

    from backalley.engine import Game
    from backalley.record import write_record
    from backalley.rules import Ruleset

    game = Game(Ruleset.preset("standard", hand_sizes=[3]), seed=3)
    record = write_record(game)
    seat = game.to_move

    async def scenario() -> tuple[str, str]:
        pool = BotPool(workers=1)
        try:
            first = await pool.decide(record, seat, "easy")
            for pid in list(pool.executor._processes):  # type: ignore[attr-defined]
                os.kill(pid, signal.SIGKILL)
            await asyncio.sleep(0.5)
            return first, await pool.decide(record, seat, "easy")
        finally:
            pool.close()

    with caplog.at_level("ERROR", logger="backalley.server"):
        first, after = asyncio.run(scenario())
    legal = {str(action) for action in game.view(seat).legal_actions}
    assert first in legal and after in legal
    assert "worker died" in caplog.text


class CountingPool(BotPool):
    """A pool that counts the reviews it is asked for, each taking a while."""

    def __init__(self) -> None:
        super().__init__(executor=ThreadPoolExecutor(1))
        self.reviews = 0

    async def review(self, record: dict[str, Any], deal: int) -> dict[str, Any]:
        self.reviews += 1
        await asyncio.sleep(0.2)
        return {"deal": deal, "reviewed": True}


def test_a_deals_review_is_asked_of_the_solver_once_however_many_ask(tmp_path: Path) -> None:
    """Four browsers at a deal's end started four solver jobs for one deal."""

    async def scenario() -> tuple[int, list[dict[str, Any]]]:
        store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
        _, table, people = await a_table_of_four(store)
        pool = table.pool = CountingPool()
        rng, n = random.Random(2), 0
        while table.game is not None and len(table.game.deals) < 2:
            await play_one(table, people, rng, n)
            n += 1
        answers = await asyncio.gather(*(table.review(0) for _ in range(4)))
        again = await table.review(0)
        table.stop()
        store.close()
        return pool.reviews, [*answers, again]

    reviews, answers = asyncio.run(scenario())
    assert reviews == 1
    assert all(answer == answers[0] for answer in answers)


class SlowClaims(BotPool):
    """A pool whose claims take a while, and never hold."""

    def __init__(self) -> None:
        super().__init__(executor=ThreadPoolExecutor(1))
        self.claims = 0

    async def claim(self, record: dict[str, Any], seat: int) -> tuple[bool, list[str]]:
        self.claims += 1
        await asyncio.sleep(0.2)
        return False, []


def test_one_claim_at_a_time_is_settled(tmp_path: Path) -> None:
    from backalley.rules import Phase
    from backalley.server.protocol import Claim

    async def scenario() -> tuple[int, list[Any]]:
        store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
        _, table, people = await a_table_of_four(store)
        pool = table.pool = SlowClaims()
        rng, n = random.Random(4), 0
        while table.game is not None and table.game.phase != Phase.PLAY:
            await play_one(table, people, rng, n)
            n += 1
        seat = table.game.to_move  # type: ignore[union-attr]
        results = await asyncio.gather(
            table.claim(people[seat], Claim("c1")),
            table.claim(people[seat], Claim("c2")),
            return_exceptions=True,
        )
        table.stop()
        store.close()
        return pool.claims, results

    claims, results = asyncio.run(scenario())
    assert claims == 1
    assert results[0] is None and getattr(results[1], "code", None) == "claim_running"


def test_a_table_that_cannot_be_rebuilt_is_left_out_and_the_others_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """One bad stored table (an action the engine refuses; a log a newer server wrote)
    stopped the whole server from starting."""
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"

    async def make() -> list[str]:
        store = Store(url)
        ids = []
        for _ in range(3):
            tables, table, people = await a_table_of_four(store)
            await play_one(table, people, random.Random(1), 0)
            ids.append(table.id)
            tables.stop()
        store.close()
        return ids

    good, refused, newer = asyncio.run(make())
    store = Store(url)
    with store.engine.begin() as connection:
        last = connection.execute(
            text("SELECT MAX(seq) FROM events WHERE table_id = :t"), {"t": refused}
        ).scalar()
        data = json.dumps({"seat": 0, "action": "ZZ"})
        connection.execute(
            text("INSERT INTO events (table_id, seq, kind, data, at, schema) "
                 "VALUES (:t, :s, 'card', :d, 0, 1)"),
            {"t": refused, "s": last + 1, "d": data},
        )  # fmt: skip
        connection.execute(text("UPDATE events SET schema = 99 WHERE table_id = :t"), {"t": newer})
    store.close()

    async def restart() -> list[str]:
        store = Store(url)
        tables = Tables(store, BotPool(executor=ThreadPoolExecutor(1)))
        await tables.start()
        started = list(tables.tables)
        tables.stop()
        store.close()
        return started

    with caplog.at_level("ERROR", logger="backalley.server"):
        started = asyncio.run(restart())
    assert started == [good]
    assert refused in caplog.text and newer in caplog.text and "newer server" in caplog.text


class WrongBot(BotPool):
    """A pool whose bots answer a card while bids are due: what the engine refuses."""

    def __init__(self) -> None:
        super().__init__(executor=ThreadPoolExecutor(1))

    async def decide(self, record: dict[str, Any], seat: int, level: str) -> str:
        return "AS"


def test_a_bots_move_the_engine_refuses_is_logged_and_a_legal_one_made(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A refused bot move was tried again every second, for ever, holding the table's lock."""

    async def scenario() -> int:
        store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
        tables = Tables(store, WrongBot())
        table, secrets = await tables.create(Settings(options={"hand_sizes": [2]}, pace=0))
        for seat in range(4):
            await table.give_to_bot(seat, "easy", secrets["host"])

        def bids() -> int:
            return 0 if table.game is None else sum(len(d.bids) for d in table.game.deals)

        for _ in range(100):  # the bots bid, though each first answers a card
            if bids() >= 4:
                break
            await asyncio.sleep(0.05)
        made = bids()
        tables.stop()
        store.close()
        return made

    with caplog.at_level("ERROR", logger="backalley.server"):
        bids = asyncio.run(scenario())
    assert bids >= 4
    assert "refused" in caplog.text


def test_a_failed_change_that_numbered_its_event_first_leaves_no_gap(tmp_path: Path) -> None:
    """Leaving numbers its event before the change begins: once a failed write kept that
    number taken, and the next event came one too far."""

    async def scenario() -> tuple[list[int], int]:
        store = FlakyStore(f"sqlite:///{tmp_path / 'db.sqlite'}")
        tables = Tables(store, BotPool(executor=ThreadPoolExecutor(1)))
        table, secrets = await tables.create(Settings(options={"hand_sizes": [3]}, pace=0))
        tokens = [await table.take(s, secrets["invites"][s], f"P{s}") for s in range(2)]
        store.down = True
        with pytest.raises(ConnectionError):
            await table.leave_seat(tokens[1])
        store.down = False
        while table.recovering:
            await asyncio.sleep(0.05)
        await table.leave_seat(tokens[1])
        versions = stored_versions(store, table.id)
        tables.stop()
        store.close()
        return versions, table.version

    versions, version = asyncio.run(scenario())
    assert versions == list(range(1, version + 1))
