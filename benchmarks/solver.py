"""Solver speed by hand size, next to DDS (through endplay) on the same positions.

    python benchmarks/solver.py [--sizes 7,10,13] [--positions 50] [--runs 3]

Positions are fresh bridge-equivalent deals (no joker in play, no P3 restriction: see
tests/test_solver_dds.py), seeded, the leader to play. Each is solved for every legal card,
by ours (``card_values``, its transposition table emptied first, as a new search finds it)
and by DDS's ``solve_board``, one after the other; both answers are checked to agree. Each
run solves every position once; the table gives, per size, the median over the runs of each
run's median (p50) and 95th percentile (p95), and ours ÷ DDS for both.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from endplay import dds
from rich.console import Console
from rich.progress import track
from rich.table import Table

import backalley
from backalley.cards import BIG_BLOOPER, LITTLE_BLOOPER
from backalley.engine import Game, Phase
from backalley.rules import Ruleset
from backalley.solver import Position, card_values, clear_table

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from test_solver_dds import dds_values


def fresh_position(size: int, rng: random.Random) -> Position:
    cards = list(range(52))
    rng.shuffle(cards)
    hands = [cards[i * size : (i + 1) * size] for i in range(4)]
    stock = [BIG_BLOOPER, LITTLE_BLOOPER, *cards[4 * size :]]  # joker turned up: no trump
    game = Game(Ruleset.preset("standard", hand_sizes=[size], all_pass="play"))
    game.start_deal(rng.randrange(4), hands, stock)
    while game.phase == Phase.BID:
        game.apply(game.legal_actions()[0])
    return Position.from_game(game)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="7,10,13", help="hand sizes, comma-separated")
    parser.add_argument("--positions", type=int, default=50, help="positions per size")
    parser.add_argument("--runs", type=int, default=3, help="runs over every position")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sizes = [int(s) for s in args.sizes.split(",")]
    mode = "compiled" if backalley.COMPILED else "pure Python"
    jobs = [(size, fresh_position(size, rng)) for size in sizes for _ in range(args.positions)]
    card_values(fresh_position(3, random.Random(0)))  # load (or compile) the search first
    # [run][size] -> times
    ours: list[dict[int, list[float]]] = []
    theirs: list[dict[int, list[float]]] = []
    work = [(run, size, position) for run in range(args.runs) for size, position in jobs]
    for run, size, position in track(work, description="Solving", console=Console(stderr=True)):
        if len(ours) <= run:
            ours.append({s: [] for s in sizes})
            theirs.append({s: [] for s in sizes})
        clear_table()
        start = time.perf_counter()
        mine = card_values(position)
        ours[run][size].append(time.perf_counter() - start)
        start = time.perf_counter()
        reference = dds_values(position)
        theirs[run][size].append(time.perf_counter() - start)
        assert mine == reference, "the solver disagrees with DDS"
    table = Table(
        title=f"Solving every legal card of a fresh no-trump deal ({mode}): {args.positions} "
        f"positions a size, seed {args.seed}, the median of {args.runs} runs"
    )
    for column in ("cards", "ours p50 ms", "DDS p50 ms", "÷ p50", "ours p95 ms", "DDS p95 ms",
                   "÷ p95"):  # fmt: skip
        table.add_column(column, justify="right")
    for size in sizes:
        row = [str(size)]
        for q in (0.5, 0.95):
            a = statistics.median(percentile(run[size], q) for run in ours)
            b = statistics.median(percentile(run[size], q) for run in theirs)
            row += [f"{1000 * a:.1f}", f"{1000 * b:.1f}", f"{a / b:.2f}×"]
        table.add_row(*row[:1], row[1], row[2], row[3], row[4], row[5], row[6])
    Console().print(table)


if __name__ == "__main__":
    assert dds  # endplay is a benchmark and test dependency
    main()
