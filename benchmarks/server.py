"""How many tables one server process holds at a human pace, and how fast it broadcasts.

    python benchmarks/server.py [--stages 10,100,500,1000] [--seconds 30] [--pace 1.0]
                                [--db URL] [--before REV]

One ``backalley serve`` process (SQLite in a temporary folder unless ``--db`` names another
database) and, in this process, four WebSocket clients per table, every seat a person: each
client acts ``--pace`` seconds after its turn comes, with a random legal action, in full
``standard`` games. The tables grow stage by stage (10 → 100 → 500 → 1000); at each stage,
after a few seconds to settle, for ``--seconds`` it counts the actions the server applied
and, for each action, the time from its sending to its broadcast's arrival at each of the
other three seats. It prints actions a second, the p50 and p99 of that latency, the server's
and this client process's CPU (one core is 100 %), and the most tables held with a p99 under
100 ms (the target: 500; the aim: 1000 under 50 ms).

First, on the idle server, one table whose four seats act the moment their turn comes: the
time from an action sent to its ``ack`` at the sender (p50, p95, max: the target is a p95
under 10 ms), and how many HTTP requests one keep-alive connection gets answered a second.

Then, on a server of its own with ``--workers 2``, the bots' fair share: one table of
``medium`` bots beside ``--expert-tables`` (20) tables of ``expert`` bots, all at pace 0,
for ``--bots`` seconds (60; 0 skips it): the time each of the medium table's bot moves took,
from the event before it (p50, p95 — the target is under 1 s — and max), and the expert
tables' moves a second.

``--before REV`` runs everything twice in one run, first on the server as it was at the git
revision ``REV`` (built, engine compiled, in a temporary folder), then as it is now, and
prints the two side by side with their ratio. ``--rounds N`` (with ``--before``) runs the
stages N times each, interleaved and in alternating order (before, now; now, before; …), so
that neither is always the first on a cold machine, and prints every round's ratios and
which stages were slower now by more than 20 % (in actions/s or p50) in every round.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from backalley.server.client import create_table, seat_bot, take_seat

TARGET_TABLES, TARGET_P99 = 500, 0.100
AIM_TABLES, AIM_P99 = 1000, 0.050
TARGET_ACK_P95 = 0.010
TARGET_BOT_P95 = 1.0  #: a medium bot's move beside twenty tables of expert bots
IDLE_ACTIONS = 300


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)  #: this process's loop, late by
    actions: int = 0
    errors: int = 0
    recording: bool = False


@dataclass
class BenchTable:
    """A table and its four clients; ``pending`` is the action in flight: (sent at, seat)."""

    id: str
    tokens: list[str]
    sockets: list[ClientConnection] = field(default_factory=list)
    readers: list[asyncio.Future[None]] = field(default_factory=list)
    pending: tuple[float, int] | None = None
    next_id: int = 0


async def seat_loop(
    table: BenchTable, seat: int, socket: ClientConnection, pace: float, stats: Stats,
    rng: random.Random,
) -> None:  # fmt: skip
    """Read what the server sends to ``seat``; act ``pace`` seconds after each turn comes."""
    with contextlib.suppress(ConnectionClosed):
        await read_seat(table, seat, socket, pace, stats, rng)


async def read_seat(
    table: BenchTable, seat: int, socket: ClientConnection, pace: float, stats: Stats,
    rng: random.Random,
) -> None:  # fmt: skip
    acted_on = -1
    loop = asyncio.get_running_loop()
    async for frame in socket:
        message = json.loads(frame)
        kind = message.get("type")
        if kind == "event":
            event = message["event"]
            pending = table.pending
            if (
                stats.recording
                and event["kind"] in ("bid", "card")
                and pending is not None
                and event["seat"] == pending[1] != seat
            ):
                stats.latencies.append(time.perf_counter() - pending[0])
        elif kind == "ack":
            if table.pending is not None and table.pending[1] == seat:
                table.pending = None
                if stats.recording:
                    stats.actions += 1
        elif kind == "error":
            stats.errors += 1
        view = message.get("view")
        if view and view["legal"] and message["version"] > acted_on:
            acted_on = message["version"]
            choice = rng.choice(view["legal"])
            loop.call_later(pace, lambda c=choice: asyncio.ensure_future(act(table, seat, c)))


async def act(table: BenchTable, seat: int, action: str) -> None:
    table.next_id += 1
    table.pending = (time.perf_counter(), seat)
    message = {"type": "act", "id": f"{seat}-{table.next_id}", "action": action}
    with contextlib.suppress(ConnectionClosed):  # at the end, when the sockets are dropped
        await table.sockets[seat].send(json.dumps(message))


async def open_table(base: str, pace: float, stats: Stats, rng: random.Random) -> BenchTable:
    info = await asyncio.to_thread(create_table, base, {"rules": "standard"})
    tokens = [await asyncio.to_thread(take_seat, base, info, s, f"S{s}") for s in range(4)]
    table = BenchTable(info["id"], tokens)
    uri = "ws" + base.removeprefix("http") + f"/ws/tables/{table.id}"
    for seat, token in enumerate(tokens):
        socket = await connect(uri, max_size=2**20, open_timeout=60, ping_interval=None)
        await socket.send(json.dumps({"type": "hello", "token": token}))
        table.sockets.append(socket)
        table.readers.append(
            asyncio.ensure_future(seat_loop(table, seat, socket, pace, stats, rng))
        )
    return table


async def watch_lag(stats: Stats) -> None:
    """How late this process's own event loop runs: a late client inflates the latencies it
    measures, so the table shows it beside them."""
    while True:
        start = time.perf_counter()
        await asyncio.sleep(0.01)
        if stats.recording:
            stats.lags.append(time.perf_counter() - start - 0.01)


def cpu_seconds(pid: int) -> float:
    """User and system CPU of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(
    db: str, code: Path | None = None, workers: int | None = None
) -> tuple[subprocess.Popen[str], str]:
    """``backalley serve`` on ``db``: the one installed, or the one built in ``code``."""
    env = dict(os.environ, LANGUAGE="en")
    if code is not None:
        env["PYTHONPATH"] = str(code)
    unlimited = ["--connections-per-address", "100000"]
    unlimited += [] if workers is None else ["--workers", str(workers)]
    process = subprocess.Popen(
        [sys.executable, "-m", "backalley", "serve", "--port", "0", "--db", db,
         "--tables-per-minute", "100000", *unlimited],
        stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert process.stdout is not None
    line = process.stdout.readline()
    return process, line.split(" at ", 1)[1].strip().rstrip("/")


def build(revision: str, console: Console) -> Path:
    """The package as it was at git ``revision``, built (its engine compiled) into a folder
    to put on PYTHONPATH."""
    root = Path(__file__).resolve().parent.parent
    folder = Path(tempfile.mkdtemp(prefix="backalley-before-"))
    with console.status(f"building {revision} (about 30 s)"):
        subprocess.run(
            ["git", "-C", str(root), "worktree", "add", "-q", "--detach", str(folder / "src"),
             revision],
            check=True,
        )  # fmt: skip
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder),
             str(folder / "src")],
            check=True,
        )  # fmt: skip
        subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force",
                        str(folder / "src")], check=True)  # fmt: skip
        [wheel] = folder.glob("*.whl")
        code = folder / "site"
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(code)
        for compiled in code.rglob("*.so"):  # newer than its sources, as pip leaves them
            compiled.touch()
    return code


