"""The server's own failure paths, in process: a database that fails for a write and then
comes back, a group commit holding one bad write, a table that cannot be loaded. In each,
nothing acknowledged is lost, nothing is applied twice, and the stored log stays gap-free."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import random
import signal
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from backalley.i18n import translator
from backalley.record import verify
from backalley.server.bots import BotPool
from backalley.server.client import Seat
from backalley.server.protocol import Act, ProtocolError
from backalley.server.registry import Tables
from backalley.server.settings import Settings, TableError
from backalley.server.store import Store, Write
from backalley.server.table import Table, making, messages
from backalley.server.table.records import full_record
from server_support import (
    POSTGRES,
    Server,
    database,
    finished_record,
    full,
    new_table,
    run,
    small_disk,
    stored_log,
)

pytestmark = pytest.mark.server

__all__ = ["small_disk"]  # a fixture


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
        await messages.join(table, person, None)
    return tables, table, people


async def play_one(table: Table, people: list[Person], rng: random.Random, n: int) -> str:
    """Send the next action of the seat to move (client id ``n``); the action sent."""
    assert table.state.game is not None and table.state.game.to_move is not None
    seat = table.state.game.to_move
    view = table.state.game.view(seat)
    action = str(rng.choice(view.legal_actions))
    await messages.act(table, people[seat], Act(str(n), action, None))
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
        before = (table.version, len(table.log), json.dumps(full_record(table.state, table.names)))
        store.down = True
        with pytest.raises(ConnectionError):
            await play_one(table, people, rng, 100)
        assert (
            table.version,
            len(table.log),
            json.dumps(full_record(table.state, table.names)),
        ) == before
        with pytest.raises(ProtocolError) as refused:  # catching up: no change meanwhile
            await play_one(table, people, rng, 101)
        assert refused.value.code == "recovering"
        store.down = False
        while table.recovering:
            await asyncio.sleep(0.05)
        n = 200
        while not table.state.game.is_over:  # type: ignore[union-attr]
            await play_one(table, people, rng, n)
            n += 1
        record = full_record(table.state, table.names)
        versions = stored_versions(store, table.id)
        again = making.load(store.load(table.id), store, table.pool)
        tables.stop()
        store.close()
        return versions, table.version, record, again

    versions, version, record, again = asyncio.run(scenario())
    assert versions == list(range(1, version + 1))  # gap-free
    assert verify(record).exit_code == 0
    assert full_record(again.state, again.names) == record  # restarted: the same game


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


class CountingPool(BotPool):
    """A pool that counts the reviews it is asked for, each taking a while."""

    def __init__(self) -> None:
        super().__init__(executor=ThreadPoolExecutor(1))
        self.reviews = 0

    async def review(self, record: dict[str, Any], deal: int, key: str = "") -> dict[str, Any]:
        self.reviews += 1
        await asyncio.sleep(0.2)
        return {"deal": deal, "reviewed": True}


async def past_the_first_deal(store: Store) -> tuple[Table, CountingPool]:
    """A table of four people whose first deal is over, reviews asked of a counting pool."""
    _, table, people = await a_table_of_four(store)
    pool = table.pool = CountingPool()
    rng, n = random.Random(2), 0
    while table.state.game is not None and len(table.state.game.deals) < 2:
        await play_one(table, people, rng, n)
        n += 1
    return table, pool


def test_a_deals_review_is_asked_of_the_solver_once_however_many_ask(tmp_path: Path) -> None:
    """Four browsers at a deal's end started four solver jobs for one deal."""

    async def scenario() -> tuple[int, list[dict[str, Any]]]:
        store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
        table, pool = await past_the_first_deal(store)
        answers = await asyncio.gather(*(table.review(0) for _ in range(4)))
        again = await table.review(0)
        table.stop()
        store.close()
        return pool.reviews, [*answers, again]

    reviews, answers = asyncio.run(scenario())
    assert reviews == 1
    assert all(answer == answers[0] for answer in answers)


def test_a_new_review_may_be_refused_before_it_starts_and_a_kept_one_never_is(
    tmp_path: Path,
) -> None:
    """The review route had no throttle: an address may now start so many reviews (solver
    jobs) a minute; the refusal comes before any job starts, and a review already made is
    served whatever the throttle says."""

    def refuse() -> None:
        raise TableError("too_many", "too many reviews")

    async def scenario() -> tuple[int, int, dict[str, Any], dict[str, Any]]:
        store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
        table, pool = await past_the_first_deal(store)
        with pytest.raises(TableError):
            await table.review(0, refuse)
        refused_jobs = pool.reviews
        made = await table.review(0)
        kept = await table.review(0, refuse)
        table.stop()
        store.close()
        return refused_jobs, pool.reviews, made, kept

    refused_jobs, jobs, made, kept = asyncio.run(scenario())
    assert refused_jobs == 0 and jobs == 1
    assert kept == made


