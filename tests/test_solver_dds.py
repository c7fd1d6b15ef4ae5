"""The solver against DDS (through ``endplay``) on bridge-equivalent positions.

Back Alley is bridge when no joker is in play and P3 no longer restricts leads: a no-trump
deal (a turned-up joker under ``standard``: the other joker lies in the stock), or a trump
deal once trumps are broken with both jokers in the stock. Positions are taken at the start
of a trick, 1 to 7 cards a hand; every legal card's value must match DDS's.
"""

from __future__ import annotations

import functools
import random

import pytest
from endplay import dds  # a test dependency (pyproject: test extra)
from endplay.types import Deal, Denom

from backalley.cards import BIG_BLOOPER, LITTLE_BLOOPER, RANKS, SUITS, mask_cards, parse_card
from backalley.engine import Game, Phase
from backalley.rules import Ruleset
from backalley.solver import Position, card_values


def pbn_hand(mask: int) -> str:
    suits = []
    for suit in range(4):
        ranks = [RANKS[c % 13] for c in mask_cards(mask) if c // 13 == suit]
        suits.append("".join(reversed(ranks)))
    return ".".join(suits)


def dds_values(position: Position) -> dict[int, int]:
    order = [(position.leader + i) % 4 for i in range(4)]
    deal = Deal("N:" + " ".join(pbn_hand(position.hands[s]) for s in order))
    trump = position.trumps & ~((1 << LITTLE_BLOOPER) | (1 << BIG_BLOOPER))
    deal.trump = Denom.nt if not trump else Denom((trump.bit_length() - 1) // 13)
    values = {}
    for card, value in dds.solve_board(deal):
        rank = card.rank.value.bit_length() - 3  # R2 is 1 << 2
        values[13 * int(card.suit) + rank] = value
    return values


def bridge_position(seed: int) -> Position | None:
    """A 4-player position with no joker in any hand and no P3 restriction left."""
    rng = random.Random(seed)
    size = rng.randint(1, 7)
    suit_cards = list(range(52))
    rng.shuffle(suit_cards)
    hands = [suit_cards[i * size : (i + 1) * size] for i in range(4)]
    rest = suit_cards[4 * size :]
    no_trump = rng.random() < 0.5
    stock = (
        [BIG_BLOOPER, LITTLE_BLOOPER, *rest] if no_trump else [*rest, BIG_BLOOPER, LITTLE_BLOOPER]
    )
    game = Game(Ruleset.preset("standard", hand_sizes=[size], all_pass="play"))
    game.start_deal(rng.randrange(4), hands, stock)
    while game.phase == Phase.BID:
        game.apply(game.legal_actions()[0])  # everybody passes: no board exception
    tricks_to_play = rng.randint(0, size - 1)
    while game.phase == Phase.PLAY and len(game.completed_tricks) < tricks_to_play:
        game.apply(rng.choice(game.legal_actions()))
    if game.phase != Phase.PLAY or game.trick:
        return None
    position = Position.from_game(game)
    if position.trumps and not position.broken:
        return None
    return position


@functools.cache
def positions() -> list[Position]:
    """The 500 positions the agreement is checked on, dealt by the first test that asks (not at
    collection, which every test process does)."""
    return [p for p in map(bridge_position, range(3000)) if p is not None][:500]


def test_there_are_500_bridge_positions_of_both_kinds():
    assert len(positions()) == 500
    assert any(p.trumps for p in positions()) and any(not p.trumps for p in positions())


@pytest.mark.parametrize("chunk", range(5))
def test_solver_agrees_with_dds(chunk):
    for position in positions()[chunk::5]:
        assert card_values(position) == dds_values(position), (SUITS, position)


def test_a_refuted_card_does_not_stand_for_cards_its_refutation_never_met():
    # Found at 6 cards: leading the 3♣ fails, and the search once skipped the 8♣ as "below
    # every card the refutation rested on". But that refutation had tried the 8♣ and 9♣ left
    # in the leader's hand as one card; after the 8♣ is led, the 3♣ and 9♣ are not alike,
    # and discarding the 9♣ under partner's ace (keeping the 3♣ to duck) makes every trick.
    hands = ["6S 2H 9H 7D AD 5C", "9S QS 5H 3C 8C 9C", "6H 2D 9D JD TC QC", "4S 4C 6C 7C JC AC"]
    dealt = [[parse_card(name) for name in hand.split()] for hand in hands]
    rest = [c for c in range(52) if not any(c in hand for hand in dealt)]
    game = Game(Ruleset.preset("standard", hand_sizes=[6], all_pass="play"))
    game.start_deal(0, dealt, [BIG_BLOOPER, LITTLE_BLOOPER, *rest])  # no trump
    while game.phase == Phase.BID:
        game.apply(game.legal_actions()[0])
    position = Position.from_game(game)
    assert position.to_move == 1
    values = card_values(position)
    assert values[parse_card("8C")] == 6
    assert values == dds_values(position)


def fresh_no_trump_position(size: int, rng: random.Random) -> Position:
    cards = list(range(52))
    rng.shuffle(cards)
    hands = [cards[i * size : (i + 1) * size] for i in range(4)]
    game = Game(Ruleset.preset("standard", hand_sizes=[size], all_pass="play"))
    game.start_deal(rng.randrange(4), hands, [BIG_BLOOPER, LITTLE_BLOOPER, *cards[4 * size :]])
    while game.phase == Phase.BID:
        game.apply(game.legal_actions()[0])
    return Position.from_game(game)


@pytest.mark.parametrize("size", [9, 10])
def test_solver_agrees_with_dds_on_longer_deals(size):
    rng = random.Random(size)
    for _ in range(40):
        position = fresh_no_trump_position(size, rng)
        assert card_values(position) == dds_values(position)