async def idle(base: str) -> dict[str, float]:
    """On an idle server: act → ack at the sender, one table acting as fast as it can, and
    HTTP requests a second on one keep-alive connection."""
    info = await asyncio.to_thread(create_table, base, {"rules": "standard"})
    tokens = [await asyncio.to_thread(take_seat, base, info, s, f"S{s}") for s in range(4)]
    uri = "ws" + base.removeprefix("http") + f"/ws/tables/{info['id']}"
    sockets = [await connect(uri, ping_interval=None) for _ in tokens]
    views: list[Any] = [None] * 4
    versions = [0] * 4

    async def until(seat: int, done: Any) -> dict[str, Any]:
        while True:
            message = json.loads(await sockets[seat].recv())
            if message.get("view"):
                views[seat] = message["view"]
            if message["type"] in ("state", "event"):
                versions[seat] = message["version"]
            if message["type"] == "error":
                raise RuntimeError(message)
            if done(message):
                return dict(message)

    for socket, token in zip(sockets, tokens, strict=True):
        await socket.send(json.dumps({"type": "hello", "token": token}))
    for seat in range(4):
        await until(seat, lambda m: m["type"] == "state")
    times = []
    for n in range(IDLE_ACTIONS):
        while True:  # every seat up to date, and one of them to act (a redeal may follow)
            behind = min(range(4), key=lambda s: versions[s])
            if versions[behind] < max(versions):
                await until(behind, lambda m: m["type"] == "event")
            elif any(view["legal"] for view in views):
                break
            else:
                await until(0, lambda m: m["type"] == "event")
        seat = next(s for s in range(4) if views[s]["legal"])
        started = time.perf_counter()
        message = {"type": "act", "id": str(n), "action": views[seat]["legal"][0]}
        await sockets[seat].send(json.dumps(message))
        await until(seat, lambda m: m["type"] == "ack")
        times.append(time.perf_counter() - started)
    for socket in sockets:
        await socket.close()
    times.sort()
    host = base.removeprefix("http://")
    return {
        "ack_p50_ms": 1000 * statistics.median(times),
        "ack_p95_ms": 1000 * times[int(0.95 * (len(times) - 1))],
        "ack_max_ms": 1000 * times[-1],
        "http_per_s": await asyncio.to_thread(http_rate, host, info["id"]),
    }