class SlowClaims(BotPool):
    """A pool whose claims take a while, and never hold."""

    def __init__(self) -> None:
        super().__init__(executor=ThreadPoolExecutor(1))
        self.claims = 0

    async def claim(
        self, record: dict[str, Any], seat: int, key: str = ""
    ) -> tuple[bool, list[str]]:
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
        while table.state.game is not None and table.state.game.phase != Phase.PLAY:
            await play_one(table, people, rng, n)
            n += 1
        seat = table.state.game.to_move  # type: ignore[union-attr]
        first = asyncio.ensure_future(messages.claim(table, people[seat], Claim("c1")))
        results: list[Any] = []
        try:
            messages.claim(table, people[seat], Claim("c2"))
        except ProtocolError as refused:
            results.append(refused.code)
        results.append(await first)
        sent = [(m["type"], m.get("code")) for m in people[seat].sent if m.get("id") == "c1"]
        table.stop()
        store.close()
        return pool.claims, [*results, sent]

    claims, results = asyncio.run(scenario())
    assert claims == 1
    assert results == ["claim_running", None, [("pending", None), ("error", "claim_refused")]]


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

    async def decide(
        self, record: dict[str, Any], seat: int, level: str, key: str = "", seed: str | None = None
    ) -> str:
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
            return (
                0 if table.state.game is None else sum(len(d.bids) for d in table.state.game.deals)
            )

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


# ---------------------------------------------------------------------------------------
# Against a real server (``backalley serve`` in its own process) and a real database: the
# fault is made outside the server — its database refusing connections, slow, its disk
# full, a worker killed, a client gone in the middle of a message — never by patching it.


def an_acked_game(
    server: Server, people: int = 2, **settings: Any
) -> tuple[dict[str, Any], list[str]]:
    """A table of ``people`` people and bots (level easy) in the other seats."""
    settings.setdefault("hand_sizes", [3, 3, 2, 2, 1])
    return new_table(server.base, names=people, bots="easy", **settings)


Acks = dict[str, tuple[int, int, str]]  # "seat:id" → (version, seat, action)


async def play_through(
    seat: Seat, rng: random.Random, acks: Acks, refused: Counter[str], pause: float = 0.05
) -> None:
    """Play random legal actions until the game is over; an action the server could not
    store is sent again, with the same client id, until it is acknowledged (as the page
    does)."""
    while True:
        await seat.until(lambda s: s.view is not None and (s.my_turn or s.over))
        if seat.over:
            return
        await asyncio.sleep(pause)  # a person's pace, so that the fault comes mid-game
        action, id = rng.choice(seat.view["legal"]), seat._new_id()  # type: ignore[index]
        while True:
            answer = await seat.reply(await seat.act(action, id))
            if answer["type"] == "ack":
                acks[f"{seat.seat}:{id}"] = (answer["version"], seat.seat, action)  # type: ignore[assignment]
                break
            assert answer["code"] in ("recovering", "not_stored"), answer
            refused[answer["code"]] += 1
            await asyncio.sleep(0.2)


async def play_with_a_fault(
    server: Server,
    table: dict[str, Any],
    tokens: list[str],
    fault: Any,
    after: int = 3,
) -> tuple[Acks, Counter[str]]:
    """Play the game at ``table`` to its end, calling ``fault()`` (a coroutine function)
    once ``after`` actions have been acknowledged; the acknowledgements and refusals."""
    acks: Acks = {}
    refused: Counter[str] = Counter()
    rng = random.Random(5)

    async def inject() -> None:
        while len(acks) < after:
            await asyncio.sleep(0.05)
        await fault()

    async with contextlib.AsyncExitStack() as stack:
        seats = [
            await stack.enter_async_context(Seat.connect(server.base, table["id"], token=token))
            for token in tokens
        ]
        await asyncio.gather(inject(), *(play_through(s, rng, acks, refused) for s in seats))
    return acks, refused


