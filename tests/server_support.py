"""A real server for the tests: ``backalley serve`` as a subprocess on loopback, on SQLite in a
temporary folder or on the PostgreSQL server that scripts/test.sh starts."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from backalley.server.client import Seat, create_table, seat_bot, take_seat
from backalley.server.client import request as http

POSTGRES = os.environ.get("BACKALLEY_TEST_POSTGRES")
REDIS = os.environ.get("BACKALLEY_TEST_REDIS")
REDIS_MISSING = os.environ.get(
    "BACKALLEY_TEST_REDIS_SKIP",
    "no Redis server: scripts/test.sh installs and starts one (BACKALLEY_TEST_REDIS)",
)
POSTGRES_MISSING = os.environ.get(
    "BACKALLEY_TEST_POSTGRES_SKIP",
    "no PostgreSQL server: scripts/test.sh installs and starts one (BACKALLEY_TEST_POSTGRES)",
)


def database(kind: str, folder: Path, request: pytest.FixtureRequest | None = None) -> str:
    """A fresh, empty database of ``kind`` (``sqlite`` or ``postgres``), dropped after the
    test of ``request``."""
    if kind == "sqlite":
        return f"sqlite:///{folder / 'server.db'}"
    if not POSTGRES:
        pytest.skip(POSTGRES_MISSING)
    name = "t_" + uuid.uuid4().hex[:12]
    admin = create_engine(POSTGRES, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f"CREATE DATABASE {name}"))
    admin.dispose()

    def drop() -> None:
        """Drop the database; a connection the tests' role may not end (PostgreSQL's own
        workers) holds it a moment at most."""
        admin = create_engine(POSTGRES, isolation_level="AUTOCOMMIT")
        try:
            for attempt in range(20):
                try:
                    with admin.connect() as connection:
                        connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    return
                except Exception:
                    if attempt == 19:
                        raise
                    time.sleep(0.5)
        finally:
            admin.dispose()

    if request is not None:
        request.addfinalizer(drop)
    return POSTGRES.rsplit("/", 1)[0] + "/" + name


@dataclass
class Server:
    """A running ``backalley serve`` and what it printed."""

    url: str
    process: subprocess.Popen[str]
    base: str = ""
    output: list[str] = field(default_factory=list)
    said: threading.Condition = field(default_factory=threading.Condition)  #: a line came
    ended: bool = False  #: its output ended (it stopped)

    @classmethod
    def start(
        cls,
        url: str,
        port: int = 0,
        tables_per_minute: int = 100_000,
        guesses: int = 100_000,
        connections: int = 100_000,
        sign_ins: int = 10,
        sign_ups: int = 100_000,
        redis: str | None = None,
        node_id: str | None = None,
        workers: int = 1,
    ) -> Server:
        """Start a server; the tests make tables and try wrong tokens faster than a person
        would, hence the high ``tables_per_minute`` and ``guesses`` a minute. One solver
        worker (beside the light one) is enough for a test's few tables, and each more is a
        process to start."""
        env = dict(os.environ, LANGUAGE="en", PYTHONUNBUFFERED="1")
        cluster = [] if redis is None else ["--redis", redis]
        cluster += [] if node_id is None else ["--node-id", node_id]
        process = subprocess.Popen(
            [sys.executable, "-m", "backalley", "serve", "--port", str(port), "--db", url,
             "--workers", str(workers), "--tables-per-minute", str(tables_per_minute),
             "--guesses-per-minute", str(guesses), "--connections-per-address", str(connections),
             "--sign-ins-per-minute", str(sign_ins), "--sign-ups-per-hour", str(sign_ups),
             *cluster],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )  # fmt: skip
        server = cls(url, process)
        threading.Thread(target=server._drain, daemon=True).start()
        after = 1 + (redis is not None)  # its address, then the database's line (and the node's)
        with server.said:
            if server.said.wait_for(lambda: server._ready(after) or server.ended, 60):
                if server.base:
                    return server
                raise RuntimeError("the server stopped: " + "".join(server.output))
        server.kill()
        raise RuntimeError("the server said nothing for 60 s: " + "".join(server.output))

    def _ready(self, after: int) -> bool:
        """Whether the server said its address, and ``after`` lines after it."""
        for at, line in enumerate(self.output):
            found = re.search(r"at (http://\S+)/", line)
            if found and len(self.output) - at > after:
                self.base = found.group(1)
                return True
        return False

    def _drain(self) -> None:
        """Keep what the server prints (telling :meth:`start`), to its end."""
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self.said:
                self.output.append(line)
                self.said.notify_all()
        with self.said:
            self.ended = True
            self.said.notify_all()

    def kill(self) -> None:
        """``SIGKILL``: no chance to tidy up."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One server on SQLite for the tests of a module, in the tests' own process (it starts
    in milliseconds; the tests about the process itself — a kill, a restart, what it prints
    — start a :class:`Server` of their own)."""
    from live_support import running

    folder = tmp_path_factory.mktemp("server")
    with running(database("sqlite", folder)) as held:
        yield held


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB file system of its own (tmpfs, mounted as root), so that it can be filled."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"a small file system could not be mounted: {mounted.stderr.strip()}")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=True)


@contextlib.contextmanager
def full(disk: Path) -> Iterator[None]:
    """``disk`` full to its last byte (a file fills it) until the block ends."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as out:
        for size in (65536, 1):
            with contextlib.suppress(OSError):  # ENOSPC: full
                while True:
                    out.write(b"\0" * size)
    try:
        yield
    finally:
        filler.unlink()


