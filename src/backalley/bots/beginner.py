"""A beginner: the ``easy`` level, a weak player but a plausible one.

It plays as people do in their first games. Every picture card above the jack and every
trump from the jack up is counted as a trick, and the count is bid, whatever the partner
bid and however many of those cards will really win; when all its cards but one are such
cards, it hopes for the last trick and bids board. In play it follows suit (the rules
see to that), plays its best card to win a trick and its worst when it cannot, and ruffs
whatever it is void in, with the lowest trump that wins. It does not notice its partner: it
overtakes a partner who is winning, ruffs a partner's ace, and never leads for the side. It
leads its highest card. So it takes tricks, and its bids are near its hand, but it loses
where a club player would not: overbids, boards that fail, and tricks thrown away between
partners. (On 3, 2 and 1 cards, where bidding decides the deal, that is what sets it below
``medium``; see the README's ladder.)
"""

from __future__ import annotations

import random

from backalley.cards import BIG_BLOOPER, LITTLE_BLOOPER, rank_of
from backalley.engine import BOARD, PASS, follow_mask, trick_winner, winning_card
from backalley.view import SeatView

QUEEN, JACK = 10, 9  #: ranks (rank_of: 0 for a 2 … 12 for an ace)


class BeginnerBot:
    """Bids its high cards, plays its best card to win and its worst to lose; partner-blind."""

    name = "beginner"

    def act(self, view: SeatView, rng: random.Random) -> int:
        """A bid or a card, as a beginner would choose it (no randomness)."""
        legal = [int(action) for action in view.legal_actions]
        if len(legal) == 1:
            return legal[0]
        if legal[0] >= PASS:
            return self.bid(view, legal)
        return self.play(view, legal)

    def bid(self, view: SeatView, legal: list[int]) -> int:
        """The count of its aces, kings, queens and trumps from the jack up (a Blooper among
        them); board when all its cards but one are such (on one card, when it is one)."""
        trumps = view.trump_cards
        count = sum(
            1
            for card in view.hand
            if card >= LITTLE_BLOOPER
            or rank_of(card) >= QUEEN
            or (trumps >> card & 1 and rank_of(card) >= JACK)
        )
        if count >= max(1, view.hand_size - 1) and BOARD in legal:
            return BOARD
        numbers = [a - PASS for a in legal if PASS < a < BOARD]
        bid = min(count, max(numbers, default=0))
        return PASS + bid if bid >= 1 else PASS

    def play(self, view: SeatView, legal: list[int]) -> int:
        """Lead the highest card; follow with a winner if it has one, else the lowest."""
        trumps = view.trump_cards
        if not view.trick:
            plain = [c for c in legal if not trumps >> c & 1] or legal
            return max(plain, key=_strength)
        led = view.trick[0][1]
        played = [card for _, card in view.trick]
        _, best = trick_winner(view.trick[0][0], played, view.seats_in_deal, trumps)
        follow = follow_mask(led, trumps)
        winners = [c for c in legal if winning_card(1 << c | 1 << best, follow, trumps) == c]
        if not winners:
            return min(legal, key=_strength)
        if any(follow >> c & 1 for c in legal):
            return max(winners, key=_strength)  # its best card, partner or not
        return min(winners, key=_strength)  # void: the lowest trump that wins


def _strength(card: int) -> tuple[int, int]:
    """How good a card looks to a beginner: its rank, the Bloopers above the aces."""
    return (2 if card == BIG_BLOOPER else 1 if card == LITTLE_BLOOPER else 0, rank_of(card))
