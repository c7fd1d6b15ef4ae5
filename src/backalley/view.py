"""SeatView: everything one seat may know — and nothing else (DESIGN principle 2).

The engine fills a view (:meth:`backalley.engine.Game.view`) by copying out the public facts
and, for a seat, that seat's own hand and the card it drew in a joker exchange (D4). This
module only defines what a view holds and how it reads: it never sees the game, so nothing
here can reach another hand or the stock. Bots, the terminal, the web client and the
research environment all receive these views.

Cards and bids in a view are :class:`~backalley.cards.Card`, :class:`~backalley.cards.CardSet`
and :class:`~backalley.rules.Bid`: the engine's ints, named when printed.

>>> from backalley.engine import Game
>>> from backalley.rules import Ruleset
>>> game = Game(Ruleset.preset("standard", hand_sizes=[3]), seed=1)
>>> view = game.view(2)
>>> view.hand, view.hand_counts, view.legal_actions[:2]
(CardSet('9S 9H LJ'), (3, 3, 3, 3), (Bid('pass'), Bid('1')))
>>> view
<SeatView seat 2, deal 1 (3 cards), trump ♠, bid: seat 2 to move, hand 9S 9H LJ>
>>> print(view)
standard · deal 1 · 3 cards · trump ♠ (turn-up 2S) · dealer seat 1 · bid
scores  side 0 (seats 0 & 2) 0 · side 1 (seats 1 & 3) 0
  seat 0  3 cards
  seat 1  3 cards
> seat 2  9S 9H LJ
  seat 3  3 cards
>>> game.public_view().hand
CardSet('')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from backalley.cards import (
    BIG_BLOOPER,
    FULL_DECK,
    LITTLE_BLOOPER,
    SUIT_SYMBOLS,
    Card,
    CardSet,
    trump_mask,
)
from backalley.rules import Bid, DealKind, Phase, Ruleset, ThrownIn

TRUMPS = 4  #: the "suit" a seat is void in when it cannot follow a trump lead


@dataclass(frozen=True, slots=True)
class DealSummary:
    """A finished deal as the score sheet shows it: all of it is public once played."""

    dealer: int
    hand_size: int
    trump: int | None
    thrown_in: ThrownIn | None
    contracts: tuple[int | str | None, ...]
    tricks: tuple[int, ...]
    points: tuple[int, ...] | None
    trick_winners: tuple[int, ...] = ()  #: the seat that won each of its tricks (P5)


@dataclass(frozen=True, slots=True, repr=False)
class SeatView:
    """What ``seat`` knows (``seat is None``: a spectator, who sees no hand)."""

    rules: Ruleset
    seat: int | None
    phase: Phase
    scores: tuple[int, ...]
    history: tuple[DealSummary, ...]  #: earlier deals, oldest first; all of them once over
    winner: int | None
    # The current deal (or the last one, between deals):
    deal_number: int  #: 0-based index of the deal among all deals dealt
    deal_kind: DealKind | None
    dealer: int | None
    hand_size: int
    seats_in_deal: tuple[int, ...]
    hand: CardSet  #: this seat's cards (empty for a spectator)
    hand_counts: tuple[int, ...]
    turned_up: tuple[Card, ...]  #: the turn-up, after any jokers set aside (D3, D5)
    trump: int | None  #: the trump suit, 0‥3 for ♠ ♥ ♦ ♣, or None (no trump)
    joker_shown: tuple[int, Card] | None  #: (seat, joker) discarded face up under D4
    drawn: Card | None  #: the card this seat drew in that exchange; None for everyone else
    bids: tuple[tuple[int, Bid], ...]  #: (seat, bid) in bidding order
    contracts: tuple[int | str | None, ...]
    board_level: int
    leader: int | None
    free_trump_lead: tuple[bool, ...]  #: the P3 board exception, per seat
    trumps_broken: bool
    trick: tuple[tuple[int, Card], ...]  #: (seat, card) of the trick in progress
    completed_tricks: tuple[tuple[int, tuple[Card, ...]], ...]  #: (leader, cards) this deal
    trick_winners: tuple[int, ...]  #: the seat that won each completed trick, in order (P5)
    tricks_won: tuple[int, ...]  #: per side, this deal
    played: CardSet  #: every card played this deal
    voids: tuple[frozenset[int], ...]  #: per seat, suits it has shown it lacks (4 = trumps)
    to_move: int | None
    legal_actions: tuple[Card | Bid, ...]  #: empty unless this seat is to move

    @property
    def lone_joker(self) -> int | None:
        """The deal's only trump when a joker was turned up under D8, else ``None``."""
        turned = self.turned_up
        if self.rules.joker_turnup != "lone_joker" or self.trump is not None or not turned:
            return None
        return BIG_BLOOPER if turned[0] == LITTLE_BLOOPER else LITTLE_BLOOPER

    @property
    def trump_cards(self) -> CardSet:
        """Every trump this deal (empty when there is none: no trump suit, no lone joker)."""
        return CardSet(trump_mask(self.trump, self.lone_joker))

    @property
    def unseen(self) -> CardSet:
        """Cards this seat has not seen: not in its hand, not played, not face up."""
        seen = self.hand | self.played
        for card in self.turned_up:
            seen |= 1 << card
        if self.joker_shown is not None:
            seen |= 1 << self.joker_shown[1]
        return CardSet(FULL_DECK & ~seen)

    def __repr__(self) -> str:
        who = "spectator" if self.seat is None else f"seat {self.seat}"
        if self.deal_kind is None:
            return f"<SeatView {who}, no deal yet>"
        parts = [
            f"deal {self.deal_number + 1} ({cards_text(self.hand_size)})",
            trump_text(self.trump),
        ]
        state = self.phase.name.lower()
        if self.to_move is not None:
            state += f": seat {self.to_move} to move"
        parts.append(state)
        if self.seat is not None:
            parts.append(f"hand {self.hand}")
        if self.trick:
            parts.append("trick " + " ".join(str(card) for _, card in self.trick))
        return f"<SeatView {who}, {', '.join(parts)}>"

    def __str__(self) -> str:
        hands = {} if self.seat is None else {self.seat: self.hand}
        return render(self, hands)