def http_rate(host: str, table_id: str, seconds: float = 2.0) -> float:
    """Requests answered a second on one keep-alive connection: a free seat asked for at the
    full table (a POST with a body, refused) and the table's state, in turn."""
    connection = http.client.HTTPConnection(host, timeout=10)
    body = json.dumps({"name": "Nobody"})
    headers = {"content-type": "application/json"}
    answered, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        if answered % 2:
            connection.request("GET", f"/api/tables/{table_id}")
        else:
            connection.request("POST", f"/api/tables/{table_id}/join", body, headers)
        connection.getresponse().read()
        answered += 1
    connection.close()
    return answered / (time.perf_counter() - started)


def bots_table(base: str, level: str) -> dict[str, Any]:
    """A table of four ``level`` bots at pace 0, started."""
    info = create_table(base, {"rules": "standard", "pace": 0, "level": level})
    for seat in range(4):
        seat_bot(base, info, seat, level)
    return info


async def moves_seen(base: str, info: dict[str, Any], until: float, gaps: list[float]) -> int:
    """Watch a table until ``until`` (the monotonic clock): each bid's or card's time since
    the event before it (a bot's move: its wait for a worker, and its thought) in ``gaps``;
    how many moves were seen."""
    uri = "ws" + base.removeprefix("http") + f"/ws/tables/{info['id']}"
    seen, last = 0, None
    async with connect(uri, max_size=2**20, ping_interval=None) as socket:
        await socket.send(json.dumps({"type": "hello", "watch": info["watch"]["code"]}))
        while (left := until - time.monotonic()) > 0:
            try:
                message = json.loads(await asyncio.wait_for(socket.recv(), left))
            except TimeoutError:
                break
            if message["type"] != "event":
                continue
            now = time.monotonic()
            if message["event"]["kind"] in ("bid", "card"):
                seen += 1
                if last is not None:
                    gaps.append(now - last)
            last = now
    return seen


