"""SeatView: everything one seat may know — and nothing else (DESIGN principle 2).

A view is built from the game by copying out the public facts and, for a seat, that seat's
own hand and the card it drew in a joker exchange (D4). Nothing else of the hidden state is
read: not the other hands, not the stock below the turned-up cards. Bots, the terminal, the
web client and the research environment all receive these views.

>>> from backalley.engine import Game
>>> from backalley.rules import Ruleset
>>> game = Game(Ruleset.preset("standard"), seed=1)
>>> view = game.view(0)
>>> view.hand_counts, view.hand.bit_count()
((13, 13, 13, 13), 13)
>>> game.public_view().hand
0
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from backalley.cards import SUIT_MASKS, suit_of, trump_mask
from backalley.engine import Deal, DealKind, Phase
from backalley.rules import Ruleset

if TYPE_CHECKING:
    from backalley.engine import Game


@dataclass(frozen=True, slots=True)
class DealSummary:
    """A finished deal as the score sheet shows it: all of it is public once played."""

    dealer: int
    hand_size: int
    trump: int | None
    thrown_in: str | None
    contracts: tuple[int | str | None, ...]
    tricks: tuple[int, ...]
    points: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class SeatView:
    """What ``seat`` knows (``seat is None``: a spectator, who sees no hand)."""

    rules: Ruleset
    seat: int | None
    phase: Phase
    scores: tuple[int, ...]
    history: tuple[DealSummary, ...]  #: earlier deals, oldest first
    winner: int | None
    # The current deal (or the last one, between deals):
    deal_number: int  #: 0-based index of the deal among all deals dealt
    deal_kind: DealKind | None
    dealer: int | None
    hand_size: int
    seats_in_deal: tuple[int, ...]
    hand: int  #: this seat's cards as a mask (0 for a spectator)
    hand_counts: tuple[int, ...]
    turned_up: tuple[int, ...]  #: the turn-up, after any jokers set aside (D3, D5)
    trump: int | None
    joker_shown: tuple[int, int] | None  #: (seat, joker) discarded face up under D4
    drawn: int | None  #: the card this seat drew in that exchange; None for everyone else
    bids: tuple[tuple[int, int], ...]  #: (seat, bid action) in bidding order
    contracts: tuple[int | str | None, ...]
    board_level: int
    leader: int | None
    free_trump_lead: tuple[bool, ...]  #: the P3 board exception, per seat
    trumps_broken: bool
    trick: tuple[tuple[int, int], ...]  #: (seat, card) of the trick in progress
    completed_tricks: tuple[tuple[int, tuple[int, ...]], ...]  #: (leader, cards) of this deal
    tricks_won: tuple[int, ...]  #: per side, this deal
    played: int  #: every card played this deal, as a mask
    voids: tuple[frozenset[int], ...]  #: per seat, suits it has shown it lacks (4 = trumps)
    to_move: int | None
    legal_actions: tuple[int, ...]  #: empty unless this seat is to move

    @property
    def trump_cards(self) -> int:
        """The mask of every trump this deal (0 when there is no trump suit)."""
        return trump_mask(self.trump)

    @property
    def unseen(self) -> int:
        """Cards this seat has not seen: not in its hand, not played, not face up."""
        from backalley.cards import FULL_DECK

        seen = self.hand | self.played
        for card in self.turned_up:
            seen |= 1 << card
        if self.joker_shown is not None:
            seen |= 1 << self.joker_shown[1]
        return FULL_DECK & ~seen


TRUMPS = 4  #: the "suit" a seat is void in when it cannot follow a trump lead


def seat_view(game: Game, seat: object) -> SeatView:
    """Build the view of ``seat`` (``None``: the public view). Reads only what it may show."""
    if seat is not None and (type(seat) is not int or not 0 <= seat < game.num_players):
        raise ValueError(f"there is no seat {seat!r} at this table")
    assert seat is None or isinstance(seat, int)
    deal = game.current_deal
    history = tuple(map(_summary, game.deals[:-1]))
    if deal is None:
        return SeatView(
            game.rules, seat, game.phase, tuple(game.scores), history, game.winner,
            -1, None, None, 0, (), 0, (0,) * game.num_players, (), None, None, None,
            (), (None,) * game.num_sides, 0, None, (False,) * game.num_players, False,
            (), (), (0,) * game.num_sides, 0, (frozenset(),) * game.num_players, None, (),
        )  # fmt: skip
    first = (deal.dealer + 1) % game.num_players
    bids = tuple(((first + i) % game.num_players, b) for i, b in enumerate(deal.bids))
    tricks = tuple(game.completed_tricks)
    trick = tuple(game.trick)
    played = 0
    for card in deal.play:
        played |= 1 << card
    to_move = game.to_move
    exchange = deal.exchange
    hand_counts = tuple(game.hand(s).bit_count() for s in range(game.num_players))
    return SeatView(
        rules=game.rules,
        seat=seat,
        phase=game.phase,
        scores=tuple(game.scores),
        history=history,
        winner=game.winner,
        deal_number=len(game.deals) - 1,
        deal_kind=deal.kind,
        dealer=deal.dealer,
        hand_size=deal.hand_size,
        seats_in_deal=deal.seats,
        hand=game.hand(seat) if seat is not None else 0,
        hand_counts=hand_counts,
        turned_up=deal.turned,
        trump=deal.trump,
        joker_shown=None if exchange is None else (exchange[0], exchange[1]),
        drawn=exchange[2] if exchange is not None and exchange[0] == seat else None,
        bids=bids,
        contracts=tuple(deal.contracts),
        board_level=deal.board_level,
        leader=deal.leader,
        free_trump_lead=tuple(game.free_trump_lead(s) for s in range(game.num_players)),
        trumps_broken=game.trumps_broken,
        trick=trick,
        completed_tricks=tricks,
        tricks_won=tuple(deal.tricks),
        played=played,
        voids=_voids(game, deal.trump, tricks, trick),
        to_move=to_move,
        legal_actions=tuple(game.legal_actions()) if seat is not None and to_move == seat else (),
    )


@functools.lru_cache(maxsize=4096)
def _summary(deal: Deal) -> DealSummary:
    """A deal before the current one: final, so its summary is made once (Deal hashes by id)."""
    return DealSummary(
        deal.dealer,
        deal.hand_size,
        deal.trump,
        deal.thrown_in,
        tuple(deal.contracts),
        tuple(deal.tricks),
        None if deal.points is None else tuple(deal.points),
    )


def _voids(
    game: Game,
    trump: int | None,
    tricks: tuple[tuple[int, tuple[int, ...]], ...],
    trick: tuple[tuple[int, int], ...],
) -> tuple[frozenset[int], ...]:
    """Suits each seat has shown it lacks, by failing to follow (P2): public knowledge."""
    tm = trump_mask(trump)
    voids: list[set[int]] = [set() for _ in range(game.num_players)]
    rounds = [(leader, cards) for leader, cards in tricks]
    if trick:
        rounds.append((trick[0][0], tuple(card for _, card in trick)))
    for leader, cards in rounds:
        led = cards[0]
        if tm >> led & 1:
            follow, suit = tm, TRUMPS
        else:
            suit = suit_of(led)
            follow = SUIT_MASKS[suit] & ~tm
        seat = leader
        for card in cards[1:]:
            seat = game_next(game, seat)
            if not follow >> card & 1:
                voids[seat].add(suit)
    return tuple(frozenset(v) for v in voids)


def game_next(game: Game, seat: int) -> int:
    """The next seat in play after ``seat`` in the current deal."""
    deal = game.current_deal
    assert deal is not None
    seats = deal.seats
    return seats[(seats.index(seat) + 1) % len(seats)]


__all__ = ["TRUMPS", "DealSummary", "SeatView", "seat_view"]
