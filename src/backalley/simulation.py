"""Whole games between random legal players, and what happened in them (``backalley simulate``).

>>> from backalley.rules import Ruleset
>>> stats = simulate(Ruleset.preset("standard", hand_sizes=[3, 2]), games=5, seed=1)
>>> stats.games, len(stats.scores[0])
(5, 2)
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from backalley.engine import PASS, DealKind, Game
from backalley.rules import Ruleset, ThrownIn


@dataclass
class Stats:
    """Counts and scores gathered over the games played."""

    rules: Ruleset
    games: int = 0
    actions: int = 0
    seconds: float = 0.0  #: time spent playing (not counting, writing or drawing)
    deals_played: int = 0
    boards: int = 0  #: played deals with at least one board bid
    multi_boards: int = 0  #: played deals with two or more board bids
    renigs: int = 0
    all_passes: int = 0  #: all-pass deals, thrown in or played
    tie_breakers: int = 0  #: games that needed a tie-breaker
    draws: int = 0
    wins: list[int] = field(default_factory=list)
    scores: list[list[int]] = field(default_factory=list)  #: per game, per side

    def add(self, game: Game, actions: int) -> None:
        """Count one finished game."""
        self.games += 1
        self.actions += actions
        self.scores.append(list(game.scores))
        if not self.wins:
            self.wins = [0] * game.num_sides
        if game.winner is None:
            self.draws += 1
        else:
            self.wins[game.winner] += 1
        self.tie_breakers += any(d.kind != DealKind.NORMAL for d in game.deals)
        for deal in game.deals:
            if deal.thrown_in == ThrownIn.RENIG:
                self.renigs += 1
                continue
            if deal.kind != DealKind.NORMAL:
                continue
            if not any(b != PASS for b in deal.bids):
                self.all_passes += 1
            if deal.thrown_in is None:
                self.deals_played += 1
                self.boards += deal.board_level > 0
                self.multi_boards += deal.board_level > 1

    def side_scores(self, side: int) -> list[int]:
        """Final scores of ``side`` over all games."""
        return [scores[side] for scores in self.scores]

    def mean(self, side: int) -> float:
        """The mean final score of ``side``."""
        return statistics.fmean(self.side_scores(side))

    def spread(self, side: int) -> float:
        """The standard deviation of ``side``'s final scores (0 for one game)."""
        values = self.side_scores(side)
        return statistics.stdev(values) if len(values) > 1 else 0.0


def play_random_game(game: Game, rng: random.Random) -> int:
    """Play ``game`` to its end with uniformly random legal actions; returns the actions taken."""
    actions = 0
    legal = game.legal_actions
    apply = game.apply
    choice = rng.choice
    while not game.is_over:
        apply(choice(legal()))
        actions += 1
    return actions


def game_seeds(seed: int, games: int) -> Iterator[tuple[int, int]]:
    """The (deal seed, player seed) of each game: reproducible from ``seed`` alone."""
    master = random.Random(seed)
    for _ in range(games):
        yield master.getrandbits(64), master.getrandbits(64)


def simulate(
    rules: Ruleset,
    games: int,
    seed: int,
    on_game: Callable[[int, Game], None] | None = None,
) -> Stats:
    """Play ``games`` random games; ``on_game(i, game)`` sees each finished game."""
    stats = Stats(rules)
    for i, (deal_seed, player_seed) in enumerate(game_seeds(seed, games)):
        start = time.perf_counter()
        game = Game(rules, seed=deal_seed)
        actions = play_random_game(game, random.Random(player_seed))
        stats.seconds += time.perf_counter() - start
        stats.add(game, actions)
        if on_game is not None:
            on_game(i, game)
    return stats
