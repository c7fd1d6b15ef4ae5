"""A rule-of-thumb player: the bidding and card play a good club player would recognise.

Bidding counts likely tricks: top trumps (the Bloopers first), trump length, side aces and
guarded kings, ruffing chances from short suits; it bids board only with nothing but sure
winners. On small hands (up to seven cards) it counts only the cards that usually take a
trick — the Bloopers, the aces, the trump king — which bids better there.

Play follows the old maxims — second hand low, third hand high, never overtake a partner who
is winning, win as cheaply as possible, ruff when void, draw trumps when the side needs every
trick, cash winners — and, being given only legal actions, always obeys P2–P4.

Every trick taken helps the side that takes it (S1 pays overtricks, and a trick taken from the
other side may defeat its contract), so the play always tries to win tricks; what changes with
the contract is how urgently.
"""

from __future__ import annotations

import random

from backalley.cards import BIG_BLOOPER, LITTLE_BLOOPER, SUIT_MASKS, mask_cards, rank_of
from backalley.engine import BOARD, PASS, follow_mask, trick_winner, winning_card
from backalley.view import TRUMPS, SeatView

SMALL_HAND = 7  #: up to this many cards, a bid counts the cards that usually take a trick


def _takes_a_trick(card: int, trumps: int) -> bool:
    """A Blooper, an ace, or the trump king: the cards that usually take a trick."""
    return (
        card >= LITTLE_BLOOPER
        or rank_of(card) == 12
        or bool(trumps >> card & 1 and rank_of(card) == 11)
    )


def _beats(card: int, best: int, led: int, trumps: int) -> bool:
    """Whether ``card`` played now would win over ``best`` in a trick led by ``led`` (P5)."""
    return winning_card(1 << card | 1 << best, follow_mask(led, trumps), trumps) == card


def _is_top(card: int, unseen: int, trumps: int) -> bool:
    """No card this seat has not seen could beat ``card`` in its own suit (or among trumps)."""
    return (follow_mask(card, trumps) & unseen) >> (card + 1) == 0


def _cheapest(cards: list[int], trumps: int) -> int:
    """The card that costs least to give up: low non-trumps first, then low trumps."""
    return min(cards, key=lambda c: (bool(trumps >> c & 1), rank_of(c)))


def estimate_hand(hand: int, trumps: int, unseen: int, n: int) -> tuple[float, int]:
    """Expected tricks of ``hand`` (of ``n`` cards) and how many of its cards are sure
    winners, given the cards its holder has not seen."""
    cards = mask_cards(hand)
    my_trumps = [c for c in cards if trumps >> c & 1]
    tricks = 0.0
    sure = 0
    for card in sorted(my_trumps, reverse=True):
        higher_out = (trumps & unseen) >> (card + 1)
        above = higher_out.bit_count()
        if above == 0:
            tricks += 1.0
            sure += 1
        elif above == 1:
            tricks += 0.75 if len(my_trumps) >= 2 else 0.5
        elif above == 2:
            tricks += 0.45 if len(my_trumps) >= 3 else 0.2
    tricks += 0.55 * max(0, len(my_trumps) - 3)  # long trumps take tricks late
    for suit in range(4):
        suit_cards = [c for c in cards if SUIT_MASKS[suit] >> c & 1 and not trumps >> c & 1]
        if trumps and SUIT_MASKS[suit] & trumps:
            continue
        length = len(suit_cards)
        for card in suit_cards:
            above = ((SUIT_MASKS[suit] & unseen) >> (card + 1)).bit_count()
            if above == 0:
                ruff_risk = 0.08 * max(0, n - 5) if trumps else 0.0
                tricks += max(0.5, 0.95 - ruff_risk)
                sure += 1 if n <= 3 or not trumps else 0
            elif above == 1 and length >= 2:
                tricks += 0.5
            elif above == 2 and length >= 3:
                tricks += 0.2
        spare = len(my_trumps) - 1
        if trumps and spare > 0 and length <= 1 and n >= 4:
            tricks += 0.6 if length == 0 else 0.3  # ruffing a short suit
    return min(tricks, float(n)), sure


