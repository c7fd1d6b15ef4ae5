"""How many points a game there are to win over a level: a side that sees every card.

    python benchmarks/headroom.py [--against medium] [--games 400] [--hand-sizes 3,2,1]
                                  [--jobs 2] [--seed 1]

No bot may see another seat's cards, so this is no bot: it reads the game. The *omniscient
side* holds every hand and knows the other side's bot, which is deterministic (``easy``,
``medium``), so it can play each of its actions forward to the end of the deal — its own
later actions chosen the same way, the other side's by asking that bot — and take the one
that leaves it furthest ahead of the other side in the deal. It plays the level in
duplicate, as ``benchmarks/strength.py`` does. Three rows: the omniscient side bidding and
playing, bidding only (its cards played by the level), playing only (its bids made by the
level).

It bounds what a step of the levels' ladder above ``--against`` could gain on these deals:
no player who sees only its own seat, and does not know the other side's bot, can expect to
do better. And it shows where the points lie: on 3, 2 and 1 cards, nearly all of them in
the bidding.
"""

from __future__ import annotations

import argparse
import random
import statistics
from concurrent.futures import ProcessPoolExecutor

from rich.console import Console
from rich.progress import track
from rich.table import Table

from backalley.arena import interval, play_duplicate, seatings
from backalley.bots import Bot, make_bot
from backalley.engine import Game, Phase
from backalley.rules import Ruleset

PARTS = ("bids and play", "bids", "play")


def deal_value(game: Game, deal: int, side: int, other: Bot) -> int:
    """The points ``side`` ends deal number ``deal`` ahead of the other side by, when it
    chooses every action of its own with every card seen and the other side is ``other``."""
    if len(game.deals) != deal or game.to_move is None:
        points = game.deals[deal - 1].points or [0, 0]
        return points[side] - points[1 - side]
    seat = game.to_move
    if game.rules.side_of(seat) != side:
        after = game.copy()
        after.apply(other.act(game.view(seat), random.Random(0)))
        return deal_value(after, deal, side, other)
    return max(_after(game, action, deal, side, other) for action in game.legal_actions())


def _after(game: Game, action: int, deal: int, side: int, other: Bot) -> int:
    after = game.copy()
    after.apply(action)
    return deal_value(after, deal, side, other)


def omniscient_action(game: Game, other: Bot) -> int:
    """The action of the seat on turn that leaves its side furthest ahead in this deal."""
    seat = game.to_move
    assert seat is not None
    side = game.rules.side_of(seat)
    deal = len(game.deals)
    return max(game.legal_actions(), key=lambda a: _after(game, a, deal, side, other))


def play_set(against: str, sizes: list[int], seed: int, pair: int, part: str) -> float:
    """The omniscient side's points over the level's, per game, on deal set ``pair``."""
    rules = Ruleset.preset("standard", hand_sizes=sizes)
    level = make_bot(against, repeatable=True)
    edge = 0.0
    for number, seating in enumerate(seatings(4)):

        def choose(
            game: Game, seat: int, rng: random.Random, seating: tuple[int, ...] = seating
        ) -> int:
            bidding = game.phase == Phase.BID
            if seating[seat] == 0 and (part == PARTS[0] or (part == PARTS[1]) == bidding):
                return omniscient_action(game, level)
            return level.act(game.view(seat), rng)

        game = play_duplicate(rules, seed, pair, number, choose)
        ours = rules.side_of(seating.index(0))
        edge += game.scores[ours] - game.scores[1 - ours]
    return edge / len(seatings(4))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="medium", help="a deterministic level or bot")
    parser.add_argument("--games", type=int, default=400, help="games a row (two a deal set)")
    parser.add_argument("--hand-sizes", default="3,2,1", help="the deals' hand sizes (D2)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sizes = [int(n) for n in args.hand_sizes.split(",")]
    sets = max(1, args.games // 2)
    table = Table(
        title=f"A side that sees every card against {args.against}, duplicate, standard, "
        f"hand sizes {args.hand_sizes}, {2 * sets} games a row, seed {args.seed}"
    )
    for column in ("the omniscient side chooses", "its points over the level's a game (95 % CI)"):
        table.add_column(column, justify="left" if column.startswith("the") else "right")
    work = [(part, pair) for part in PARTS for pair in range(sets)]
    edges: dict[str, list[float]] = {part: [] for part in PARTS}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        done = pool.map(
            play_set,
            [args.against] * len(work),
            [sizes] * len(work),
            [args.seed] * len(work),
            [pair for _, pair in work],
            [part for part, _ in work],
            chunksize=8,
        )
        progress = track(done, total=len(work), description="Deal sets",
                         console=Console(stderr=True))  # fmt: skip
        for (part, _pair), edge in zip(work, progress, strict=True):
            edges[part].append(edge)
    for part in PARTS:
        mean = statistics.fmean(edges[part])
        table.add_row(f"its {part}", f"{mean:+.1f} ± {interval(edges[part]):.1f}")
    Console().print(table)


if __name__ == "__main__":
    main()
