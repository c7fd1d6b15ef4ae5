"""Dealing engine games for the environments that step the engine itself (PettingZoo,
Gymnasium): from a seed, or in duplicate — the same cards again with every hand turned."""

from __future__ import annotations

import random

from backalley.engine import Game
from backalley.rules import Ruleset, ThrownIn

#: Deals in a row thrown in because all passed (D7) after which an environment truncates its
#: episode, by default: the rules never end a game of passes (``standard``, ``bab``), a
#: learner's first habits may.
MAX_PASSES = 10


def game_rules(rules: Ruleset, episode: str, rng: random.Random) -> Ruleset:
    """The rules of one episode: the game, or one counted deal of a hand size drawn from
    the rule set's list (no tie-breaker: one deal settles nothing more)."""
    if episode == "game":
        return rules
    size = rng.choice(rules.hand_sizes)
    return rules.with_options({"hand_sizes": [size], "tie_breaker": False})


def dealer_for(seed: int, turn: int) -> Dealer:
    """Deal each deal of a game from a generator keyed by (seed, counted deals, deal kind,
    attempt) — the arena's duplicate keys — with every hand turned ``turn`` seats: the games
    of one seed and different turns are dealt the same cards, held by different seats."""
    return Dealer(seed, turn)


class Dealer:
    """The dealer :func:`dealer_for` makes: a value, so that an environment holding one can
    be pickled and copied."""

    def __init__(self, seed: int, turn: int) -> None:
        self.seed, self.turn = seed, turn
        self.attempts: dict[tuple[int, int], int] = {}

    def __call__(self, game: Game) -> None:
        kind, size, seats = game.next_deal()
        key = (game.counted_deals, int(kind))
        attempt = self.attempts.get(key, 0)
        self.attempts[key] = attempt + 1
        deck = list(range(54))
        random.Random(f"{self.seed}/{key[0]}/{key[1]}/{attempt}").shuffle(deck)
        n = game.num_players
        hands: list[list[int]] = [[] for _ in range(n)]
        for number, seat in enumerate(seats):
            hands[seat] = deck[number * size : (number + 1) * size]
        if len(seats) == n:
            hands = [hands[(seat - self.turn) % n] for seat in range(n)]
        dealer = game.expected_dealer()
        if dealer is None:
            dealer = (random.Random(f"{self.seed}/first").randrange(n) + self.turn) % n
        game.start_deal(dealer, hands, deck[len(seats) * size :])


def passes_in_a_row(game: Game) -> int:
    """How many deals in a row, the last ones dealt, were thrown in because all passed (D7)."""
    run = 0
    for deal in reversed(game.deals):
        if deal.thrown_in != ThrownIn.ALL_PASS:
            break
        run += 1
    return run
