"""Several ``backalley serve`` nodes on one PostgreSQL database and one Redis, as real processes
(docs/deploy.md): a game played through three nodes, its owner killed mid-deal or stopped,
Redis lost and back, and what a node without a table's lease may write."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text as sa_text
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, InvalidURI

from backalley.server.client import Member, Seat, create_table, exchange, take_seat
from backalley.server.client import request as http
from backalley.server.relay import pack_scope
from server_support import (
    POSTGRES,
    REDIS,
    REDIS_MISSING,
    Server,
    assert_verified_finished,
    database,
    finished_record,
    free_port,
    new_table,
    play_randomly,
    run,
    stored_log,
    wait_for_port,
)
from test_server import leak_test, play_game

pytestmark = pytest.mark.cluster

#: errors a client sends its action again for, after a moment (the table is moving)
TRANSIENT = ("moved", "unreachable", "not_stored", "recovering")


@pytest.fixture
def nodes(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[list[Server]]:
    """Three nodes on a fresh PostgreSQL database and the Redis scripts/redis.sh started."""
    if not REDIS:
        pytest.skip(REDIS_MISSING)
    url = database("postgres", tmp_path, request)
    started = [Server.start(url, redis=REDIS, node_id=f"n{i}") for i in range(3)]
    yield started
    for node in started:
        node.stop()


class Roamer:
    """A client that plays (or watches) through whichever node answers, as a browser behind a
    proxy does: when its connection closes it comes back through the next node with
    ``since``, and sends again the action not yet answered (the same id: applied once)."""

    def __init__(
        self, bases: list[str], table_id: str, token: str | None = None,
        watch: str | None = None, seed: int = 0, ssl: Any = None,
    ) -> None:  # fmt: skip
        self.bases, self.table_id = list(bases), table_id
        self.token, self.watch = token, watch
        self.rng = random.Random(seed)
        self.ssl = ssl  #: the TLS context of a wss:// address
        self.version = 0
        self.versions: list[int] = []  #: every event's version received, in order
        self.acked: dict[str, int] = {}  #: client id → the version its action made
        self.pending: dict[str, Any] | None = None
        self.view: dict[str, Any] | None = None
        self.sessions = 0
        self.closes: list[int | None] = []
        self._next = 0

    @property
    def over(self) -> bool:
        return bool(self.view and self.view["phase"] == "over")

    async def run(self, deadline: float = 120.0) -> None:
        stop = time.monotonic() + deadline
        turn = 0
        while not self.over:
            assert time.monotonic() < stop, f"no end within {deadline} s: {self.closes}"
            base = self.bases[turn % len(self.bases)]
            turn += 1
            try:
                await self._session(base)
            except (OSError, ConnectionClosed, InvalidStatus, InvalidURI, TimeoutError) as gone:
                code = getattr(getattr(gone, "rcvd", None), "code", None)
                self.closes.append(code)
                await asyncio.sleep(0.2)

    async def _session(self, base: str) -> None:
        uri = "ws" + base.removeprefix("http") + f"/ws/tables/{self.table_id}"
        secure = {"ssl": self.ssl} if self.ssl is not None else {}
        async with connect(uri, open_timeout=5, max_size=2**22, **secure) as socket_:
            self.sessions += 1
            hello: dict[str, Any] = {"type": "hello", "since": self.version}
            hello |= {"token": self.token} if self.token else {"watch": self.watch}
            await socket_.send(json.dumps(hello))
            if self.pending is not None:
                await socket_.send(json.dumps(self.pending))
            while not self.over:
                message = json.loads(await asyncio.wait_for(socket_.recv(), 30))
                await self._take(socket_, message)

    async def _take(self, socket_: Any, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "resync":
            self.versions += [event["version"] for event in message["events"]]
        elif kind == "event":
            self.versions.append(message["version"])
        if kind in ("state", "resync", "event"):
            self.version = message["version"]
        if message.get("view") is not None:
            self.view = message["view"]
        if kind in ("ack", "error") and self.pending and message.get("id") == self.pending["id"]:
            if kind == "ack":
                self.acked[self.pending["id"]] = message["version"]
                self.pending = None
            elif message["code"] in TRANSIENT:
                await asyncio.sleep(0.3)
                await socket_.send(json.dumps(self.pending))
            else:
                raise AssertionError(message)
        # The view may have come before the ack of our last action (a bid that ends the
        # bidding, and ours is the lead): either may be the moment to act.
        fresh = kind in ("state", "resync", "ack") or message.get("view") is not None
        if self.token and self.pending is None and self.view and self.view["legal"] and fresh:
            self._next += 1
            action = self.rng.choice(self.view["legal"])
            self.pending = {"type": "act", "id": f"{self.token[:6]}-{self._next}",
                            "action": action}  # fmt: skip
            await socket_.send(json.dumps(self.pending))


def _check_log(url: str, table_id: str, before: list[Any], roamers: list[Roamer]) -> None:
    """The stored log holds what it held ``before`` as it was, every action the players
    were acknowledged at the version they were told, and none twice."""
    log = stored_log(url, table_id)
    assert [tuple(r) for r in log[: len(before)]] == [tuple(r) for r in before]
    assert [r.seq for r in log] == list(range(1, len(log) + 1))
    by_version = {r.seq: r for r in log}
    for seat, roamer in enumerate(roamers):
        for client_id, version in roamer.acked.items():
            assert by_version[version].client_id == f"{seat}:{client_id}"
    ids = [r.client_id for r in log if r.client_id is not None]
    assert len(ids) == len(set(ids))


def test_four_clients_on_three_nodes_play_on_after_the_owner_is_killed_mid_deal(
    nodes: list[Server],
) -> None:
    owner, second, third = nodes
    bases = [n.base for n in nodes]
    table, tokens = _table_through(bases, hand_sizes=[4, 3, 2])
    # Each seat's client starts on its own node (0 and 3 on the owner and the second), and
    # goes on through the next ones when its node goes; the spectator holds a fourth socket.
    starts = [0, 1, 2, 1]
    players = [
        Roamer(bases[s:] + bases[:s], table["id"], token=tokens[i], seed=i)
        for i, s in enumerate(starts)
    ]
    watcher = Roamer(bases[2:] + bases[:2], table["id"], watch=table["watch"]["code"])
    before: list[Any] = []

    async def kill_mid_deal() -> None:
        while not any(row.kind == "card" for row in before):
            await asyncio.sleep(0.05)
            before[:] = await asyncio.to_thread(stored_log, owner.url, table["id"])
        owner.kill()

    async def scenario() -> None:
        await asyncio.gather(kill_mid_deal(), watcher.run(), *(p.run() for p in players))

    run(scenario())
    assert before and any(r.kind == "card" for r in before)  # killed in the middle of the play
    assert all(p.over for p in players) and watcher.over
    # The owner's clients came back through another node; the others' tunnels to it ended.
    assert players[0].sessions >= 2 and watcher.sessions >= 2
    record = finished_record(second.base, table)
    assert_verified_finished(record)
    _check_log(owner.url, table["id"], before, players)
    # The spectator saw every event once, in order, across the failover.
    assert watcher.versions == list(range(1, watcher.version + 1))
    final = stored_log(owner.url, table["id"])
    assert watcher.version == len(final)
    assert third.process.poll() is None and second.process.poll() is None


def _table_through(bases: list[str], **settings: Any) -> tuple[dict[str, Any], list[str]]:
    """A table made on the first node, its seats taken through the others."""
    settings.setdefault("pace", 0)
    table = create_table(bases[0], settings)
    tokens = [take_seat(bases[(s + 1) % len(bases)], table, s, f"P{s}") for s in range(4)]
    return table, tokens


def test_a_node_told_to_stop_hands_its_tables_over_and_exits(nodes: list[Server]) -> None:
    owner, second, _ = nodes
    bases = [n.base for n in nodes]
    table, tokens = _table_through(bases, hand_sizes=[3, 2])
    bots, _ = new_table(owner.base, names=0, bots="easy", hand_sizes=[3, 2], pace=0.3)
    players = [
        Roamer(bases[s:] + bases[:s], table["id"], token=tokens[s], seed=s) for s in range(4)
    ]

    async def stop_after_a_few_moves() -> None:
        while sum(len(p.acked) for p in players) < 3:
            await asyncio.sleep(0.01)
        owner.process.terminate()  # SIGTERM: hand over, then exit
        await asyncio.to_thread(owner.process.wait, 30)

    async def scenario() -> None:
        await asyncio.gather(stop_after_a_few_moves(), *(p.run() for p in players))

    before = stored_log(owner.url, table["id"])
    run(scenario())
    assert owner.process.returncode == 0, "".join(owner.output)
    assert_verified_finished(finished_record(second.base, table))
    _check_log(owner.url, table["id"], before, players)
    # The bots' table, with nobody connected to it, went on on another node by itself.
    deadline = time.monotonic() + 180
    path, watch = f"/api/tables/{bots['id']}", bots["watch"]["code"]
    while http(second.base, "GET", path, token=watch)[1]["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert_verified_finished(finished_record(second.base, bots))


def test_no_message_through_a_node_that_does_not_own_the_table_leaks_a_card(
    nodes: list[Server],
) -> None:
    owner, edge, _ = nodes
    # Every table is made on, and held by, the owner; every client reaches it through the
    # edge, which holds none of them.
    checked = leak_test(owner.base, edge.base, 12, seed=23, most_deals=2)
    assert checked > 1000
    lobby = http(edge.base, "GET", "/api/lobby")[1]
    assert "partial" not in lobby
    print(f"leak test through a node that holds no table: {checked} card mentions checked")


def test_lobby_chat_and_presence_cross_nodes(nodes: list[Server]) -> None:
    owner, edge, third = nodes
    table, tokens = new_table(owner.base, names=2, bots="easy", public=True, hand_sizes=[2])
    # Listed in every node's lobby (a node's public tables reach the others within a beat).
    deadline = time.monotonic() + 10
    while not any(t["id"] == table["id"] for t in http(third.base, "GET", "/api/lobby")[1]
                  ["playing"]):  # fmt: skip
        assert time.monotonic() < deadline
        time.sleep(0.2)

    async def scenario() -> tuple[Seat, Seat]:
        async with (
            Seat.connect(edge.base, table["id"], token=tokens[0]) as one,
            Seat.connect(third.base, table["id"], token=tokens[1]) as two,
        ):
            await one.until(lambda s: s.view is not None)
            await two.until(lambda s: s.view is not None)
            await one.send({"type": "chat", "text": "hello from another node"})
            await two.until(lambda s: any(m["type"] == "event" and m["event"]["kind"] == "chat"
                                          for m in s.messages))  # fmt: skip
            await one.until(lambda s: any(m["type"] == "presence" and all(
                seat["connected"] for seat in m["seats"]) for m in s.messages))  # fmt: skip
        return one, two

    _, two = run(scenario())
    chat = [m["event"] for m in two.messages if m["type"] == "event" and
            m["event"]["kind"] == "chat"]  # fmt: skip
    assert chat[0]["text"] == "hello from another node" and chat[0]["seat"] == 0


def test_an_addresss_limits_are_the_clusters_not_each_nodes(nodes: list[Server]) -> None:
    """Sign-ins spread over three nodes are limited as on one (10 a minute in these tests):
    each node takes from its own count what the others took."""
    codes = []
    started = time.monotonic()
    for attempt in range(12):
        if attempt == 10:  # the word crosses in milliseconds; under load, give it time
            time.sleep(0.5)
        codes.append(Member(nodes[attempt % 3].base).sign_in(f"N{attempt}", "whatever pw")[0])
    # One try comes back every 6 s (10 a minute): a slow machine's last tries may have one.
    back = int((time.monotonic() - started) / 6)
    assert codes[:10] == [401] * 10 and codes[10:].count(401) <= back, (codes, back)
    assert back >= 2 or 429 in codes[10:]


@contextlib.contextmanager
def own_redis(port: int, folder: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A Redis server of the test's own (the binary scripts/redis.sh installed), to stop."""
    if shutil.which("redis-server") is None:
        pytest.skip(REDIS_MISSING)
    process = _redis_server(port, folder)
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def test_the_redis_script_starts_a_server_and_hands_back_its_url_at_once(tmp_path: Path) -> None:
    """``test.sh`` reads the URL as ``$(bash scripts/redis.sh)``: the daemon it starts must
    not hold that pipe open, or the caller waits for ever (as CI once did)."""
    if not shutil.which("redis-server"):
        pytest.skip(REDIS_MISSING)
    port = free_port()
    script = Path(__file__).parent.parent / "scripts" / "redis.sh"
    env = {**os.environ, "REDIS_PORT": str(port), "REDIS_DIR": str(tmp_path)}
    try:
        done = subprocess.run(
            ["bash", str(script)], capture_output=True, text=True, timeout=30, env=env
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout == f"redis://localhost:{port}/0\n"
        again = subprocess.run(  # one answers there already: the same URL, nothing started
            ["bash", str(script)], capture_output=True, text=True, timeout=30, env=env
        )
        assert again.stdout == done.stdout
    finally:
        subprocess.run(["redis-cli", "-p", str(port), "shutdown", "nosave"], capture_output=True)
    assert subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).stdout != (
        b"PONG\n"
    )