class HeuristicBot:
    """Sound bidding and the classic maxims of card play; deterministic."""

    name = "heuristic"

    def act(self, view: SeatView, rng: random.Random) -> int:
        """Bid by counting likely tricks; play by the maxims."""
        legal = [int(action) for action in view.legal_actions]
        if len(legal) == 1:
            return legal[0]
        if legal[0] >= PASS:
            return self.bid(view, legal)
        return self.play(view, legal)

    # ---------------------------------------------------------------- bidding

    def estimate(self, view: SeatView) -> tuple[float, int]:
        """Expected tricks of this hand, and how many of its cards are sure winners."""
        return estimate_hand(view.hand, view.trump_cards, view.unseen, view.hand_size)

    def bid(self, view: SeatView, legal: list[int]) -> int:
        """Pass, a number of tricks, or board (B1), from the estimate and the partner's bid.

        Up to SMALL_HAND cards the bid is the count of the cards that usually take a trick —
        the Bloopers, the aces, the trump king — and board when every card is one: on small
        hands that bids better than the estimate (in duplicate against the estimate alone:
        +4.5 points a game on 3, 2, 1 cards, +13.4 on the 7-card game, +11.6 on the whole
        ``standard`` game, +13.9 under ``bab``)."""
        partner_bid = self._partner_bid(view)
        n = view.hand_size
        numbers = [a - PASS for a in legal if PASS < a < BOARD]
        if n <= SMALL_HAND:
            count = sum(1 for card in view.hand if _takes_a_trick(card, view.trump_cards))
            if partner_bid == BOARD:
                return PASS
            if count >= n and BOARD in legal:
                return BOARD
            want = min(count, max(numbers, default=0))
            return PASS + want if want >= 1 else PASS
        tricks, sure = self.estimate(view)
        if BOARD in legal and sure >= n:
            return BOARD
        if partner_bid == BOARD:
            return PASS  # our number would not count (B3)
        want = int(tricks + self.margin(view))  # round down unless close (S1)
        want = min(want, max(numbers, default=0))
        return PASS + want if want >= 1 else PASS

    def margin(self, view: SeatView) -> float:
        """How close to the next whole trick an estimate must come to bid it: failing costs
        a contract trick's points each (S1)."""
        return 0.35

    def _partner_bid(self, view: SeatView) -> int | None:
        partner = None if view.seat is None else view.rules.partner_of(view.seat)
        if partner is None:
            return None
        return next((b for s, b in view.bids if s == partner), None)

    # ---------------------------------------------------------------- card play

    def play(self, view: SeatView, legal: list[int]) -> int:
        """A card by the maxims: lead, or follow as second, third or last hand."""
        if not view.trick:
            return self.lead(view, legal)
        trumps, unseen = view.trump_cards, view.unseen
        led = view.trick[0][1]
        leader = view.trick[0][0]
        played = [card for _, card in view.trick]
        winner_seat, best = trick_winner(leader, played, view.seats_in_deal, trumps)
        assert view.seat is not None
        ours = view.rules.side_of(winner_seat) == view.rules.side_of(view.seat)
        last = len(view.trick) == len(view.seats_in_deal) - 1
        beaters = [c for c in legal if _beats(c, best, led, trumps)]
        if ours and (last or _is_top(best, unseen, trumps)):
            return _cheapest(legal, trumps)  # never overtake a partner who is winning
        if not beaters:
            return _cheapest(legal, trumps)
        cheapest_win = min(beaters, key=lambda c: (bool(trumps >> c & 1), rank_of(c)))
        if last:
            return cheapest_win  # fourth hand: win as cheaply as possible
        tops = [c for c in beaters if _is_top(c, unseen, trumps)]
        void = not any(follow_mask(led, trumps) >> c & 1 for c in legal)
        if len(view.trick) == 1:  # second hand low, unless a sure winner takes it cheaply
            if tops and not ours:
                return min(tops, key=lambda c: (bool(trumps >> c & 1), rank_of(c)))
            if void and not ours:
                return cheapest_win  # ruff low when void
            follow = [c for c in legal if not trumps >> c & 1] or legal
            return _cheapest(follow, trumps)
        if ours:
            return _cheapest(legal, trumps)
        # Third hand high: the lowest sure winner, else the highest card that wins for now;
        # void, the cheapest ruff.
        if tops:
            return min(tops, key=lambda c: (bool(trumps >> c & 1), rank_of(c)))
        if void:
            return cheapest_win
        return max(beaters, key=rank_of)

    def lead(self, view: SeatView, legal: list[int]) -> int:
        """Draw trumps when the side needs them, cash winners, else lead low from length."""
        trumps, unseen = view.trump_cards, view.unseen
        assert view.seat is not None
        side = view.rules.side_of(view.seat)
        contract = view.contracts[side]
        needs_all = contract == "board"
        opponents = [s for s in view.seats_in_deal if view.rules.side_of(s) != side]
        top_trumps = sorted(
            (c for c in legal if trumps >> c & 1 and _is_top(c, unseen, trumps)), reverse=True
        )
        strong = needs_all or len(top_trumps) >= 2 or BIG_BLOOPER in top_trumps
        if top_trumps and (needs_all or trumps & unseen) and strong:
            return top_trumps[0]  # draw trumps from the top
        winners = [
            c
            for c in legal
            if not trumps >> c & 1
            and _is_top(c, unseen, trumps)
            and not any(c // 13 in view.voids[o] and TRUMPS not in view.voids[o] for o in opponents)
        ]
        if winners:
            return max(winners, key=rank_of)  # cash a winner where it will not be ruffed
        side_cards = [c for c in legal if not trumps >> c & 1]
        if not side_cards:
            return min(legal, key=rank_of)  # only trumps: the lowest
        by_suit: dict[int, list[int]] = {}
        for card in side_cards:
            by_suit.setdefault(card // 13, []).append(card)
        longest = max(by_suit.values(), key=lambda cs: (len(cs), -max(map(rank_of, cs))))
        return min(longest, key=rank_of)
