"""Solver speed by hand size, next to DDS (through endplay) on the same positions.

    python benchmarks/solver.py [--sizes 3,5,7,9] [--positions N]

Positions are fresh bridge-equivalent deals (no joker in play, no P3 restriction: see
tests/test_solver_dds.py), the leader to play. Each is solved for every legal card, by ours
(``card_values``) and by DDS's ``solve_board``; the table gives median and 95th-percentile
times and the ratio of the medians. Both answers are checked to agree.
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
from backalley.solver import Position, card_values

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
    parser.add_argument("--sizes", default="3,5,7,9", help="hand sizes, comma-separated")
    parser.add_argument("--positions", type=int, default=20, help="positions per size")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sizes = [int(s) for s in args.sizes.split(",")]
    mode = "compiled" if backalley.COMPILED else "pure Python"
    table = Table(
        title=f"Solving every legal card of a fresh no-trump deal ({mode}), seed {args.seed}"
    )
    for column in (
        "cards",
        "positions",
        "ours median ms",
        "ours p95 ms",
        "DDS median ms",
        "DDS p95 ms",
        "ours ÷ DDS (median)",
    ):
        table.add_column(column, justify="right")
    jobs = [(size, fresh_position(size, rng)) for size in sizes for _ in range(args.positions)]
    card_values(fresh_position(3, random.Random(0)))  # load (or compile) the search first
    ours: dict[int, list[float]] = {s: [] for s in sizes}
    theirs: dict[int, list[float]] = {s: [] for s in sizes}
    for size, position in track(jobs, description="Solving", console=Console(stderr=True)):
        start = time.perf_counter()
        mine = card_values(position)
        ours[size].append(time.perf_counter() - start)
        start = time.perf_counter()
        reference = dds_values(position)
        theirs[size].append(time.perf_counter() - start)
        assert mine == reference, "the solver disagrees with DDS"
    for size in sizes:
        a, b = ours[size], theirs[size]
        table.add_row(
            str(size),
            str(len(a)),
            f"{1000 * statistics.median(a):.1f}",
            f"{1000 * percentile(a, 0.95):.1f}",
            f"{1000 * statistics.median(b):.2f}",
            f"{1000 * percentile(b, 0.95):.2f}",
            f"{statistics.median(a) / statistics.median(b):,.1f}×",
        )
    Console().print(table)


if __name__ == "__main__":
    assert dds  # endplay is a benchmark and test dependency
    main()