def bid_text(view: SeatView, bid: int, level: int = 1) -> str:
    """A bid as the table's players name it: its record spelling, or under ``bab`` as
    bab-online's players say it, 0 for a pass and B, 2B, 3B, 4B for a board of ``level``
    (B4).

    >>> from backalley.engine import Game
    >>> view = Game(Ruleset.preset("bab", hand_sizes=[3]), seed=1).view(0)
    >>> bid_text(view, Bid("pass")), bid_text(view, Bid("board"), 2), bid_text(view, Bid("2"))
    ('0', '2B', '2')
    """
    named = Bid(bid)
    if view.rules.name != "bab" or named.tricks not in (None, 0):
        return str(named)
    if named.tricks == 0:
        return "0"
    return "B" if level == 1 else f"{level}B"


def board_level_of(view: SeatView, seat: int) -> int:
    """The level of the board bid ``seat`` made this deal (B4: the k-th board bid is k)."""
    level = 0
    for bidder, bid in view.bids:
        level += bid.tricks is None
        if bidder == seat:
            break
    return level


def cards_text(count: int) -> str:
    """``count`` cards, in the engine's English text: "1 card", "3 cards".

    >>> cards_text(1), cards_text(0)
    ('1 card', '0 cards')
    """
    return f"{count} card" if count == 1 else f"{count} cards"


def trump_text(trump: int | None) -> str:
    """``"trump ♥"`` or ``"no trump"``."""
    return "no trump" if trump is None else f"trump {SUIT_SYMBOLS[trump]}"


def side_text(rules: Ruleset, side: int) -> str:
    """A side as people call it: ``"side 0 (seats 0 & 2)"``, or ``"seat 1"`` in ``classic3``."""
    seats = rules.seats_of(side)
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return f"side {side} (seats {' & '.join(map(str, seats))})"


def render(view: SeatView, hands: Mapping[int, int]) -> str:
    """The table as text: the deal, the scores, each seat with the cards in ``hands`` (the
    others as counts), its bid and the trick. ``hands`` is what the reader may see: the
    view's own hand for a seat, every hand for the engine's own ``str``."""
    rules = view.rules
    scores = " · ".join(
        f"{side_text(rules, side)} {score}" for side, score in enumerate(view.scores)
    )
    if view.deal_kind is None:
        return f"{rules.name} · no deal yet\nscores  {scores}"
    head = [rules.name, f"deal {view.deal_number + 1}", cards_text(view.hand_size)]
    if view.deal_kind != DealKind.NORMAL:
        head.append("tie-breaker")
    turned = " ".join(map(str, view.turned_up))
    head.append(f"{trump_text(view.trump)} (turn-up {turned})")
    head += [f"dealer seat {view.dealer}", view.phase.name.lower()]
    lines = [" · ".join(head), f"scores  {scores}"]
    if view.joker_shown is not None:
        seat, joker = view.joker_shown
        drawn = f", drew {view.drawn}" if view.drawn is not None else ""
        lines.append(f"seat {seat} showed {joker} and discarded it (D4){drawn}")
    bids = dict(view.bids)
    shown = [
        str(CardSet(hands[seat])) or "-" if seat in hands else cards_text(view.hand_counts[seat])
        for seat in range(rules.num_players)
    ]
    width = max(map(len, shown))
    for seat, cards in enumerate(shown):
        mark = ">" if seat == view.to_move else " "
        bid = f"bid {bids[seat]}" if seat in bids else ""
        lines.append(f"{mark} seat {seat}  {cards:<{width}}  {bid}".rstrip())
    if view.leader is not None and view.deal_kind == DealKind.NORMAL:
        contracts = " · ".join(
            f"{side_text(rules, side)} {contract or '-'} ({taken} taken)"
            for side, (contract, taken) in enumerate(
                zip(view.contracts, view.tricks_won, strict=True)
            )
        )
        lines.append(f"contracts  {contracts}")
    if view.trick:
        lines.append("trick  " + " · ".join(f"seat {s} {card}" for s, card in view.trick))
    if view.winner is not None:
        lines.append(f"winner  {side_text(rules, view.winner)}")
    return "\n".join(lines)


__all__ = [
    "TRUMPS",
    "DealSummary",
    "SeatView",
    "bid_text",
    "board_level_of",
    "render",
    "side_text",
    "trump_text",
]
