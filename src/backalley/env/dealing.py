"""Dealing engine games for the environments that step the engine itself (PettingZoo,
Gymnasium): from a seed, or in duplicate — the same cards again with every hand turned."""

from __future__ import annotations

import random
from collections.abc import Callable

from backalley.engine import Game
from backalley.rules import Ruleset


def game_rules(rules: Ruleset, episode: str, rng: random.Random) -> Ruleset:
    """The rules of one episode: the game, or one counted deal of a hand size drawn from
    the rule set's list (no tie-breaker: one deal settles nothing more)."""
    if episode == "game":
        return rules
    size = rng.choice(rules.hand_sizes)
    return rules.with_options({"hand_sizes": [size], "tie_breaker": False})


def dealer_for(seed: int, turn: int) -> Callable[[Game], None]:
    """Deal each deal of a game from a generator keyed by (seed, counted deals, deal kind,
    attempt) — the arena's duplicate keys — with every hand turned ``turn`` seats: the games
    of one seed and different turns are dealt the same cards, held by different seats."""
    attempts: dict[tuple[int, int], int] = {}

    def deal(game: Game) -> None:
        kind, size, seats = game.next_deal()
        key = (game.counted_deals, int(kind))
        attempt = attempts.get(key, 0)
        attempts[key] = attempt + 1
        deck = list(range(54))
        random.Random(f"{seed}/{key[0]}/{key[1]}/{attempt}").shuffle(deck)
        n = game.num_players
        hands: list[list[int]] = [[] for _ in range(n)]
        for number, seat in enumerate(seats):
            hands[seat] = deck[number * size : (number + 1) * size]
        if len(seats) == n:
            hands = [hands[(seat - turn) % n] for seat in range(n)]
        dealer = game.expected_dealer()
        if dealer is None:
            dealer = (random.Random(f"{seed}/first").randrange(n) + turn) % n
        game.start_deal(dealer, hands, deck[len(seats) * size :])

    return deal
