"""The first game on a server just started, on a machine that has never compiled the solver.

    python benchmarks/first_game.py [--seconds 240] [--level hard]

It starts ``backalley serve`` with an empty numba cache of its own (as a fresh clone has: the
solver is compiled, once, at the server's start, in the background), and the moment the
server answers it makes a table — one person, three ``--level`` bots — and plays it as that
person: a random legal card, and before each of the person's cards in play a claim. It
prints how long the server took to answer, how long after the table started its first bot
acted (the target: under 5 s, however long the compilation takes), how long the solver took
to be ready, and for the claims the time to their first answer (``pending`` or settled) and,
for those asked before the solver was ready, how long after it they were settled (the
target: within 5 s). It stops once the solver is ready and a claim has been settled after
it, or after ``--seconds``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from rich.console import Console
from rich.table import Table

from backalley.server.client import Seat, create_table, request, seat_bot, take_seat

TARGET = 5.0  #: seconds: a bot's first action after the start; a claim settled after ready


@dataclass
class Figures:
    answered: float = 0.0  #: the server answered, after its start
    started: float | None = None  #: the table's game started
    first_bot: float | None = None  #: the first bot action seen
    ready: float | None = None  #: the server said the solver was ready
    #: each claim: (sent, first answer, settled) in monotonic seconds
    claims: dict[str, list[float | None]] = field(default_factory=dict)
    below_level: int = 0  #: bot moves made by the stand-in heuristic
    answers: list[str] = field(default_factory=list)  #: the claims' settled answers


def start(cache: str) -> tuple[subprocess.Popen[str], str, float]:
    """``backalley serve`` with numba's cache in ``cache``: the process, its URL, when
    started."""
    env = dict(os.environ, LANGUAGE="en", NUMBA_CACHE_DIR=cache)
    began = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "backalley", "serve", "--port", "0", "--db",
         f"sqlite:///{cache}/first.db"],
        stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert process.stdout is not None
    line = process.stdout.readline()
    return process, line.split(" at ", 1)[1].strip().rstrip("/"), began


async def watch_ready(base: str, figures: Figures, began: float) -> None:
    """Ask the server every 0.2 s whether its solver is ready, until it is."""
    while figures.ready is None:
        _, about = await asyncio.to_thread(request, base, "GET", "/api")
        if about["solver"]["ready"]:
            figures.ready = time.monotonic() - began
        await asyncio.sleep(0.2)


async def play(base: str, args: argparse.Namespace, figures: Figures, began: float) -> None:
    """The table of one person and three bots, played as the person until done."""
    table = await asyncio.to_thread(create_table, base, {"rules": "standard", "level": args.level})
    token = await asyncio.to_thread(take_seat, base, table, 0, "Ana")
    rng = random.Random(args.seed)
    async with Seat.connect(base, table["id"], token=token) as seat:
        await seat.recv()  # the state
        for bot in (1, 2, 3):
            await asyncio.to_thread(seat_bot, base, table, bot, args.level)
        asked: set[int] = set()  # the moves at which a claim was sent
        moves = 0
        while not seat.over and time.monotonic() - began < args.seconds:
            if _done(figures, began):
                return
            message = await seat.recv()
            now = time.monotonic()
            kind = message["type"]
            if kind == "event":
                event = message["event"]
                if event["kind"] == "start" and figures.started is None:
                    figures.started = now
                if event["kind"] in ("bid", "card"):
                    moves += 1
                    if event["seat"] != 0 and figures.first_bot is None:
                        figures.first_bot = now
                    figures.below_level += bool(event.get("below_level"))
            elif kind in ("pending", "ack", "error") and message.get("id") in figures.claims:
                times = figures.claims[message["id"]]
                times[1] = times[1] or now
                if kind != "pending":
                    times[2] = now
                    figures.answers.append(message.get("code", kind))
            if not seat.my_turn or seat.view is None:
                continue
            view = seat.view
            if view["phase"] == "play" and moves not in asked and not _pending(figures):
                asked.add(moves)
                figures.claims[await seat.claim()] = [time.monotonic(), None, None]
                continue
            if not _pending(figures):
                await seat.act(rng.choice(view["legal"]))


def _pending(figures: Figures) -> bool:
    return any(times[2] is None for times in figures.claims.values())


def _done(figures: Figures, began: float) -> bool:
    """The solver ready, and a claim asked after it settled."""
    if figures.ready is None:
        return False
    ready = began + figures.ready
    return any(t[0] is not None and t[0] > ready and t[2] for t in figures.claims.values())


def report(figures: Figures, console: Console, began: float) -> None:
    table = Table(title="The first game on a fresh server, nothing compiled")
    table.add_column("")
    table.add_column("seconds", justify="right")
    table.add_column("target", justify="right")

    def since(value: float | None, origin: float) -> str:
        return "—" if value is None else f"{value - origin:.2f}"

    table.add_row("the server answered, after its start", f"{figures.answered:.2f}", "")
    table.add_row("the solver ready, after the server's start",
                  "—" if figures.ready is None else f"{figures.ready:.1f}", "")  # fmt: skip
    origin = figures.started or 0.0
    table.add_row("the first bot action, after the game started",
                  since(figures.first_bot, origin), f"< {TARGET:g}")  # fmt: skip
    claims = list(figures.claims.values())
    first = [t[1] - t[0] for t in claims if t[1] is not None and t[0] is not None]
    if first:
        table.add_row(f"a claim's first answer, max of {len(first)}", f"{max(first):.3f}", "")
    ready = None if figures.ready is None else began + figures.ready
    asked = [(t[0], t[2]) for t in claims if t[0] is not None and t[2] is not None]
    settled = [end - ready for start, end in asked if ready is not None and start < ready]
    if settled:
        table.add_row(
            f"a claim asked before ready, settled after ready, max of {len(settled)}",
            f"{max(max(settled), 0.0):.2f}", f"< {TARGET:g}",
        )  # fmt: skip
    after = [end - start for start, end in asked if ready is not None and start > ready]
    if after:
        table.add_row(
            f"a claim asked after ready, settled, median of {len(after)}",
            f"{statistics.median(after):.2f}", "",
        )  # fmt: skip
    console.print(table)
    console.print(f"bot moves made by the stand-in heuristic: {figures.below_level}; the claims "
                  f"settled: {', '.join(figures.answers) or 'none'}")  # fmt: skip


async def main_async(args: argparse.Namespace, console: Console) -> None:
    with tempfile.TemporaryDirectory(prefix="backalley-first-") as cache:
        process, base, began = start(cache)
        figures = Figures(answered=time.monotonic() - began)
        try:
            with console.status("playing the first game while the solver is prepared"):
                watcher = asyncio.ensure_future(watch_ready(base, figures, began))
                await play(base, args, figures, began)
                watcher.cancel()
        finally:
            process.terminate()
            process.wait(30)
        report(figures, console, began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=240.0)
    parser.add_argument("--level", default="hard")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    asyncio.run(main_async(args, Console(width=100)))


if __name__ == "__main__":
    main()
