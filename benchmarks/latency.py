"""How long a bot takes to decide with thirteen cards in hand, on one core.

    python benchmarks/latency.py [--bot expert [--bot NAME …]] [--deals N] [--seed S]

Every seat is the bot; each deal of 13 cards (standard rules) gives every seat a bid and a
first card with a full hand. The table gives the median, 95th percentile and maximum time per
decision, how many samples the bot solved on average, and how often it had to fall back to
the heuristic player for want of a solved sample. Several ``--bot`` are timed one after the
other on the same deals, in one run: ``--bot expert --bot pimc:samples=40,seconds=1.2`` sets
today's expert beside one with the clock it had before.
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
    parser.add_argument(
        "--bot", action="append", help="a bot or level (repeat to compare; default: expert)"
    )
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    names = args.bot or ["expert"]
    table = Table(title=f"Time per decision with 13 cards in hand, {args.deals} deals")
    for column in ("bot", "decision", "count", "median s", "p95 s", "max s", "samples solved",
                   "fallbacks"):  # fmt: skip
        table.add_column(column, justify="left" if column == "bot" else "right")
    for name in names:
        times, solved, fallbacks = _time(name, args.deals, args.seed)
        for kind, values in times.items():
            if not values:
                continue
            ordered = sorted(values)
            table.add_row(
                name,
                kind,
                str(len(values)),
                f"{statistics.median(values):.2f}",
                f"{ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]:.2f}",
                f"{ordered[-1]:.2f}",
                f"{statistics.mean(solved[kind]):.1f}",
                str(fallbacks[kind]),
            )
        everything = times["bid"] + times["card"]
        table.add_row(name, "all", str(len(everything)), f"{statistics.median(everything):.2f}")
    Console().print(table)


def _time(
    name: str, deals: int, seed: int
) -> tuple[dict[str, list[float]], dict[str, list[int]], dict[str, int]]:
    """Each decision with 13 cards in hand of ``deals`` deals played by four ``name`` bots:
    its time and samples solved, and the fallbacks, by kind (bid, card)."""
    rules = Ruleset.preset("standard", hand_sizes=[13])
    times: dict[str, list[float]] = {"bid": [], "card": []}
    solved: dict[str, list[int]] = {"bid": [], "card": []}
    fallbacks = dict.fromkeys(times, 0)
    make_bot(name).act  # noqa: B018  (imports and compiles before timing)
    for deal in track(range(deals), description=name, console=Console(stderr=True)):
        game = Game(rules, seed=seed * 1000 + deal)
        bots = [make_bot(name) for _ in range(4)]
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
    return times, solved, fallbacks


if __name__ == "__main__":
    main()
