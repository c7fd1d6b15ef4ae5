"""Baselines: what a result on Back Alley is worth, player by player, against `heuristic`.

    python benchmarks/baselines.py [--players random,easy,…] [--lengths short,longer]
                                   [--games 400] [--jobs 2] [--seed 1] [--repeatable]

Each player holds both seats of a side against ``heuristic`` (the ``medium`` level) holding
the other two, in duplicate (``backalley.arena``: every deal set played twice, the sides
swapped, so the luck of the cards cancels), under ``standard`` rules on the short game (3, 2
and 1 cards) and the longer one (7 … 1 … 7). A row gives the player's points a game over
heuristic's with its 95 % interval, the share of games it won, and its time a decision
(the mean over every decision it made in ``--timing-games`` games of its own, on one core: a
player that waits on nothing). ``medium`` is heuristic itself, so its row is 0 by construction: the
table's zero. Any name the arena takes is a player: a level, ``openspiel-ismcts``,
``policy:FILE`` (a policy saved by ``examples/self_play.py``), ``pimc:KEY=VALUE,…``.

Bots keep to their clocks, as they play at a table, unless ``--repeatable``. The command
that reproduces one row is printed under the table.
"""

from __future__ import annotations

import argparse
import random
import time

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from backalley.arena import MatchReport, run_match
from backalley.bots import make_bot
from backalley.engine import Game, Phase
from backalley.rules import Ruleset

PLAYERS = "random,easy,medium,hard,expert,openspiel-ismcts"
LENGTHS = {"short": [3, 2, 1], "longer": [7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7]}
OPPONENT = "heuristic"


def seconds_a_decision(player: str, rules: Ruleset, games: int, seed: int) -> float:
    """The mean time ``player`` takes over a decision, seated at 0 and 2 against the
    opponent at 1 and 3, over ``games`` games."""
    spent, decisions = 0.0, 0
    for number in range(games):
        game = Game(rules, seed=seed * 1000 + number)
        bots = [make_bot(player), make_bot(OPPONENT)] * 2
        rng = random.Random(number)
        while not game.is_over:
            if game.phase == Phase.DEAL:
                game.deal_from(rng)
                continue
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            start = time.perf_counter()
            action = bots[seat].act(view, rng)
            if seat % 2 == 0:
                spent += time.perf_counter() - start
                decisions += 1
            game.apply(action)
    return spent / max(1, decisions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default=PLAYERS, help="comma-separated")
    parser.add_argument("--lengths", default="short,longer", help="short, longer or both")
    parser.add_argument("--games", type=int, default=400, help="games a cell (two a deal set)")
    parser.add_argument("--timing-games", type=int, default=10, help="games timed a cell")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeatable", action="store_true", help="no clocks (see arena)")
    args = parser.parse_args()
    players = [name for name in args.players.split(",") if name]
    lengths = [length for length in args.lengths.split(",") if length]
    for name in players:
        make_bot(name)  # an unknown player fails before anything is played
    console = Console(stderr=True)
    cells: dict[tuple[str, str], tuple[MatchReport, float]] = {}
    with Progress(console=console) as progress:
        task = progress.add_task("Matches", total=len(players) * len(lengths))
        for length in lengths:
            rules = Ruleset.preset("standard", hand_sizes=LENGTHS[length])
            for name in players:
                progress.update(task, description=f"{name}, {length} game")
                report = run_match(
                    name, OPPONENT, rules, args.games, args.seed, args.jobs,
                    repeatable=args.repeatable,
                )  # fmt: skip
                pace = seconds_a_decision(name, rules, args.timing_games, args.seed)
                cells[name, length] = (report, pace)
                progress.advance(task)
    table = Table(
        title=f"Against {OPPONENT} (medium) holding the other side, in duplicate, standard, "
        f"{args.games} games a cell, seed {args.seed}"
        + (", off the clock" if args.repeatable else "")
    )
    table.add_column("player")
    for length in lengths:
        sizes = ", ".join(map(str, LENGTHS[length]))
        table.add_column(
            f"{length} ({sizes} cards): points a game over {OPPONENT}", justify="right"
        )
        table.add_column("wins", justify="right")
        table.add_column("s a decision", justify="right")
    for name in players:
        row = [name]
        for length in lengths:
            report, pace = cells[name, length]
            mean, half = report.difference
            wins = report.bots[0].wins / max(1, report.games)
            row += [f"{mean:+.1f} ± {half:.1f}", f"{100 * wins:.1f} %", _seconds(pace)]
        table.add_row(*row)
    Console().print(table)
    flags = " --repeatable" if args.repeatable else ""
    print(
        f"one row: python benchmarks/baselines.py --players NAME --lengths {','.join(lengths)}"
        f" --games {args.games} --seed {args.seed}{flags}"
    )


def _seconds(value: float) -> str:
    if value < 0.001:
        return f"{value * 1e6:.0f} µs"
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


if __name__ == "__main__":
    main()