def test_without_redis_tables_play_on_their_owner_and_the_rest_says_it_is_away(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if not REDIS:
        pytest.skip(REDIS_MISSING)
    url = database("postgres", tmp_path, request)
    port = free_port()
    redis_url = f"redis://127.0.0.1:{port}/0"
    with own_redis(port, tmp_path) as redis:
        owner = Server.start(url, redis=redis_url, node_id="a")
        edge = Server.start(url, redis=redis_url, node_id="b")
    try:
        table, tokens = new_table(owner.base, hand_sizes=[3, 2])
        assert redis.poll() is not None  # Redis is gone from here on
        _until_refused_with_503(edge.base, f"/api/tables/{table['id']}", "stopped")
        # Through the owner, the game goes on as ever.
        run(_first_bids(owner.base, table["id"], tokens))
        # Through the other node: said to be out of reach, and nothing done.
        status, answer = http(edge.base, "GET", f"/api/tables/{table['id']}")
        assert status == 503 and answer["code"] == "unreachable", answer
        lobby = http(edge.base, "GET", "/api/lobby")[1]
        assert "cannot be listed" in lobby["partial"]

        async def refused() -> int | None:
            uri = "ws" + edge.base.removeprefix("http") + f"/ws/tables/{table['id']}"
            async with connect(uri) as socket_:
                with pytest.raises(ConnectionClosed) as closed:  # maybe before the hello is out
                    await socket_.send(json.dumps({"type": "hello", "token": tokens[0]}))
                    await socket_.recv()
                return closed.value.rcvd.code if closed.value.rcvd else None

        assert run(refused()) == 1013
        version = len(stored_log(url, table["id"]))
        with own_redis(port, tmp_path):
            deadline = time.monotonic() + 15
            while http(edge.base, "GET", f"/api/tables/{table['id']}", token=tokens[0])[0] != 200:
                assert time.monotonic() < deadline, "the edge did not come back with Redis"
                time.sleep(0.2)

            async def back() -> dict[str, Any]:
                async with Seat.connect(edge.base, table["id"], token=tokens[0],
                                        since=version - 2) as seat:  # fmt: skip
                    return await seat.recv()

            resync = run(back())
            assert resync["type"] == "resync" and resync["version"] == version
            assert [e["version"] for e in resync["events"]] == [version - 1, version]
            run(play_game(edge.base, table, tokens, seed=6))
            assert_verified_finished(finished_record(edge.base, table))
    finally:
        owner.stop()
        edge.stop()
        _show(owner=owner, edge=edge)


def test_while_redis_is_away_or_stalled_clients_are_told_to_try_again_later(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A table held by one node, played through another: while Redis is stopped, and while
    it is stalled (SIGSTOP), the clients of the other node are closed with 1013 (the server
    holding the table cannot be reached: try again later), never 1012 (it moved: reconnect
    at once), and HTTP requests are answered 503 with Retry-After; nothing acknowledged is
    lost, and play goes on once Redis is back. (They were told 1012 "the server holding the
    table is gone" while it was alive, and while Redis stalled, 1012 again and 504.)"""
    if not REDIS:
        pytest.skip(REDIS_MISSING)
    url = database("postgres", tmp_path, request)
    port = free_port()
    redis_url = f"redis://127.0.0.1:{port}/0"
    path = None
    with own_redis(port, tmp_path) as redis:
        owner = Server.start(url, redis=redis_url, node_id="a")
        edge = Server.start(url, redis=redis_url, node_id="b")
        try:
            table, tokens = new_table(owner.base, hand_sizes=[3, 2])
            path = f"/api/tables/{table['id']}"
            for fault in ("stopped", "stalled"):
                closed = run(_closed_while_redis_is(fault, redis, edge.base, table, tokens))
                assert closed == 1013, (fault, closed)
                _until_refused_with_503(edge.base, path, fault)
                assert run(_hello_code(edge.base, table["id"], tokens[0])) == 1013, fault
                if fault == "stopped":
                    redis = _start_again(redis, port, tmp_path)
                else:
                    redis.send_signal(signal.SIGCONT)
                deadline = time.monotonic() + 20
                while http(edge.base, "GET", path, token=tokens[0])[0] != 200:
                    assert time.monotonic() < deadline, f"the edge did not come back ({fault})"
                    time.sleep(0.2)
            run(play_game(edge.base, table, tokens, seed=7))
            assert_verified_finished(finished_record(edge.base, table))
            output = "".join(edge.output + owner.output)
            assert "Traceback" not in output, output[-3000:]
        finally:
            with contextlib.suppress(ProcessLookupError):
                redis.send_signal(signal.SIGCONT)
            owner.stop()
            edge.stop()
            redis.kill()
            _show(owner=owner, edge=edge)


def test_the_first_message_after_redis_restarts_is_not_lost(tmp_path: Path) -> None:
    """A node's command client, whose pooled connection Redis closed by restarting, sends its
    next command all the same (on a new connection): that first message after a restart was
    lost, a forwarded request's answer among them (its client waited a minute)."""
    from backalley.server.cluster import commands

    port = free_port()
    with own_redis(port, tmp_path) as redis:

        async def publish(client: Any) -> Any:
            async with client.pipeline(transaction=False) as pipe:
                pipe.publish("channel", b"frame")
                return await pipe.execute()

        async def across_a_restart() -> tuple[Any, Any]:
            client = commands(f"redis://127.0.0.1:{port}/0")
            try:
                before = await publish(client)
                redis.kill()
                redis.wait()
                again = _start_again(redis, port, tmp_path)
                try:
                    return before, await publish(client)
                finally:
                    again.kill()
                    again.wait()
            finally:
                await client.aclose()

        assert run(across_a_restart()) == ([0], [0])


def test_a_request_that_comes_twice_is_run_once() -> None:
    """Redis may carry a message twice (a publication retried): the node holding the table
    runs a forwarded request once, and answers it once."""
    from backalley.server.relay import Relay

    sent: list[tuple[str, str, str]] = []
    held: list[asyncio.Future[Any]] = []

    class Link:  # the part of a Cluster a Relay uses, without Redis
        def send(self, node: str, kind: str, cid: str, payload: bytes) -> None:
            sent.append((node, kind, cid))

        def hold(self, task: asyncio.Future[Any]) -> None:
            held.append(task)

    runs = 0

    async def app(scope: Any, receive: Any, send: Any) -> None:
        nonlocal runs
        runs += 1
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def twice() -> None:
        relay = Relay(Link())  # type: ignore[arg-type]
        relay.app = app
        scope = {"type": "http", "method": "POST", "path": "/api/tables/t/bots", "headers": []}
        packed = {"scope": pack_scope(scope), "body": "", "until": time.time() + 60}
        for _ in range(2):
            relay.receive("http", "r1", "edge", json.dumps(packed).encode())
        relay.receive("http", "r2", "edge", json.dumps(packed).encode())  # another request
        await asyncio.gather(*held)

    run(twice())
    assert runs == 2
    assert sent == [("edge", "reply", "r1"), ("edge", "reply", "r2")]


async def _closed_while_redis_is(
    fault: str, redis: subprocess.Popen[bytes], base: str, table: dict[str, Any], tokens: list[str]
) -> int | None:
    """Connect seat 0 through ``base``, then stop or stall Redis: the code the connection
    is closed with."""
    async with Seat.connect(base, table["id"], token=tokens[0]) as seat:
        await seat.until(lambda s: s.view is not None)
        if fault == "stopped":
            redis.kill()
            redis.wait()
        else:
            redis.send_signal(signal.SIGSTOP)
        with pytest.raises(ConnectionClosed) as closed:
            async with asyncio.timeout(30):
                while True:
                    await seat.recv()
        return closed.value.rcvd.code if closed.value.rcvd else None


def _until_refused_with_503(base: str, path: str, fault: str) -> None:
    """Requests through ``base`` are refused with 503 and a Retry-After (one sent before the
    node found Redis gone may be answered 504: it was sent, and may have been carried out)."""
    deadline = time.monotonic() + 20
    while True:
        status, answer, headers = exchange(base, "GET", path)
        if status == 503:
            assert answer["code"] == "unreachable" and int(headers["retry-after"]) >= 1
            return
        assert status == 504 and time.monotonic() < deadline, (fault, status, answer)


async def _hello_code(base: str, table_id: str, token: str) -> int | None:
    uri = "ws" + base.removeprefix("http") + f"/ws/tables/{table_id}"
    async with connect(uri) as socket_:
        with pytest.raises(ConnectionClosed) as closed:  # maybe before the hello is out
            await socket_.send(json.dumps({"type": "hello", "token": token}))
            await socket_.recv()
        return closed.value.rcvd.code if closed.value.rcvd else None


def _show(**servers: Server) -> None:
    """Print what each of ``servers`` said (pytest shows it when the test fails)."""
    for name, server in servers.items():
        print(f"--- {name} said:", "".join(server.output)[-6000:])


def _start_again(old: subprocess.Popen[bytes], port: int, folder: Path) -> subprocess.Popen[bytes]:
    assert old.poll() is not None
    return _redis_server(port, folder)


def _redis_server(port: int, folder: Path) -> subprocess.Popen[bytes]:
    """A Redis server on ``port`` keeping nothing on disk, once it listens."""
    binary = shutil.which("redis-server")
    assert binary is not None
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(folder)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    wait_for_port(port, process)
    return process


async def _first_bids(base: str, table_id: str, tokens: list[str]) -> None:
    """Each seat bids once, through ``base``."""

    async def bid(seat: int) -> None:
        async with Seat.connect(base, table_id, token=tokens[seat]) as client:
            await play_randomly(client, random.Random(seat), stop=1)

    await asyncio.gather(*(bid(seat) for seat in range(len(tokens))))


def test_a_write_without_the_tables_lease_is_refused_and_stores_nothing(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The fence: a node that lost a table's lease (another took it) cannot add to its log,
    and only one of two nodes takes a free table."""
    from backalley.server.leases import Leases
    from backalley.server.store import LeaseLost, Store

    url = database("postgres", tmp_path, request)

    async def scenario() -> None:
        a, b = Store(url, node="a"), Store(url, node="b")
        try:
            table_id = uuid.uuid4().hex[:8]
            await a.write(Store.new_table(table_id, {}, b"h", b"w", [b"i"] * 4))
            await a.write(Store.event(table_id, 1, "start", {}, None))
            leases_a, leases_b = Leases(a.engine, "a"), Leases(b.engine, "b")
            assert leases_b.acquire(table_id) == "a"  # a's, live: b cannot take it
            with pytest.raises(LeaseLost):
                await b.write(Store.event(table_id, 2, "chat", {}, None))
            leases_a.release(table_id)
            assert leases_b.acquire(table_id) == "b"
            assert leases_a.acquire(table_id) == "b"
            with pytest.raises(LeaseLost):
                await a.write(Store.event(table_id, 2, "chat", {"by": "a"}, None))
            await b.write(Store.event(table_id, 2, "chat", {"by": "b"}, None))
            assert leases_a.renew() == set() and leases_b.renew() == {table_id}
            assert leases_a.acquire("no-such") is None
        finally:
            a.close()
            b.close()

    asyncio.run(scenario())
    log = stored_log(url, _only_table(url))
    assert [(r.seq, json.loads(r.data)) for r in log] == [(1, {}), (2, {"by": "b"})]


def test_a_table_taken_back_after_its_lease_lapsed_is_kept_only_if_nobody_changed_it(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A node that stalled past its lease and takes a table back keeps its copy only if no
    other node changed the table meanwhile; else it rebuilds it from the log, and goes on
    from there (its next write follows the other node's, not a stale version)."""
    from concurrent.futures import ThreadPoolExecutor

    from backalley.server.bots import BotPool
    from backalley.server.cluster import Cluster
    from backalley.server.leases import Leases
    from backalley.server.registry import Tables
    from backalley.server.settings import Settings
    from backalley.server.store import Store
    from backalley.server.table import making

    if not REDIS:
        pytest.skip(REDIS_MISSING)
    url = database("postgres", tmp_path, request)

    def lapse(store: Store, table_id: str) -> None:  # as if its node had stalled that long
        with store.engine.begin() as connection:
            connection.execute(
                sa_text("UPDATE leases SET expires = 0 WHERE table_id = :t"), {"t": table_id}
            )

    async def scenario() -> tuple[str, list[str]]:
        store_a, store_b = Store(url, node="a"), Store(url, node="b")
        pool = BotPool(1, executor=ThreadPoolExecutor(1))
        tables = Tables(store_a, pool)
        tables.cluster = Cluster("a", REDIS or "", tables)
        try:
            table, made = await tables.create(Settings(options={"hand_sizes": [1]}, pace=0))
            invites, leases_a = made["invites"], Leases(store_a.engine, "a")
            await table.take(0, invites[0], "Ann")
            lapse(store_a, table.id)  # nobody took it meanwhile: the same copy goes on
            assert leases_a.acquire_many([table.id]) == {table.id}
            assert await tables.adopt(table.id) is table and not table.released
            lapse(store_a, table.id)  # b takes it, seats Bea, and lets it go
            assert Leases(store_b.engine, "b").acquire(table.id) == "b"
            stored = await asyncio.to_thread(store_b.load, table.id)
            assert stored is not None
            elsewhere = making.load(stored, store_b, pool)
            await elsewhere.take(1, invites[1], "Bea")
            Leases(store_b.engine, "b").release(table.id)
            assert leases_a.acquire_many([table.id]) == {table.id}
            fresh = await tables.adopt(table.id)
            assert fresh is not None and fresh is not table and table.released
            assert fresh.version == elsewhere.version == 2 and fresh.names[:2] == ["Ann", "Bea"]
            await fresh.take(2, invites[2], "Cid")
            return table.id, fresh.names[:3]
        finally:
            tables.stop()
            pool.close()
            store_a.close()
            store_b.close()

    table_id, names = asyncio.run(scenario())
    assert names == ["Ann", "Bea", "Cid"]
    log = stored_log(url, table_id)
    assert [(r.seq, json.loads(r.data).get("name")) for r in log] == [
        (1, "Ann"), (2, "Bea"), (3, "Cid")
    ]  # fmt: skip


def _only_table(url: str) -> str:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.connect() as connection:
        table_id = connection.execute(text("SELECT id FROM tables")).scalar_one()
    engine.dispose()
    return str(table_id)


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--redis", "redis://localhost:1/0"], "several nodes share one PostgreSQL database"),
        (["--node-id", "a"], "--node-id names a node of several: give --redis too"),
    ],
)
def test_serve_refuses_nodes_without_what_they_share(
    arguments: list[str], said: str, tmp_path: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "backalley", "serve", "--db", f"sqlite:///{tmp_path}/x.db",
         "--port", "0", *arguments],
        capture_output=True, text=True, timeout=60, env={**os.environ, "LANGUAGE": "en"},
    )  # fmt: skip
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert not (tmp_path / "x.db").exists()  # refused before anything was made


def test_a_second_process_under_a_live_nodes_id_refuses_to_start(nodes: list[Server]) -> None:
    first = nodes[0]
    second = subprocess.run(
        [sys.executable, "-m", "backalley", "serve", "--db", first.url, "--redis", REDIS or "",
         "--node-id", "n0", "--port", "0", "--workers", "1"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "LANGUAGE": "en"},
    )  # fmt: skip
    assert second.returncode != 0
    assert "another node runs as n0" in second.stdout + second.stderr
    assert first.process.poll() is None  # the live one goes on
    assert http(first.base, "GET", "/api/lobby")[0] == 200


def test_the_database_refusing_the_nodes_for_five_seconds_loses_nothing(
    nodes: list[Server],
) -> None:
    """PostgreSQL refuses every node for five seconds mid-game: the owner cannot renew its
    lease, lets the table go, and it is taken again once the database is back; the clients,
    on the owner and on another node, come back and finish the game with every acknowledged
    action stored once."""
    from test_server_faults import admin

    owner = nodes[0]
    bases = [n.base for n in nodes[:2]]
    table, tokens = _table_through(bases, hand_sizes=[4, 3])
    players = [
        Roamer(bases[s % 2 :] + bases[: s % 2], table["id"], token=tokens[s], seed=s)
        for s in range(4)
    ]
    name = owner.url.rsplit("/", 1)[1]
    before: list[Any] = []

    async def outage() -> None:
        while sum(len(p.acked) for p in players) < 6:
            await asyncio.sleep(0.02)
        before.extend(await asyncio.to_thread(stored_log, owner.url, table["id"]))
        await asyncio.to_thread(
            admin, POSTGRES or "",
            f"ALTER DATABASE {name} ALLOW_CONNECTIONS false",
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'",
        )  # fmt: skip
        await asyncio.sleep(5)
        await asyncio.to_thread(
            admin, POSTGRES or "", f"ALTER DATABASE {name} ALLOW_CONNECTIONS true"
        )

    async def scenario() -> None:
        await asyncio.gather(outage(), *(p.run() for p in players))

    run(scenario())
    assert all(p.over for p in players)
    assert sum(p.sessions for p in players) > 4  # the table was let go and taken again
    _check_log(owner.url, table["id"], before, players)
    assert_verified_finished(finished_record(nodes[1].base, table))
    assert all(n.process.poll() is None for n in nodes)
    for node in nodes:  # the outage is said in a line or two, never as a failure
        assert "Traceback" not in "".join(node.output), "".join(node.output)[-3000:]


def test_daily_tries_and_a_team_match_move_between_nodes_with_their_cards(
    nodes: list[Server],
) -> None:
    """The daily deals' secret is the database's (the environment names none), so each node
    deals the day's cards alike; a try and a match whose node stops go on on another, and
    their results are there."""
    from backalley.record import read_record, replay
    from backalley.server import daily

    assert "BACKALLEY_DAILY_SECRET" not in os.environ
    owner, second, third = nodes
    bases = [n.base for n in nodes]
    status, first_try = http(owner.base, "POST", "/api/daily/standard", {"name": "Lea", "pace": 0})
    assert status == 201, first_try
    status, match = http(owner.base, "POST", "/api/matches",
                         {"hand_sizes": [3, 2, 1], "pace": 0.2, "level": "easy"})  # fmt: skip
    assert status == 201, match
    for table in match["tables"]:
        for seat in range(4):
            status, _ = http(owner.base, "POST", f"/api/tables/{table['id']}/seats/{seat}/bot",
                             {"level": "easy"}, token=table["host"])  # fmt: skip
            assert status == 200
    player = Roamer(bases, first_try["id"], token=first_try["token"], seed=3)

    async def stop_after_a_few_moves() -> None:
        while len(player.acked) < 2:
            await asyncio.sleep(0.01)
        owner.process.terminate()  # SIGTERM: its tables handed over, then it exits
        await asyncio.to_thread(owner.process.wait, 30)

    async def scenario() -> None:
        await asyncio.gather(stop_after_a_few_moves(), player.run())

    run(scenario())
    assert owner.process.returncode == 0, "".join(owner.output)
    status, later = http(third.base, "POST", "/api/daily/standard", {"name": "Max", "pace": 0})
    assert status == 201
    run(Roamer([third.base, second.base], later["id"], token=later["token"], seed=4).run())
    games = [replay(read_record(finished_record(second.base, t["id"], t["token"])))
             for t in (first_try, later)]  # fmt: skip
    hands = [{daily.deal_key(g.deals, i): d.hands for i, d in enumerate(g.deals)} for g in games]
    assert hands[0]["0.0.0"] == hands[1]["0.0.0"]  # dealt on two nodes, from one secret
    status, seen = http(third.base, "GET", f"/api/daily/{daily.today()}/standard")
    assert status == 200 and seen["players"] == 0  # two guests: nobody ranked
    status, mine = http(third.base, "GET",
                        f"/api/daily/{daily.today()}/standard?table={first_try['id']}",
                        token=first_try["token"])  # fmt: skip
    assert status == 200 and mine["you"]["finished"] and len(mine["deals"]) == len(games[0].deals)
    deadline = time.monotonic() + 120  # the match's bots play on, on the nodes left
    while not (shown := http(second.base, "GET", f"/api/matches/{match['id']}")[1])["over"]:
        assert time.monotonic() < deadline, shown
        time.sleep(0.3)
    assert shown["deals"] and shown["total"] == sum(d["difference"] for d in shown["deals"])