async def fair_share(
    args: argparse.Namespace, console: Console, code: Path | None = None
) -> dict[str, float]:
    """A table of medium bots beside tables of expert bots, on a server of two workers: the
    medium bots' moves' times, and the expert tables' moves a second."""
    folder = tempfile.mkdtemp(prefix="backalley-bench-")
    server, base = start_server(f"sqlite:///{folder}/server.db", code, workers=2)
    try:
        with console.status("warming the solver, starting the expert tables"):
            await asyncio.sleep(5)  # the workers load the solver (compiled once a machine)
            experts = [
                await asyncio.to_thread(bots_table, base, "expert")
                for _ in range(args.expert_tables)
            ]
            await asyncio.sleep(args.settle)
        medium = await asyncio.to_thread(bots_table, base, "medium")
        until = time.monotonic() + args.bots
        gaps: list[float] = []
        with console.status(f"watching for {args.bots:g} s"):
            counts = await asyncio.gather(
                moves_seen(base, medium, until, gaps),
                *(moves_seen(base, info, until, []) for info in experts),
            )
    finally:
        server.terminate()
        server.wait(20)
    gaps.sort()

    def at(q: float) -> float:
        return 1000 * gaps[int(q * (len(gaps) - 1))]

    return {
        "moves": len(gaps), "p50_ms": at(0.5), "p95_ms": at(0.95), "max_ms": 1000 * gaps[-1],
        "expert_moves_per_s": sum(counts[1:]) / args.bots,
    }  # fmt: skip