def assert_nothing_lost_or_doubled(
    server: Server, url: str, table: dict[str, Any], acks: Acks
) -> None:
    """Every acknowledged action stored at the version its ack named, none stored twice,
    the log gap-free, the game finished and its record accepted by ``backalley verify``."""
    log = stored_log(url, table["id"])
    assert [row.seq for row in log] == list(range(1, len(log) + 1))  # gap-free
    by_client = Counter(row.client_id for row in log if row.client_id)
    assert all(n == 1 for n in by_client.values()), by_client.most_common(3)  # none twice
    at = {row.seq: row for row in log}
    for client_id, (version, seat, action) in acks.items():
        row = at[version]
        assert row.client_id == client_id and json.loads(row.data)["action"] == action
        assert json.loads(row.data)["seat"] == seat
    record = finished_record(server.base, table)
    assert verify(record).exit_code == 0


def admin(url: str, *statements: str) -> None:
    """Run ``statements`` on the database server of ``url`` (as the tests' own role)."""
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            for statement in statements:
                connection.execute(text(statement))
    finally:
        engine.dispose()


@pytest.fixture
def postgres(tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A fresh PostgreSQL database of its own (the server of the other tests goes on)."""
    return database("postgres", tmp_path, request)


def test_the_database_refusing_every_connection_for_ten_seconds_loses_nothing(
    postgres: str,
) -> None:
    """PostgreSQL closes the server's connections to its database and refuses new ones for
    ten seconds: actions are refused meanwhile (the people's resent, with their ids), the
    bots wait, and the game then finishes with every acknowledged action stored once."""
    name = postgres.rsplit("/", 1)[1]
    server = Server.start(postgres)
    try:
        table, tokens = an_acked_game(server)

        async def outage() -> None:
            admin(
                POSTGRES or "",
                f"ALTER DATABASE {name} ALLOW_CONNECTIONS false",
                f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'",
            )
            await asyncio.sleep(10)
            admin(POSTGRES or "", f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")

        acks, refused = run(play_with_a_fault(server, table, tokens, outage))
        assert refused, "the outage was never felt"
        assert_nothing_lost_or_doubled(server, postgres, table, acks)
        assert "Traceback" not in "".join(server.output)
    finally:
        server.stop()


def test_a_database_taking_a_second_a_commit_slows_the_game_and_fails_nothing(
    postgres: str,
) -> None:
    """Every write takes a second (a trigger sleeps in PostgreSQL) for eight seconds: the
    game goes on, slower, no action is refused, and nothing is lost or doubled."""
    server = Server.start(postgres)
    try:
        table, tokens = an_acked_game(server)
        slow = (
            "CREATE FUNCTION slow() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(1); "
            "RETURN NULL; END $$ LANGUAGE plpgsql",
            "CREATE TRIGGER slow AFTER INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION slow()",
        )
        versions: list[int] = []

        async def slowly() -> None:
            admin(postgres, *slow)
            versions.append(len(stored_log(postgres, table["id"])))
            await asyncio.sleep(8)
            versions.append(len(stored_log(postgres, table["id"])))
            admin(postgres, "DROP TRIGGER slow ON events")

        acks, refused = run(play_with_a_fault(server, table, tokens, slowly))
        assert not refused
        assert 0 < versions[1] - versions[0] <= 9, versions  # about a commit a second
        assert_nothing_lost_or_doubled(server, postgres, table, acks)
    finally:
        server.stop()


def test_the_disk_filling_up_under_sqlite_loses_nothing(small_disk: Path) -> None:
    """SQLite's disk fills up (a file fills the rest of a small file system) for three
    seconds or more, then space is freed: writes fail meanwhile ("database or disk is
    full"; a person's move is sent again, a bot's tried again), and the game then finishes
    with every acknowledged action stored once."""
    url = f"sqlite:///{small_disk / 'server.db'}"
    server = Server.start(url)
    try:
        table, tokens = an_acked_game(server)

        async def fill() -> None:
            with full(small_disk):  # for 3 s, and until a write has failed
                await asyncio.sleep(3)
                for _ in range(200):
                    if "disk is full" in "".join(server.output):
                        break
                    await asyncio.sleep(0.1)

        acks, _ = run(play_with_a_fault(server, table, tokens, fill))
        assert "disk is full" in "".join(server.output)  # felt, by a person or a bot
        assert_nothing_lost_or_doubled(server, url, table, acks)
    finally:
        server.stop()


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


def test_a_bot_worker_killed_mid_game_is_replaced_and_the_game_finishes(tmp_path: Path) -> None:
    """Every bot worker process of a running server is killed (SIGKILL) in the middle of a
    game of one person and three bots: the server logs it, starts new workers, and the
    bots play on to the end."""
    url = f"sqlite:///{tmp_path / 'server.db'}"
    server = Server.start(url)
    try:
        table, tokens = an_acked_game(server, people=1)
        killed: list[int] = []

        async def kill_workers() -> None:
            for _ in range(100):  # the pool starts its workers with its first job
                killed.extend(children(server.process.pid))
                if killed:
                    break
                await asyncio.sleep(0.05)
            for pid in killed:
                os.kill(pid, signal.SIGKILL)

        acks, _ = run(play_with_a_fault(server, table, tokens, kill_workers, after=2))
        assert killed
        assert "worker died" in "".join(server.output)
        assert_nothing_lost_or_doubled(server, url, table, acks)
    finally:
        server.stop()


def frame(payload: bytes) -> bytes:
    """One masked text frame, as a client sends it (RFC 6455 §5.2)."""
    mask = os.urandom(4)
    size = len(payload)
    head = bytes([0x81, 0x80 | size]) if size < 126 else bytes([0x81, 0xFE]) + size.to_bytes(2)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def vanish(base: str, path: str, sent: bytes, cut: int) -> None:
    """Open a WebSocket at ``path``, send the first ``cut`` bytes of ``sent``, then drop the
    connection without a closing handshake."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    key = base64.b64encode(os.urandom(16)).decode()
    upgrade = (
        f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    writer.write(upgrade.encode())
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
    writer.write(sent[:cut])
    await writer.drain()
    await asyncio.sleep(0.05)
    writer.transport.abort()  # a reset, no closing handshake


async def vanish_http(base: str, request: bytes, cut: int) -> None:
    """Send the first ``cut`` bytes of an HTTP request, then drop the connection."""
    host, port = base.removeprefix("http://").split(":")
    _, writer = await asyncio.open_connection(host, int(port))
    writer.write(request[:cut])
    await writer.drain()
    await asyncio.sleep(0.05)
    writer.transport.abort()


def test_a_client_vanishing_in_the_middle_of_any_message_changes_nothing(tmp_path: Path) -> None:
    """A client that drops its connection in the middle of a message — in a frame's header
    or its payload, of every kind of message, and in an HTTP request's head or body — is
    gone without a trace: nothing it half sent is applied, no error is logged, and the game
    at that table finishes with everything acknowledged stored once."""
    url = f"sqlite:///{tmp_path / 'server.db'}"
    server = Server.start(url)
    try:
        table, tokens = an_acked_game(server)
        path = f"/ws/tables/{table['id']}"
        hello = json.dumps({"type": "hello", "token": tokens[1]}).encode()
        kinds = [
            {"type": "hello", "token": tokens[1]},
            {"type": "act", "id": "vanished-act", "action": "pass"},
            {"type": "claim", "id": "vanished-claim"},
            {"type": "undo", "id": "vanished-undo"},
            {"type": "chat", "text": "vanished chat"},
            {"type": "rematch", "id": "vanished-rematch", "accept": True},
            {"type": "ping"},
        ]
        body = json.dumps({"invite": table["invites"][2]["invite"], "name": "Vanished"})
        head = (
            f"POST /api/tables/{table['id']}/seats/2 HTTP/1.1\r\nHost: x\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        requests = [(head + body).encode(), f"GET /api/tables/{table['id']} HTTP/1.1\r\n".encode()]

        async def vandalise() -> None:
            for message in kinds:
                last = frame(json.dumps(message).encode())
                first = b"" if message["type"] == "hello" else frame(hello)
                for cut in (1, 2, 6, len(last) // 2, len(last) - 1):
                    await vanish(server.base, path, first + last, len(first) + cut)
            for request in requests:
                for cut in (len(request) // 3, len(head) - 2, len(request) - 1):
                    await vanish_http(server.base, request, min(cut, len(request) - 1))

        acks, refused = run(play_with_a_fault(server, table, tokens, vandalise, after=3))
        assert not refused
        log = stored_log(url, table["id"])
        assert not [row for row in log if "vanished" in (row.client_id or "") + row.data.lower()]
        assert_nothing_lost_or_doubled(server, url, table, acks)
        output = "".join(server.output)
        assert "Traceback" not in output and "ERROR" not in output, output[-3000:]
    finally:
        server.stop()
