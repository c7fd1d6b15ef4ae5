"""Tables at a human pace held by one node and by two, and how soon a killed node's tables go on.

    python benchmarks/cluster.py [--tables 200] [--seconds 20] [--pace 1.0] [--seed 1]
                                 [--light 60] [--failover-only]

Every node is ``backalley serve --db postgresql://… --redis redis://…`` (scripts/postgres.sh and
scripts/redis.sh start both; each stage has a fresh database). In this process, four WebSocket
clients a table, every seat a person acting ``--pace`` seconds after its turn comes, in full
``standard`` games.

- **One node**: ``--tables`` tables, every client connected to the node.
- **Two nodes** (on this machine, beside the clients): half the tables made on each node, and
  each seat's client connected to either node in turn, as a proxy spreading connections would:
  half the connections reach a node that does not hold their table, and are forwarded
  through Redis.

For each, over ``--seconds`` seconds: actions applied a second, and the time from an action's
sending to its event's arrival at the other three seats (p50, p99), and each node's CPU.

Then **failover**: the first node is killed (SIGKILL) with the two-node stage's tables in
play, and again with ``--light`` tables in play. Its clients come back through the other node
with ``since`` and send again what was not answered; for each of its tables, the time from
the kill to its clients' being served by the new owner, and to the next action's event (the
goal: under 5 s; a lease lapses 2 s after its last renewal).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from sqlalchemy import create_engine, text
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from backalley.server.client import create_table, take_seat
from server import Stats, cpu_seconds  # benchmarks/server.py: one node's own benchmark

ROOT = Path(__file__).resolve().parent.parent
FAILOVER_GOAL = 5.0
SENDING: set[asyncio.Future[None]] = set()  #: actions on their way, held until sent


@dataclass
class Play:
    """A table and its clients: the action in flight (sent at, seat), and the failover's
    marks."""

    id: str
    tokens: list[str]
    pending: tuple[float, int] | None = None
    next_id: int = 0
    first_after: float | None = None  #: when an event newer than ``mark`` first came
    served: float | None = None  #: when a client was first served again after ``mark``
    mark: int | None = None


async def seat(
    play: Play, seat_no: int, bases: list[str], pace: float, stats: Stats, rng: random.Random
) -> None:
    """One seat's client: reads, acts ``pace`` s after its turn, and comes back through the
    next node (with ``since``, sending again the action not answered) when its socket ends."""
    since = 0
    waiting: dict[str, Any] | None = None
    acted_on = -1
    turn = 0
    view: dict[str, Any] | None = None
    loop = asyncio.get_running_loop()
    while True:
        base = bases[turn % len(bases)]
        turn += 1
        uri = "ws" + base.removeprefix("http") + f"/ws/tables/{play.id}"
        try:
            async with connect(uri, max_size=2**20, open_timeout=10, ping_interval=None) as ws:
                hello = {"type": "hello", "token": play.tokens[seat_no], "since": since}
                await ws.send(json.dumps(hello))
                if waiting is not None:
                    await ws.send(json.dumps(waiting))
                async for frame in ws:
                    message = json.loads(frame)
                    kind = message["type"]
                    if kind in ("resync", "state") and play.mark is not None and not play.served:
                        play.served = time.perf_counter()  # a new owner's: the old one is dead
                    if kind in ("event", "resync", "state"):
                        since = message["version"]
                        if play.mark is not None and since > play.mark and not play.first_after:
                            play.first_after = time.perf_counter()
                    if kind == "event":
                        event = message["event"]
                        pending = play.pending
                        if (
                            stats.recording and event["kind"] in ("bid", "card")
                            and pending is not None and event["seat"] == pending[1] != seat_no
                        ):  # fmt: skip
                            stats.latencies.append(time.perf_counter() - pending[0])
                    elif kind == "ack" and waiting and message.get("id") == waiting["id"]:
                        waiting = None
                        play.pending = None
                        stats.actions += stats.recording
                    elif kind == "error":
                        stats.errors += 1
                        if waiting and message.get("id") == waiting["id"]:
                            await asyncio.sleep(0.3)
                            await ws.send(json.dumps(waiting))
                    # The view may come before the ack of our last action (we lead next):
                    # the latest one is acted on when the ack comes.
                    view = message.get("view") or view
                    if view and view["legal"] and since > acted_on and waiting is None:
                        acted_on = since
                        play.next_id += 1
                        waiting = {"type": "act", "id": f"{seat_no}-{play.next_id}",
                                   "action": rng.choice(view["legal"])}  # fmt: skip
                        loop.call_later(pace, _send, ws, waiting, play, seat_no)
        except (OSError, ConnectionClosed, InvalidStatus, TimeoutError):
            await asyncio.sleep(0.2)


def _send(ws: Any, message: dict[str, Any], play: Play, seat_no: int) -> None:
    async def send() -> None:
        with contextlib.suppress(ConnectionClosed):
            play.pending = (time.perf_counter(), seat_no)
            await ws.send(json.dumps(message))

    SENDING.add(task := asyncio.ensure_future(send()))
    task.add_done_callback(SENDING.discard)


def script(name: str) -> str:
    """The URL scripts/NAME.sh prints (it installs and starts the server when missing)."""
    done = subprocess.run(["bash", str(ROOT / "scripts" / name)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"scripts/{name}: {done.stderr.strip()}")
    return done.stdout.strip()


MADE: list[str] = []  #: the databases this run made, dropped at its end


def fresh_database(postgres: str) -> str:
    name = "bench_" + uuid.uuid4().hex[:10]
    MADE.append(name)
    admin = create_engine(postgres, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f"CREATE DATABASE {name}"))
    admin.dispose()
    return postgres.rsplit("/", 1)[0] + "/" + name


def drop_databases(postgres: str, names: list[str]) -> None:
    """Drop the stages' databases."""
    admin = create_engine(postgres, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        for name in names:
            connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
    admin.dispose()


def start_node(db: str, redis: str | None, node: str) -> tuple[subprocess.Popen[str], str]:
    """A node on ``db``, one of several through ``redis`` (``None``: a single server)."""
    several = [] if redis is None else ["--redis", redis, "--node-id", node]
    process = subprocess.Popen(
        [sys.executable, "-m", "backalley", "serve", "--port", "0", "--db", db, *several,
         "--workers", "1", "--tables-per-minute", "100000",
         "--connections-per-address", "100000"],
        stdout=subprocess.PIPE, text=True, env=dict(os.environ, LANGUAGE="en"),
    )  # fmt: skip
    assert process.stdout is not None
    line = process.stdout.readline()
    return process, line.split(" at ", 1)[1].strip().rstrip("/")


async def stage(
    nodes: list[tuple[subprocess.Popen[str], str]], args: argparse.Namespace, console: Console,
    label: str,
) -> tuple[dict[str, Any], list[Play], list[asyncio.Task[None]]]:  # fmt: skip
    """Open the tables, let them play, measure: the row, the tables and their clients."""
    stats, rng = Stats(), random.Random(args.seed)
    bases = [base for _, base in nodes]
    plays: list[Play] = []
    tasks: list[asyncio.Task[None]] = []
    with Progress(console=console, transient=True) as progress:
        bar = progress.add_task(f"{label}: opening {args.tables} tables", total=args.tables)
        for n in range(args.tables):
            maker = bases[n % len(bases)]
            info = await asyncio.to_thread(create_table, maker, {"rules": "standard"})
            tokens = [await asyncio.to_thread(take_seat, maker, info, s, f"S{s}") for s in range(4)]
            play = Play(info["id"], tokens)
            plays.append(play)
            for s in range(4):
                first = (n + s) % len(bases)  # a proxy's round robin
                order = bases[first:] + bases[:first]
                tasks.append(asyncio.create_task(seat(play, s, order, args.pace, stats, rng)))
            progress.update(bar, advance=1)
    await asyncio.sleep(5)
    cpu = [cpu_seconds(p.pid) for p, _ in nodes]
    stats.recording = True
    started = time.perf_counter()
    await asyncio.sleep(args.seconds)
    stats.recording = False
    elapsed = time.perf_counter() - started
    latencies = sorted(stats.latencies)
    row = {
        "setup": label,
        "tables": args.tables,
        "actions_per_s": stats.actions / elapsed,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[int(0.99 * (len(latencies) - 1))],
        "cpu": [
            100 * (cpu_seconds(p.pid) - c) / elapsed for (p, _), c in zip(nodes, cpu, strict=True)
        ],
        "errors": stats.errors,
    }
    console.print(f"{label}: p50 {row['p50_ms']:.1f} ms, p99 {row['p99_ms']:.1f} ms")
    return row, plays, tasks


async def main(args: argparse.Namespace) -> None:
    console = Console()
    postgres, redis = script("postgres.sh"), script("redis.sh")
    rows = []
    singles = (("one server, no Redis", None), ("one node", redis))
    for label, link in singles if not args.failover_only else ():
        single = [start_node(fresh_database(postgres), link, "solo")]
        row, _, tasks = await stage(single, args, console, label)
        rows.append(row)
        for task in tasks:
            task.cancel()
        for process, _ in single:
            process.terminate()
            process.wait(60)
    outcomes = []
    for tables, seconds in ((args.tables, args.seconds), (args.light, 5.0)):
        db = fresh_database(postgres)
        pair = [start_node(db, redis, "first"), start_node(db, redis, "second")]
        label = "two nodes" if tables == args.tables else "two nodes, light"
        light = argparse.Namespace(**{**vars(args), "tables": tables, "seconds": seconds})
        row, plays, tasks = await stage(pair, light, console, label)
        if tables == args.tables:
            rows.append(row)
        outcomes.append((tables, *await failover(pair, plays, db)))
        for task in tasks:
            task.cancel()
        pair[1][0].terminate()
        pair[1][0].wait(60)
    show(console, rows, outcomes, args.pace)
    drop_databases(postgres, MADE)


async def failover(
    pair: list[tuple[subprocess.Popen[str], str]], plays: list[Play], db: str
) -> tuple[list[float], list[float], int]:
    """Kill the first node; for each of its tables (those made on it: every other one), the
    seconds until its clients are served again, and until its next action's event."""
    victims = plays[0::2]
    killed = time.perf_counter()
    pair[0][0].kill()
    # What the dead node stored is all it will ever store: an event newer than that comes
    # from the new owner.
    engine = create_engine(db)
    with engine.connect() as connection:
        query = text("SELECT table_id, max(seq) FROM events GROUP BY table_id")
        versions = {row[0]: row[1] for row in connection.execute(query)}
    engine.dispose()
    for play in victims:
        play.first_after, play.served, play.mark = None, None, versions.get(play.id, 0)
    await asyncio.sleep(15)
    served = sorted(play.served - killed for play in victims if play.served is not None)
    acted = sorted(play.first_after - killed for play in victims if play.first_after)
    return served, acted, len(victims)


def show(
    console: Console, rows: list[dict[str, Any]],
    outcomes: list[tuple[int, list[float], list[float], int]], pace: float,
) -> None:  # fmt: skip
    table = Table(title="Tables at a human pace: action → event at the other seats")
    for column in ("setup", "tables", "actions/s", "p50 ms", "p99 ms", "node CPU %", "errors"):
        table.add_column(column, justify="right")
    for row in rows:
        table.add_row(
            row["setup"], str(row["tables"]), f"{row['actions_per_s']:.0f}",
            f"{row['p50_ms']:.1f}", f"{row['p99_ms']:.1f}",
            " + ".join(f"{c:.0f}" for c in row["cpu"]), str(row["errors"]),
        )  # fmt: skip
    console.print(table)
    failover = Table(title="Failover: one of two nodes killed with SIGKILL, its tables")
    for column in ("tables in play", "from the kill to", "went on", "median s", "p90 s", "max s"):
        failover.add_column(column, justify="right")
    for tables, served, acted, victims in outcomes:
        for label, waits in (
            ("its clients served by the new owner", served),
            (f"the next action's event (a person acts {pace:g} s after the turn)", acted),
        ):
            if waits:
                failover.add_row(
                    str(tables), label, f"{len(waits)} of {victims}",
                    f"{statistics.median(waits):.2f}",
                    f"{waits[int(0.9 * (len(waits) - 1))]:.2f}", f"{waits[-1]:.2f}",
                )  # fmt: skip
            else:
                failover.add_row(str(tables), label, f"0 of {victims}", "—", "—", "—")
    console.print(failover)
    console.print(f"goal: the first event from the new owner under {FAILOVER_GOAL:.0f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--pace", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--light", type=int, default=60, help="tables in play at the second, lighter failover"
    )
    parser.add_argument(
        "--failover-only", action="store_true", help="only the two nodes and the failover"
    )
    asyncio.run(main(parser.parse_args()))
