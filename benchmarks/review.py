"""How long the double-dummy review of a whole game takes, on one core.

    python benchmarks/review.py [--games N] [--players heuristic|random] [--seed S]

Each game is a whole ``standard`` game (25 deals, 13 cards down to 1 and back), played by
four ``heuristic`` bots (or ``random`` players) from its own seed, then reviewed card by
card (``backalley.analysis.review``, bids not included) with the search compiled and loaded
beforehand. The table gives each game's review time and its slowest 13-card deal; the
summary, the median game and the slowest 13-card deal against the targets (60 s a game,
10 s a 13-card deal), as a ratio: under 1 meets the target.
"""

from __future__ import annotations

import argparse
import statistics
import time

from rich.console import Console
from rich.progress import track
from rich.table import Table

import backalley
from backalley.analysis import review
from backalley.bots import make_bot, play_game
from backalley.engine import Game
from backalley.rules import Ruleset
from backalley.solver import compile_search

GAME_TARGET = 60.0
DEAL_TARGET = 10.0


def timed_review(game: Game) -> tuple[float, list[tuple[int, float]]]:
    """The review's time, and (hand size, seconds) for each deal with cards reviewed."""
    stamps: dict[int, float] = {}
    start = time.perf_counter()
    result = review(
        game, on_step=lambda done, _total: stamps.__setitem__(done, time.perf_counter())
    )
    total = time.perf_counter() - start
    deals, previous, count = [], start, 0
    for deal in result.deals:
        if deal.cards:
            count += len(deal.cards)
            deals.append((deal.hand_size, stamps[count] - previous))
            previous = stamps[count]
    return total, deals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=7)
    parser.add_argument("--players", default="heuristic", choices=["heuristic", "random"])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    compile_search()
    rules = Ruleset.preset("standard")
    rows = []
    for i in track(range(args.games), description="Reviewing", transient=True):
        seed = args.seed + i
        bots = [make_bot(args.players)] * 4
        game = play_game(Game(rules, seed=seed), bots, seed=seed)
        total, deals = timed_review(game)
        big = max(seconds for size, seconds in deals if size == 13)
        rows.append((seed, total, big, len(deals)))
    table = Table(title=f"Card review of whole standard games ({args.players} players), one core")
    for column in ("seed", "deals reviewed", "review s", "slowest 13-card deal s"):
        table.add_column(column, justify="right")
    for seed, total, big, count in rows:
        table.add_row(str(seed), str(count), f"{total:.2f}", f"{big:.2f}")
    console = Console()
    console.print(table)
    median = statistics.median(total for _seed, total, _big, _count in rows)
    slowest = max(big for _seed, _total, big, _count in rows)
    summary = Table(title="Against the targets")
    for column in ("measure", "seconds", "target s", "÷ target"):
        summary.add_column(column, justify="right")
    summary.add_row(
        "median game", f"{median:.2f}", f"{GAME_TARGET:.0f}", f"{median / GAME_TARGET:.3f}"
    )
    summary.add_row(
        "slowest 13-card deal",
        f"{slowest:.2f}",
        f"{DEAL_TARGET:.0f}",
        f"{slowest / DEAL_TARGET:.3f}",
    )
    console.print(summary)
    console.print(f"engine compiled: {backalley.COMPILED}")


if __name__ == "__main__":
    main()
