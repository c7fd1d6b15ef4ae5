"""Bot strength: duplicate matches under a preset's rules, with 95 % confidence intervals.

    python benchmarks/strength.py [--games N] [--jobs J] [--seed S] [--ladder A:B,C:D]
                                  [--rules PRESET] [--hand-sizes 3,2,1] [--repeatable]

Each line of the ladder is one match: every deal set played twice with the pairs swapped
(see backalley.arena). A bot is stronger when the interval of "A − B" lies above zero. The
default ladder is the issue's: heuristic against random, then pimc (at the ``hard`` level's
budget) against heuristic. Each bot's numeric contracts made (of those its sides held) are
shown too: bab-online tunes its own bots to make about 90 %. ``--repeatable`` drops the
bots' wall-clock budgets (see ``backalley arena --repeatable``), so that a run can be played
again game for game. ``--hand-sizes`` plays short games (D2) instead of the preset's whole
one; ``--ladder levels`` is the levels' ladder, each against the one below: easy against
random, medium against easy, hard against medium, expert against hard.
"""

from __future__ import annotations

import argparse
import re
import time

from rich.console import Console
from rich.progress import track
from rich.table import Table

from backalley.arena import BotSummary, run_match
from backalley.rules import Ruleset

LADDER = "heuristic:random,hard:heuristic"
LEVELS_LADDER = "easy:random,medium:easy,hard:medium,expert:hard"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games per match (two per deal set)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ladder", default=LADDER, help="matches A:B, comma-separated")
    parser.add_argument("--rules", default="standard", help="the preset (default: standard)")
    parser.add_argument("--hand-sizes", help="the deals' hand sizes, e.g. 3,2,1 (D2)")
    parser.add_argument(
        "--repeatable", action="store_true", help="no wall-clock budgets: same seed, same games"
    )
    args = parser.parse_args()
    chosen = LEVELS_LADDER if args.ladder == "levels" else args.ladder
    ladder = ladder_pairs(chosen)
    sizes = None if args.hand_sizes is None else [int(n) for n in args.hand_sizes.split(",")]
    rules = Ruleset.preset(args.rules, hand_sizes=sizes)
    length = "" if sizes is None else f", hand sizes {args.hand_sizes}"
    table = Table(
        title=f"Duplicate matches, {args.rules} rules{length}, {args.games} games each, "
        f"seed {args.seed}"
    )
    columns = ("A", "B", "A points/game", "B points/game", "A − B (95 % CI)", "A wins",
               "A made", "B made", "s")  # fmt: skip
    for column in columns:
        table.add_column(column, justify="left" if column in "AB" else "right")
    for a, b in track(ladder, description="Matches", console=Console(stderr=True)):
        start = time.perf_counter()
        report = run_match(
            a, b, rules, args.games, args.seed, args.jobs, repeatable=args.repeatable
        )
        mean, half = report.difference
        bot_a, bot_b = report.bots
        verdict = "above zero" if mean - half > 0 else "NOT above zero"
        table.add_row(
            a,
            b,
            f"{bot_a.mean:,.1f} ± {bot_a.half_width:,.1f}",
            f"{bot_b.mean:,.1f} ± {bot_b.half_width:,.1f}",
            f"{mean:+,.1f} ± {half:,.1f} ({verdict})",
            f"{100 * bot_a.wins / report.games:.1f} %",
            _made(bot_a),
            _made(bot_b),
            f"{time.perf_counter() - start:.0f}",
        )
    Console().print(table)


def ladder_pairs(text: str) -> list[tuple[str, str]]:
    """The matches of ``--ladder``: ``A:B`` pairs, comma-separated, where a bot may be
    ``pimc:KEY=VALUE,…`` (a comma or colon before ``KEY=`` belongs to the bot).

    >>> ladder_pairs("expert:pimc:samples=40,seconds=1.2,hard:medium")
    [('expert', 'pimc:samples=40,seconds=1.2'), ('hard', 'medium')]
    """
    pairs = []
    for pair in re.split(r",(?!\w+=)", text):
        bots = re.split(r":(?!\w+=)", pair, maxsplit=1)
        if len(bots) != 2:
            raise SystemExit(f"--ladder: {pair!r} is not two bots A:B")
        pairs.append((bots[0], bots[1]))
    return pairs


def _made(bot: BotSummary) -> str:
    """The share of its sides' contracts the bot made."""
    return f"{100 * bot.contracts_made / max(1, bot.contracts_bid):.1f} %"


if __name__ == "__main__":
    main()