def stored_log(url: str, table_id: str) -> list[Any]:
    """The table's stored events, read straight from the database."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text(
                    "SELECT seq, kind, data, client_id FROM events WHERE table_id = :t ORDER BY seq"
                ),
                {"t": table_id},
            )
            return list(rows)
    finally:
        engine.dispose()


def free_port() -> int:
    """A port on loopback that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[Any], why: Any = "") -> None:
    """Wait until ``process`` listens on ``port`` (10 s at most, and while it runs; a failure
    says ``why()`` when it is callable)."""
    deadline = time.monotonic() + 10
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        alive = process.poll() is None and time.monotonic() < deadline
        assert alive, why() if callable(why) else why
        time.sleep(0.05)


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 120))


def new_table(
    base: str, names: int | None = None, bots: str | None = None, **settings: Any
) -> tuple[dict[str, Any], list[str]]:
    """A table with its seats taken by people P0, P1, … (the first ``names`` seats), and the
    others by bots of level ``bots`` if given."""
    settings.setdefault("hand_sizes", [3, 2, 1])
    settings.setdefault("pace", 0)
    table = create_table(base, settings)
    seats = len(table["invites"]) if names is None else names
    tokens = [take_seat(base, table, s, f"P{s}") for s in range(seats)]
    if bots is not None:
        for seat in range(seats, len(table["invites"])):
            seat_bot(base, table, seat, bots)
    return table, tokens


async def play_randomly(seat: Seat, rng: random.Random, stop: int | None = None) -> None:
    """Play random legal actions until the game is over (or ``stop`` actions were sent)."""
    sent = 0
    while stop is None or sent < stop:
        await seat.until(lambda s: s.view is not None and (s.my_turn or s.over))
        if seat.over:
            return
        answer = await seat.reply(await seat.act(rng.choice(seat.view["legal"])))
        assert answer["type"] == "ack", answer
        sent += 1


def finished_record(
    base: str, table: dict[str, Any] | str, token: str | None = None
) -> dict[str, Any]:
    """A table's record, read with its watch code (a private table's is read only with one
    of its secrets) or ``token``; ``table`` as :func:`create_table` gave it, or its id."""
    table_id = table if isinstance(table, str) else table["id"]
    if token is None and not isinstance(table, str):
        token = table["watch"]["code"]
    status, record = http(base, "GET", f"/api/tables/{table_id}/record", token=token)
    assert status == 200, record
    return dict(record)


def assert_verified_finished(record: dict[str, Any]) -> None:
    """``backalley verify`` (the command) accepts ``record``, a finished game."""
    verdict = subprocess.run(
        [sys.executable, "-m", "backalley", "verify", "-"],
        input=json.dumps(record), capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert verdict.returncode == 0, verdict.stdout
    assert json.loads(verdict.stdout)["finished"] is True


def events_of(seat: Seat, kind: str) -> list[dict[str, Any]]:
    """The events of ``kind`` that ``seat`` was sent, in order."""
    events = [m["event"] for m in seat.messages if m["type"] == "event"]
    return [event for event in events if event["kind"] == kind]
