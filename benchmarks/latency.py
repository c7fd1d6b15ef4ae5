"""How long a bot takes to decide with thirteen cards in hand, on one core.

    python benchmarks/latency.py [--bot expert] [--deals N] [--seed S]

Every seat is the bot; each deal of 13 cards (standard rules) gives every seat a bid and a
first card with a full hand. The table gives the median, 95th percentile and maximum time per
decision, how many samples the bot solved on average, and how often it had to fall back to
the heuristic player for want of a solved sample.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from rich.console import Console
from rich.progress import track
from rich.table import Table

from backalley.bots import make_bot
from backalley.engine import PASS, Game
from backalley.rules import Ruleset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="expert")
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = Ruleset.preset("standard", hand_sizes=[13])
    times: dict[str, list[float]] = {"bid": [], "card": []}
    solved: dict[str, list[int]] = {"bid": [], "card": []}
    fallbacks = dict.fromkeys(times, 0)
    make_bot(args.bot).act  # noqa: B018  (imports and compiles before timing)
    for deal in track(range(args.deals), description="Deals", console=Console(stderr=True)):
        game = Game(rules, seed=args.seed * 1000 + deal)
        bots = [make_bot(args.bot) for _ in range(4)]
        rngs = [random.Random(deal * 10 + seat) for seat in range(4)]
        while not game.is_over:
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            bot = bots[seat]
            kind = "bid" if view.legal_actions[0] >= PASS else "card"
            full = view.hand.bit_count() == 13 and len(view.legal_actions) > 1
            before = getattr(bot, "fallbacks", 0)
            start = time.perf_counter()
            action = bot.act(view, rngs[seat])
            elapsed = time.perf_counter() - start
            if full:
                times[kind].append(elapsed)
                solved[kind].append(getattr(bot, "last_solved", 0))
                fallbacks[kind] += getattr(bot, "fallbacks", 0) - before
            game.apply(action)
            if view.hand.bit_count() < 12:
                break  # past the first trick: nothing more to time in this deal
    table = Table(title=f"{args.bot}: time per decision with 13 cards, {args.deals} deals")
    for column in (
        "decision",
        "count",
        "median s",
        "p95 s",
        "max s",
        "samples solved",
        "fallbacks",
    ):
        table.add_column(column, justify="right")
    for kind, values in times.items():
        if not values:
            continue
        ordered = sorted(values)
        table.add_row(
            kind,
            str(len(values)),
            f"{statistics.median(values):.2f}",
            f"{ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]:.2f}",
            f"{ordered[-1]:.2f}",
            f"{statistics.mean(solved[kind]):.1f}",
            str(fallbacks[kind]),
        )
    everything = times["bid"] + times["card"]
    Console().print(table)
    print(f"all decisions: median {statistics.median(everything):.2f} s")


if __name__ == "__main__":
    main()