async def run(
    args: argparse.Namespace, console: Console, code: Path | None = None
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    folder = tempfile.mkdtemp(prefix="backalley-bench-")
    db = args.db or f"sqlite:///{folder}/server.db"
    server, base = start_server(db, code)
    quiet = await idle(base)
    console.print(
        f"idle: act → ack p50 {quiet['ack_p50_ms']:.1f} ms, p95 {quiet['ack_p95_ms']:.1f} ms; "
        f"{quiet['http_per_s']:.0f} HTTP requests/s on one connection"
    )
    stats, rng = Stats(), random.Random(args.seed)
    tables: list[BenchTable] = []
    rows = []
    lag = asyncio.ensure_future(watch_lag(stats))
    try:
        for target in args.stages:
            with Progress(console=console, transient=True) as progress:
                task = progress.add_task(f"opening tables: {target}", total=target)
                progress.update(task, completed=len(tables))
                while len(tables) < target:
                    batch = min(25, target - len(tables))
                    tables += await asyncio.gather(
                        *(open_table(base, args.pace, stats, rng) for _ in range(batch))
                    )
                    progress.update(task, completed=len(tables))
            await asyncio.sleep(args.settle)
            stats.latencies.clear()
            stats.lags.clear()
            stats.actions = stats.errors = 0
            server_cpu, own_cpu = cpu_seconds(server.pid), time.process_time()
            stats.recording = True
            started = time.perf_counter()
            await asyncio.sleep(args.seconds)
            stats.recording = False
            elapsed = time.perf_counter() - started
            latencies = sorted(stats.latencies)
            row = {
                "tables": target,
                "connections": 4 * target,
                "actions_per_s": stats.actions / elapsed,
                "p50_ms": 1000 * statistics.median(latencies) if latencies else float("nan"),
                "p99_ms": 1000 * latencies[int(0.99 * (len(latencies) - 1))]
                if latencies
                else float("nan"),
                "samples": len(latencies),
                "lag_p99_ms": 1000 * sorted(stats.lags)[int(0.99 * (len(stats.lags) - 1))],
                "server_cpu": 100 * (cpu_seconds(server.pid) - server_cpu) / elapsed,
                "client_cpu": 100 * (time.process_time() - own_cpu) / elapsed,
                "errors": stats.errors,
            }
            rows.append(row)
            console.print(
                f"{target} tables: {row['actions_per_s']:.0f} actions/s, "
                f"p50 {row['p50_ms']:.1f} ms, p99 {row['p99_ms']:.1f} ms"
            )
    finally:
        lag.cancel()
        for table in tables:
            for socket in table.sockets:
                socket.transport.abort()
        server.terminate()
        server.wait(20)
    return quiet, rows


def report(
    runs: dict[str, tuple[dict[str, float], list[dict[str, Any]]]],
    console: Console,
    args: argparse.Namespace,
) -> None:
    """The idle figures and the stages, of each server run (``now``, and ``before`` with
    ``--before``), side by side."""
    names = list(runs)
    idle_table = Table(title="Idle server: one table acting as fast as it can; one HTTP connection")
    idle_table.add_column("")
    for name in names:
        idle_table.add_column(name, justify="right")
    if len(names) == 2:
        idle_table.add_column("now / before", justify="right")
    for key, label, unit in (
        ("ack_p50_ms", "act → ack p50", "ms"),
        ("ack_p95_ms", f"act → ack p95 (target < {1000 * TARGET_ACK_P95:.0f} ms)", "ms"),
        ("ack_max_ms", "act → ack max", "ms"),
        ("http_per_s", "HTTP requests/s", "/s"),
    ):
        values = [runs[name][0][key] for name in names]
        cells = [f"{v:.1f} ms" if unit == "ms" else f"{v:,.0f}" for v in values]
        if len(values) == 2:
            cells.append(f"{values[1] / values[0]:.2f}")
        idle_table.add_row(label, *cells)
    console.print(idle_table)

    table = Table(
        title=f"One server process, four clients a table, an action {args.pace:g} s after "
        f"each turn; {args.seconds:g} s measured a stage; CPU: 100 % is one core"
    )
    columns = ["tables", "sockets", "actions/s", "p50", "p99", "server CPU", "clients' CPU",
               "clients' lag p99", "errors"]  # fmt: skip
    if len(names) == 2:
        columns.insert(0, "server")
    for name in columns:
        table.add_column(name, justify="right")
    for index in range(len(runs[names[-1]][1])):
        for name in names:
            row = runs[name][1][index]
            cells = [
                str(row["tables"]), str(row["connections"]), f"{row['actions_per_s']:.0f}",
                f"{row['p50_ms']:.1f} ms", f"{row['p99_ms']:.1f} ms",
                f"{row['server_cpu']:.0f} %", f"{row['client_cpu']:.0f} %",
                f"{row['lag_p99_ms']:.1f} ms", str(row["errors"]),
            ]  # fmt: skip
            table.add_row(*([name] if len(names) == 2 else []), *cells)
    console.print(table)
    now_idle, rows = runs["now"]
    held = [r["tables"] for r in rows if r["p99_ms"] < 1000 * TARGET_P99]
    aim = [r["tables"] for r in rows if r["p99_ms"] < 1000 * AIM_P99]
    most = max(held, default=0)
    met = now_idle["ack_p95_ms"] < 1000 * TARGET_ACK_P95
    console.print(
        f"idle act → ack p95 {now_idle['ack_p95_ms']:.1f} ms (target under "
        f"{1000 * TARGET_ACK_P95:.0f} ms: {'met' if met else 'not met'}); "
        f"most tables with p99 under {1000 * TARGET_P99:.0f} ms: {most} "
        f"(target {TARGET_TABLES}: {'met' if most >= TARGET_TABLES else 'not met'}); "
        f"under {1000 * AIM_P99:.0f} ms: {max(aim, default=0)} (aim {AIM_TABLES})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stages", default="10,100,500,1000")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--pace", type=float, default=1.0)
    parser.add_argument("--db", help="an SQLAlchemy URL (default: SQLite in a temporary folder)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bots", type=float, default=60.0,
                        help="seconds of the bots' fair share stage (0: skip it)")  # fmt: skip
    parser.add_argument("--expert-tables", type=int, default=20)
    parser.add_argument(
        "--before", metavar="REV", help="also run the server as it was at git revision REV"
    )
    parser.add_argument(
        "--rounds", type=int, default=1,
        help="with --before: the stages this many times each, interleaved, in alternating order",
    )  # fmt: skip
    args = parser.parse_args()
    args.stages = [int(s) for s in args.stages.split(",") if s]
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the server inherits it too
    console = Console(width=110)
    try:  # the server runs on uvloop when it is there (uvicorn's choice): so do its clients
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    code = build(args.before, console) if args.before else None
    if args.rounds > 1 and code is not None and args.stages:
        rounds = []
        for index in range(args.rounds):
            order = ("before", "now") if index % 2 == 0 else ("now", "before")
            rounds.append({})
            for name in order:
                console.print(f"round {index + 1} of {args.rounds}: {name}")
                rounds[-1][name] = asyncio.run(
                    run(args, console, code if name == "before" else None)
                )
        report_rounds(rounds, console)
        return
    runs, shares = {}, {}
    for name in ("before", "now") if args.before else ("now",):
        console.print(f"{name}: {args.before if name == 'before' else 'this tree'}")
        built = code if name == "before" else None
        if args.stages:
            runs[name] = asyncio.run(run(args, console, built))
        if args.bots:
            shares[name] = asyncio.run(fair_share(args, console, built))
    if runs:
        report(runs, console, args)
    if shares:
        report_fair_share(shares, console, args)


SLOWER = 1.20  #: slower than before by more than this, in every round, is a regression


def report_rounds(
    rounds: list[dict[str, tuple[dict[str, float], list[dict[str, Any]]]]], console: Console
) -> None:
    """Each round's figures, now beside before, as ratios (now / before: actions/s under 1,
    or p50 over 1, is slower), and the stages slower by more than 20 % in every round."""
    table = Table(title=f"{len(rounds)} rounds, interleaved in alternating order: now / before")
    for column in ("tables", "round", "first", "actions/s before → now", "ratio",
                   "p50 before → now", "ratio"):  # fmt: skip
        table.add_column(column, justify="right")
    regressions = []
    for index, row in enumerate(rounds[0]["now"][1]):
        slower = []
        for number, runs in enumerate(rounds):
            before, now = runs["before"][1][index], runs["now"][1][index]
            rate = now["actions_per_s"] / before["actions_per_s"]
            p50 = now["p50_ms"] / before["p50_ms"]
            slower.append(rate < 1 / SLOWER or p50 > SLOWER)
            table.add_row(
                str(row["tables"]), str(number + 1), next(iter(runs)),
                f"{before['actions_per_s']:.0f} → {now['actions_per_s']:.0f}", f"{rate:.2f}",
                f"{before['p50_ms']:.1f} → {now['p50_ms']:.1f} ms", f"{p50:.2f}",
                end_section=number == len(rounds) - 1,
            )  # fmt: skip
        if all(slower):
            regressions.append(row["tables"])
    console.print(table)
    acks = [(runs["before"][0]["ack_p95_ms"], runs["now"][0]["ack_p95_ms"]) for runs in rounds]
    console.print("idle act → ack p95, before → now: " + ", ".join(
        f"{b:.1f} → {n:.1f} ms" for b, n in acks))  # fmt: skip
    verdict = (
        f"slower by more than {100 * (SLOWER - 1):.0f} % in every round at {regressions} tables"
        if regressions
        else f"no stage slower by more than {100 * (SLOWER - 1):.0f} % in every round"
    )
    console.print(verdict)


def report_fair_share(
    shares: dict[str, dict[str, float]], console: Console, args: argparse.Namespace
) -> None:
    table = Table(
        title=f"The bots' fair share, --workers 2: one table of medium bots beside "
        f"{args.expert_tables} tables of expert bots, {args.bots:g} s"
    )
    table.add_column("")
    for name in shares:
        table.add_column(name, justify="right")
    for key, label in (
        ("moves", "medium bots' moves seen"),
        ("p50_ms", "a medium bot's move, p50"),
        ("p95_ms", f"… p95 (target < {TARGET_BOT_P95:g} s)"),
        ("max_ms", "… max"),
        ("expert_moves_per_s", "expert tables' moves a second"),
    ):
        cells = []
        for figures in shares.values():
            value = figures[key]
            cells.append(f"{value:.0f} ms" if key.endswith("_ms") else f"{value:,.1f}")
        table.add_row(label, *cells)
    console.print(table)
    p95 = shares["now"]["p95_ms"] / 1000
    met = "met" if p95 < TARGET_BOT_P95 else "not met"
    console.print(f"a medium bot's move beside the experts: p95 {p95:.3f} s ({met})")


if __name__ == "__main__":
    main()
