"""The game as a state machine: deal → bid → play → score → next deal (docs/rules.md §2–§6).

A :class:`Game` holds one whole game. It is dealt either by a seeded ``random.Random`` (each
deal is dealt as soon as it is due) or deal by deal from given hands and stock
(:meth:`Game.start_deal`), which is how records are replayed. Players act through
:meth:`Game.legal_actions` and :meth:`Game.apply`; what a seat may know leaves the engine only
through :meth:`Game.view` and :meth:`Game.public_view`.

Actions are ``int``: a card is 0‥53 (:mod:`backalley.cards`), a bid is :data:`PASS`,
``bid_action(k)`` for *k* tricks, or :data:`BOARD` (:mod:`backalley.rules`). What the engine
hands out names them: views hold :class:`~backalley.cards.Card` and
:class:`~backalley.rules.Bid` values, and ``repr`` and ``str`` of a game or a deal show cards.

The rules of a trick live here once, for every client: :func:`legal_cards` (P2–P4),
:func:`follow_mask` (what follows a lead), :func:`winning_card` and :func:`trick_winner` (P5),
and :func:`voids` (what a failure to follow shows).

Every refusal raises :class:`IllegalAction` carrying the rule id of the rule book's refusals
(docs/rules.md §7) and leaves the game exactly as it was.

>>> game = Game(Ruleset.preset("standard", hand_sizes=[2, 1]), seed=7)
>>> while not game.is_over:
...     game.apply(game.legal_actions()[-1])  # always board, and the highest card
>>> len(game.scores), game.phase.name
(2, 'OVER')
>>> game
<Game standard, 2 deals of 2, over, scores 40 / -40, side 0 won>
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Iterable, Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

from backalley.cards import (
    _CHUNKS,
    _NOT_A_CARD,
    BIG_BLOOPER,
    CARDS,
    FULL_DECK,
    HONOURS,
    JOKERS,
    LITTLE_BLOOPER,
    N_,
    NUM_CARDS,
    SUIT_MASKS,
    SUITS,
    BackAlleyError,
    Card,
    CardError,
    CardSet,
    card_name,
    mask_of,
    parse_card,
    suit_of,
    trump_mask,
)
from backalley.rules import (
    BIDS,
    BOARD,
    NOT_A_BID,
    PASS,
    Bid,
    BidError,
    DealKind,
    Phase,
    Ruleset,
    ThrownIn,
    action_name,
    bid_action,
    bidding_order,
    is_int,
    named_action,
    next_seat,
    parse_bid,
)
from backalley.view import TRUMPS, DealSummary, SeatView, cards_text, render, trump_text

__all__ = [
    "BOARD",
    "FORCE_ALL",
    "FORCE_OPPONENTS",
    "NO_FORCE",
    "PASS",
    "RAINBOW",
    "Deal",
    "DealKind",
    "Game",
    "IllegalAction",
    "Phase",
    "SeatError",
    "action_name",
    "bid_action",
    "blooper_forces_seat",
    "blooper_mode",
    "board_multiple",
    "contract_made",
    "deal_points",
    "follow_mask",
    "legal_cards",
    "parse_bid",
    "points_for_side",
    "side_bids",
    "side_score",
    "trick_winner",
    "voids",
    "winning_card",
]

_BOARD_VALUE = 14


@mypyc_attr(native_class=False)
class SeatError(BackAlleyError, ValueError):
    """A seat number that is not at this table (C4)."""

    def __init__(self, text: str, num_players: int) -> None:
        super().__init__(
            "C4",
            N_("there is no seat {seat}: seats are 0 to {last}"),
            seat=text,
            last=num_players - 1,
        )


@mypyc_attr(native_class=False)
class IllegalAction(BackAlleyError):
    """An action, or a deal, that the rules refuse.

    ``rule`` is the rule id of the rule book's refusals (docs/rules.md); ``message`` says in
    plain English what is wrong; ``template`` and ``params`` let a client show the message in
    the player's language. The game is left exactly as it was.

    >>> game = Game(Ruleset.preset("standard"), seed=1)
    >>> game.play("AS")
    Traceback (most recent call last):
    ...
    backalley.engine.IllegalAction: B1: no card can be played while bids are still due
    """


#: The attributes of a Deal, for copies (``__slots__`` is not readable when compiled).
_DEAL_FIELDS: Final = (
    "bids",
    "board_level",
    "contracts",
    "dealer",
    "exchange",
    "hand_size",
    "hands",
    "kind",
    "leader",
    "lone_joker",
    "play",
    "points",
    "rainbows",
    "seats",
    "stock",
    "thrown_in",
    "tricks",
    "trump",
    "turned",
    "winners",
)


_DEAL, _BID, _PLAY, _OVER = 0, 1, 2, 3


class Deal:
    """One deal as dealt and played: the log a record is written from.

    The lists are shared with the :class:`Game` while the deal is in play, so they are
    always current.

    >>> game = Game(Ruleset.preset("standard", hand_sizes=[3]), seed=2)
    >>> for action in ["1", "pass", "board", "2", "QS"]:
    ...     game.apply(action)
    >>> game.current_deal
    <Deal dealer 0, 3 cards, trump ♣, bids 1 pass board 2, 1 of 12 cards played>
    >>> print(game.current_deal)
    dealer seat 0 · 3 cards · trump ♣ (turn-up KC)
    seat 0  6S KD 9D
    seat 1  6H TD 2D
    seat 2  8S 5H 2H
    seat 3  QS 8C 3C
    stock   KC 3H 4H 5S … (42 cards)
    bids    seat 1 1 · seat 2 pass · seat 3 board · seat 0 2
    trick 1  seat 3 QS
    """

    __slots__ = _DEAL_FIELDS

    def __init__(
        self,
        dealer: int,
        kind: DealKind,
        hand_size: int,
        hands: tuple[int, ...],
        stock: tuple[int, ...],
        seats: tuple[int, ...],
        num_sides: int,
    ) -> None:
        self.dealer = dealer
        self.kind = kind
        self.hand_size = hand_size
        self.hands = hands  #: each seat's cards as dealt, before a joker exchange (D4)
        self.stock = stock  #: undealt cards, top first (D3)
        self.seats = seats  #: the seats dealt in, clockwise (all but a sitter-out in E3)
        self.trump: int | None = None
        self.turned: tuple[int, ...] = ()  #: cards turned up, jokers set aside first (D5)
        #: the deal's only trump when a joker was turned up under D8, wherever it lies
        self.lone_joker: int | None = None
        self.rainbows: tuple[int, ...] = ()  #: the seats holding a rainbow (S5)
        self.exchange: tuple[int, int, int] | None = None  #: (seat, joker shown, card drawn) D4
        self.thrown_in: ThrownIn | None = None
        self.bids: list[int] = []  #: bid actions in bidding order
        self.play: list[int] = []  #: cards in the order played
        self.contracts: list[int | str | None] = [None] * num_sides
        self.board_level = 0
        self.leader: int | None = None
        self.tricks = [0] * num_sides
        self.winners: list[int] = []  #: the seat that won each completed trick (P5)
        self.points: list[int] | None = None

    def __repr__(self) -> str:
        parts = [f"dealer {self.dealer}", cards_text(self.hand_size), trump_text(self.trump)]
        if self.thrown_in is not None:
            parts.append(f"thrown in ({self.thrown_in})")
        if self.bids:
            parts.append("bids " + " ".join(map(action_name, self.bids)))
        if self.play:
            total = self.hand_size * len(self.seats)
            parts.append(f"{len(self.play)} of {total} cards played")
        return f"<Deal {', '.join(parts)}>"

    def __str__(self) -> str:
        """The deal as dealt and played, trick by trick, every hand shown."""
        turned = " ".join(map(card_name, self.turned))
        lines = [
            f"dealer seat {self.dealer} · {cards_text(self.hand_size)} · {trump_text(self.trump)}"
            f" (turn-up {turned})"
        ]
        lines += [f"seat {seat}  {CardSet(hand)}" for seat, hand in enumerate(self.hands)]
        top = " ".join(map(card_name, self.stock[:4]))
        lines.append(f"stock   {top} … ({cards_text(len(self.stock))})")
        if self.exchange is not None:
            seat, joker, drawn = self.exchange
            lines.append(f"seat {seat} showed {card_name(joker)}, drew {card_name(drawn)} (D4)")
        if self.thrown_in is not None:
            lines.append(f"thrown in: {self.thrown_in}")
        if self.bids:
            order = bidding_order(self.dealer, len(self.hands))
            bids = zip(order, map(action_name, self.bids), strict=False)
            lines.append("bids    " + " · ".join(f"seat {s} {b}" for s, b in bids))
        leader = self.leader
        size = len(self.seats)
        for start in range(0, len(self.play), size):
            if leader is None:
                break
            cards = self.play[start : start + size]
            seat, shown = leader, []
            for card in cards:
                shown.append(f"seat {seat} {card_name(card)}")
                seat = next_seat(seat, self.seats)
            lines.append(f"trick {start // size + 1:<2} " + " · ".join(shown))
            if len(cards) == size:
                leader = self.winners[start // size]
        if self.points is not None:
            lines.append(f"points  {' / '.join(map(str, self.points))}")
        return "\n".join(lines)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (and deep-copied) field by field, the compiled build as plain Python."""
        return (_rebuilt_deal, (tuple(getattr(self, name) for name in _DEAL_FIELDS),))

    def copy(self) -> Deal:
        """A copy whose lists can change independently of this one's."""
        new = Deal(0, _NORMAL, 0, (), (), (), 0)
        for name in _DEAL_FIELDS:
            setattr(new, name, getattr(self, name))
        new.bids = self.bids[:]
        new.play = self.play[:]
        new.contracts = self.contracts[:]
        new.tricks = self.tricks[:]
        new.winners = self.winners[:]
        new.points = None if self.points is None else self.points[:]
        return new


#: The attributes of a Game, for copies (``__slots__`` is not readable when compiled).
_GAME_FIELDS: Final = (
    "_active",
    "_bid_actions",
    "_bid_lists",
    "_blooper",
    "_broken",
    "_counted",
    "_deal",
    "_deals_before",
    "_free_lead",
    "_hands",
    "_last_trick",
    "_lead_mask",
    "_lead_seat",
    "_legal",
    "_next",
    "_order",
    "_passes_before",
    "_pending_tie",
    "_phase",
    "_play",
    "_played",
    "_renig_from",
    "_side",
    "_tie",
    "_tmask",
    "_to_move",
    "_trick",
    "_trick_log",
    "_tricks",
    "deals",
    "num_players",
    "num_sides",
    "over_rule",
    "rng",
    "rules",
    "scores",
    "winner",
)


class Game:
    """One game of Back Alley under a :class:`Ruleset`.

    ``seed`` (or ``rng``) makes the game deal itself, choosing the first dealer at random
    (D1); without either, call :meth:`start_deal` whenever :attr:`phase` is ``DEAL``.

    ``repr`` is one line; ``str`` is the table as the engine knows it, every hand shown
    (a seat's view prints the same table with only its own hand):

    >>> game = Game(Ruleset.preset("standard", hand_sizes=[3]), seed=2)
    >>> for action in ["1", "pass", "board", "2", "QS"]:
    ...     game.apply(action)
    >>> game
    <Game standard, deal 1 (3 cards), play, seat 0 to move, scores 0 / 0>
    >>> print(game)
    standard · deal 1 · 3 cards · trump ♣ (turn-up KC) · dealer seat 0 · play
    scores  side 0 (seats 0 & 2) 0 · side 1 (seats 1 & 3) 0
    > seat 0  6S KD 9D  bid 2
      seat 1  6H TD 2D  bid 1
      seat 2  8S 5H 2H  bid pass
      seat 3  8C 3C     bid board
    contracts  side 0 (seats 0 & 2) 2 (0 taken) · side 1 (seats 1 & 3) board (0 taken)
    trick  seat 3 QS
    """

    __slots__ = _GAME_FIELDS

    def __init__(
        self,
        rules: Ruleset,
        seed: int | None = None,
        *,
        rng: random.Random | None = None,
    ) -> None:
        self.rules = rules
        self.num_players = rules.num_players
        self.num_sides = rules.num_sides
        self.rng = rng if rng is not None else (random.Random(seed) if seed is not None else None)
        self.scores = [0] * self.num_sides
        self.deals: list[Deal] = []
        self.winner: int | None = None
        #: the rule an action after the end cites: E1, or E2 / E3 when a tie-breaker ended it
        self.over_rule = "E1"
        self._counted = 0
        self._deals_before = 0  #: deals dealt before the first one this game holds (taken_up)
        self._passes_before = 0  #: of those, the all-pass throw-ins just before it (D7)
        self._side = tuple(rules.side_of(s) for s in range(self.num_players))
        self._phase = _DEAL
        self._blooper = blooper_mode(rules)  # P4's reach
        self._pending_tie: tuple[DealKind, tuple[int, ...]] | None = None
        self._renig_from = rules.renig_min_hand
        self._bid_lists = _bid_lists(rules.max_bid)
        self._reset_deal_state()
        if self.rng is not None:
            self._deal_from_rng(self.rng.randrange(self.num_players))

    def _reset_deal_state(self) -> None:
        self._deal: Deal | None = None
        self._hands = [0] * self.num_players
        self._tmask = 0
        self._to_move = 0
        self._next, self._order = _rotations(tuple(range(self.num_players)), self.num_players)
        self._active = self.num_players
        self._bid_actions: tuple[int, ...] = ()
        self._free_lead = [False] * self.num_players
        self._trick: list[int] = []
        self._lead_mask = 0
        self._lead_seat = 0
        self._broken = False
        self._played = 0
        self._play: list[int] = []
        self._tricks = [0] * self.num_sides
        self._legal: int | None = None
        self._trick_log: list[tuple[int, list[int]]] = []
        self._tie = False
        self._last_trick = 0

    # ------------------------------------------------------------------ reading the state

    @property
    def phase(self) -> Phase:
        """Whether a deal is due, bids or cards are due, or the game is over."""
        return Phase(self._phase)

    @property
    def is_over(self) -> bool:
        """The game has ended (E1–E3)."""
        return self._phase == _OVER

    @property
    def current_deal(self) -> Deal | None:
        """The deal in play, or the last one dealt; ``None`` before the first deal."""
        return self._deal

    @property
    def to_move(self) -> int | None:
        """The seat whose bid or card is due, or ``None``."""
        return self._to_move if self._phase in (_BID, _PLAY) else None

    @property
    def trick(self) -> list[tuple[int, int]]:
        """The current trick as (seat, card) pairs in the order played."""
        seats, seat = [], self._lead_seat
        for _ in self._trick:
            seats.append(seat)
            seat = self._next[seat]
        return list(zip(seats, self._trick, strict=True))

    @property
    def completed_tricks(self) -> list[tuple[int, tuple[int, ...]]]:
        """This deal's finished tricks as (leader, cards in order played)."""
        return [(leader, tuple(cards)) for leader, cards in self._trick_log]

    @property
    def trumps_broken(self) -> bool:
        """A trump has been played in an earlier trick of this deal (P3 a)."""
        return self._broken

    def hand(self, seat: int) -> int:
        """The cards ``seat`` holds, as a mask. Hidden information: for the engine and tests."""
        return self._hands[seat]

    def free_trump_lead(self, seat: int) -> bool:
        """Whether the board exception of P3 lets ``seat`` lead trump before trumps are broken."""
        return self._free_lead[seat]

    @property
    def counted_deals(self) -> int:
        """How many counted deals (D2) have been played to the end."""
        return self._counted

    # ------------------------------------------------------------------ dealing

    @classmethod
    def taken_up(
        cls,
        rules: Ruleset,
        *,
        deal: object = 0,
        scores: object = None,
        passes: object = 0,
        tie_breaker: object = None,
        deals_before: object = None,
    ) -> Game:
        """A game taken up at a deal, without its earlier deals: what the rules carry from
        deal to deal is given instead of replayed.

        ``deal`` is the counted deal due (0-based, D2), ``scores`` each side's points so far
        (S4), ``passes`` how many deals in a row just before it were thrown in because all
        passed (D7's ``all_pass_limit``), ``tie_breaker`` the seats dealt into a tie-breaker
        due after the counted deals (E2, E3), and ``deals_before`` how many deals were dealt
        before it, throw-ins included (the view's ``deal_number``; by default ``deal`` +
        ``passes``). Only their types and ranges are checked: the game cannot know whether
        they are true. The due deal is then dealt by :meth:`start_deal`, by any dealer (D1).
        Such a game has no record: a ``backalley/1`` record starts at a game's start.

        >>> game = Game.taken_up(Ruleset.preset("standard"), deal=12, scores=[40, -15])
        >>> game.next_deal()[1], game.scores
        (1, [40, -15])

        :raises IllegalAction: for a value of the wrong type or out of range, citing the
            rule it stands for.
        """
        game = cls(rules)
        counted = len(rules.hand_sizes)
        if tie_breaker is None:
            if not is_int(deal) or not 0 <= deal < counted:  # type: ignore[operator]
                raise IllegalAction(
                    "D2",
                    N_("there is no counted deal {deal}: this game has deals 0 to {last}"),
                    deal=repr(deal),
                    last=counted - 1,
                )
        else:
            game._pending_tie = _tie_breaker(rules, tie_breaker)
            deal = counted
        if scores is None:
            scores = [0] * game.num_sides
        if (
            not isinstance(scores, (list, tuple))
            or len(scores) != game.num_sides
            or not all(map(is_int, scores))
        ):
            raise IllegalAction(
                "S4",
                N_("the scores are a whole number for each of the {sides} sides, not {scores}"),
                sides=game.num_sides,
                scores=repr(scores),
            )
        if not is_int(passes) or passes < 0:  # type: ignore[operator]
            raise IllegalAction(
                "D7",
                N_("the deals thrown in before this one are a count from 0, not {passes}"),
                passes=repr(passes),
            )
        assert isinstance(deal, int) and isinstance(passes, int)
        if deals_before is None:
            deals_before = deal + passes
        if not is_int(deals_before) or deals_before < deal + passes:  # type: ignore[operator]
            raise IllegalAction(
                "D2",
                N_("{before} deals cannot have been dealt before counted deal {deal}"),
                before=repr(deals_before),
                deal=deal,
            )
        assert isinstance(deals_before, int)
        game.scores = [int(score) for score in scores]
        game._counted = deal
        game._passes_before = passes
        game._deals_before = deals_before
        return game

    def next_deal(self) -> tuple[DealKind, int, tuple[int, ...]]:
        """What the due deal is: its kind, hand size and the seats dealt in.

        :raises IllegalAction: when no deal is due.
        """
        if self._phase == _OVER:
            raise IllegalAction(self.over_rule, N_("the game is over"))
        if self._phase != _DEAL:
            raise IllegalAction("D1", N_("the deal in play is not finished"))
        if self._pending_tie is not None:
            kind, seats = self._pending_tie
            return kind, 13, seats
        size = self.rules.hand_sizes[self._counted]
        return DealKind.NORMAL, size, tuple(range(self.num_players))

    def expected_dealer(self) -> int | None:
        """The seat that must deal next (D1); ``None`` when the first dealer is free."""
        last = self._deal
        if last is None:
            return None
        if last.thrown_in == ThrownIn.RENIG or (
            last.thrown_in == ThrownIn.ALL_PASS and self.rules.all_pass == "redeal_same"
        ):
            return last.dealer  # D6; D7 with "redeal_same"
        return self.rules.left_of(last.dealer)

    def start_deal(
        self, dealer: object, hands: Sequence[Iterable[int | str]], stock: Sequence[int | str]
    ) -> None:
        """Deal the given ``hands`` (one per seat) and ``stock`` (top first), as a record does.

        Checked in the order of the record format (docs/record.md): the dealer (D1), the hand
        sizes (D2), each card's spelling (C2), then that the cards are exactly the 54 (D3).

        :raises IllegalAction: when the deal is not the one the rules call for; the game is
            then unchanged.
        """
        kind, size, seats = self.next_deal()
        expected = self.expected_dealer()
        if (
            isinstance(dealer, bool)
            or not isinstance(dealer, int)
            or not 0 <= dealer < self.num_players
        ):
            raise IllegalAction("D1", N_("there is no seat {dealer} to deal"), dealer=repr(dealer))
        if expected is not None and dealer != expected:
            raise IllegalAction(
                "D1",
                N_("seat {expected} must deal now, not seat {dealer}"),
                expected=expected,
                dealer=dealer,
            )
        try:
            hand_lists = [list(h) for h in hands]
            stock_list = list(stock)
        except TypeError:
            raise IllegalAction(
                "D2", N_("a deal is a list of cards for each seat and a list for the stock")
            ) from None
        if len(hand_lists) != self.num_players:
            raise IllegalAction(
                "D2",
                N_("a deal has {expected} hands, not {count}"),
                expected=self.num_players,
                count=len(hand_lists),
            )
        for seat, cards in enumerate(hand_lists):
            want = size if seat in seats else 0
            if len(cards) != want:
                raise IllegalAction(
                    "D2",
                    N_("seat {seat} must be dealt {want} cards here, not {count}"),
                    seat=seat,
                    want=want,
                    count=len(cards),
                )
        try:
            masks = [[_card(c) for c in cards] for cards in hand_lists]
            stock_cards = [_card(c) for c in stock_list]
        except CardError as error:
            raise IllegalAction("C2", _NOT_A_CARD, text=error.text) from None
        everything = [c for cards in masks for c in cards] + stock_cards
        if len(everything) != NUM_CARDS or len(set(everything)) != NUM_CARDS:
            raise IllegalAction(
                "D3", N_("the hands and the stock must hold each of the 54 cards exactly once")
            )
        hand_masks = tuple(mask_of(cards) for cards in masks)
        self._begin_deal(dealer, kind, size, seats, hand_masks, tuple(stock_cards))

    def attach_rng(self, rng: random.Random) -> None:
        """Let ``rng`` deal this game from now on (a resumed record goes on with new deals)."""
        self.rng = rng
        if self._phase == _DEAL:
            dealer = self.expected_dealer()
            self._deal_from_rng(rng.randrange(self.num_players) if dealer is None else dealer)

    def deal_from(self, rng: random.Random, first_dealer: int | None = None) -> None:
        """Shuffle with ``rng`` and deal the due deal (D3), as a duplicate match does.

        The dealer is the one D1 calls for; for the first deal ``first_dealer``, or one
        drawn from ``rng``.

        :raises IllegalAction: when no deal is due.
        """
        self.next_deal()
        dealer = self.expected_dealer()
        if dealer is None:
            dealer = rng.randrange(self.num_players) if first_dealer is None else first_dealer
        self._deal_from_rng(dealer, rng)

    def _deal_from_rng(self, dealer: int, rng: random.Random | None = None) -> None:
        """Shuffle and deal the due deal (D3) with ``rng``, or the game's own generator."""
        rng = rng or self.rng
        assert rng is not None
        kind, size, seats = self.next_deal()
        deck = _shuffled_deck(rng)
        hands = [0] * self.num_players
        at = 0
        for seat in seats:
            hands[seat] = sum(map(_BIT.__getitem__, deck[at : at + size]))  # distinct bits
            at += size
        self._begin_deal(dealer, kind, size, seats, tuple(hands), tuple(deck[at:]))

    def _begin_deal(
        self,
        dealer: int,
        kind: DealKind,
        size: int,
        seats: tuple[int, ...],
        hands: tuple[int, ...],
        stock: tuple[int, ...],
    ) -> None:
        self._reset_deal_state()
        self._pending_tie = None
        deal = Deal(dealer, kind, size, hands, stock, seats, self.num_sides)
        self.deals.append(deal)
        self._deal = deal
        self._hands = list(hands)
        self._turn_up(deal)
        self._tmask = trump_mask(deal.trump, deal.lone_joker)
        self._tricks = deal.tricks
        self._play = deal.play
        self._active = len(seats)
        self._next, self._order = _rotations(seats, self.num_players)
        self._tie = kind != _NORMAL
        self._last_trick = 0 if self._tie else size
        if not self._tie:
            if self._renig_from is not None and size >= self._renig_from and self._renig():
                deal.thrown_in = ThrownIn.RENIG
                self._phase = _DEAL
                self._maybe_deal_on()
                return
            self._phase = _BID
            self._to_move = self.rules.left_of(dealer)
            self._bid_actions = self._bid_lists[size]
            return
        # E2 / E3: no bidding; left of the dealer leads, or the first tied seat after him.
        self._phase = _PLAY
        leader = self.rules.left_of(dealer)
        while leader not in seats:
            leader = self.rules.left_of(leader)
        deal.leader = leader
        self._to_move = self._lead_seat = leader

    def _turn_up(self, deal: Deal) -> None:
        """Turn up the stock's top card and settle the trump suit (D3, D4, D5)."""
        stock = deal.stock
        if self.rules.joker_turnup == "lone_joker":  # D8: no exchange, the other joker trumps
            top = stock[0]
            deal.turned = (top,)
            if top < LITTLE_BLOOPER:
                deal.trump = suit_of(top)
            else:
                deal.lone_joker = BIG_BLOOPER if top == LITTLE_BLOOPER else LITTLE_BLOOPER
            return
        if self.rules.joker_turnup == "no_trump":
            top = stock[0]
            deal.turned = (top,)
            if top < LITTLE_BLOOPER:
                deal.trump = suit_of(top)
                return
            other = BIG_BLOOPER if top == LITTLE_BLOOPER else LITTLE_BLOOPER
            for seat, hand in enumerate(self._hands):
                if hand >> other & 1:  # D4: shown, discarded, replaced by the next stock card
                    drawn = stock[1]
                    self._hands[seat] = hand ^ (1 << other) | (1 << drawn)
                    deal.exchange = (seat, other, drawn)
            return
        at = 0
        while at < len(stock) and stock[at] >= LITTLE_BLOOPER:
            at += 1
        deal.turned = stock[: at + 1]
        deal.trump = suit_of(stock[at]) if at < len(stock) else None

    def _renig(self) -> bool:
        """D6: some player holds no honour and no trump in a deal large enough to check."""
        least = self.rules.renig_min_hand
        deal = self._deal
        assert deal is not None
        if least is None or deal.hand_size < least:
            return False
        strong = HONOURS | self._tmask
        return any(not hand & strong for hand in self._hands)

    # ------------------------------------------------------------------ acting

    def legal_actions(self) -> list[int]:
        """Every action the player on turn may take now; empty when none is due."""
        if self._phase == _PLAY:
            legal = self._legal
            if legal is None:
                legal = self._legal = self._legal_cards()
            s, h, d, c, j = _CHUNKS  # mask_cards, inlined: this runs once per card played
            return [
                *s[legal & 0x1FFF],
                *h[legal >> 13 & 0x1FFF],
                *d[legal >> 26 & 0x1FFF],
                *c[legal >> 39 & 0x1FFF],
                *j[legal >> 52],
            ]
        if self._phase == _BID:
            return list(self._bid_actions)
        return []

    def _legal_cards(self) -> int:
        """The playable cards of the player on turn, as a mask (:func:`legal_cards`)."""
        seat = self._to_move
        led = self._trick[0] if self._trick else -1
        return legal_cards(
            self._hands[seat],
            led,
            self._lead_mask,
            self._tmask,
            self._broken or self._free_lead[seat],
            led >= LITTLE_BLOOPER and self._forced(seat, led),  # only a Blooper lead forces
        )

    def _forced(self, seat: int, led: int) -> bool:
        """Whether the card ``led`` forces ``seat``'s trump (P4)."""
        same_side = self._side[seat] == self._side[self._lead_seat]
        return blooper_forces_seat(self._blooper, led, same_side)

    def apply(self, action: object) -> None:
        """Take ``action`` (an action, or its record spelling) for the player on turn.

        :raises IllegalAction: with the rule broken; the game is then unchanged.
        """
        if type(action) is not int:
            if not isinstance(action, bool) and isinstance(action, int):
                self.apply(int(action))  # a Card or a Bid from a view
            elif isinstance(action, str) and (
                is_bid_text(action) or self._board_name(action) is not None
            ):
                self.bid(action)
            else:
                self.play(action)  # C2 for anything that is no card
            return
        # The hot path of every simulation: a legal card, played inline.
        if self._phase == 2 and 0 <= action < 54:  # _PLAY, a card
            legal = self._legal
            if legal is None:
                legal = self._legal_cards()
            if legal >> action & 1:
                seat = self._to_move
                self._hands[seat] ^= 1 << action
                self._play.append(action)
                trick = self._trick
                trick.append(action)
                self._legal = None
                count = len(trick)
                if count == 1:
                    self._lead_seat = seat
                    self._lead_mask = follow_mask(action, self._tmask)
                    self._to_move = self._next[seat]
                elif count < self._active:
                    self._to_move = self._next[seat]
                else:
                    self._end_trick(trick)
                return
        if self._phase == _BID and action in self._bid_actions:
            self._bid(action)
        elif action >= PASS:
            self.bid(action)
        else:
            self.play(action)

    def bid(self, bid: object, seat: object = None) -> None:
        """Bid for the player on turn (or check that it is ``seat``'s turn): B1.

        ``bid`` is an action or its record spelling (``"pass"``, ``"3"``, ``"board"``).

        :raises IllegalAction: with the rule broken (in the order of docs/rules.md §7).
        """
        self._refuse_if_over()
        deal = self._deal
        if deal is not None and deal.thrown_in == ThrownIn.RENIG:
            raise IllegalAction("D6", N_("this deal was thrown in for a renig (no bids)"))
        if deal is not None and deal.kind != DealKind.NORMAL:
            rule = "E3" if self.num_players == 3 else "E2"
            raise IllegalAction(rule, N_("there is no bidding in a tie-breaker"))
        if self._phase != _BID:
            raise IllegalAction("B1", N_("no bid is due now"))
        level = self._board_name(bid) if isinstance(bid, str) else None
        if level is not None:
            action = self._board_at(level, str(bid))
        elif isinstance(bid, str):
            try:
                action = parse_bid(bid)
            except BidError:
                raise IllegalAction("B1", NOT_A_BID, text=repr(bid)) from None
        elif not isinstance(bid, bool) and isinstance(bid, int) and PASS <= bid <= BOARD:
            action = int(bid)
        else:
            raise IllegalAction("B1", NOT_A_BID, text=repr(bid))
        self._check_turn(seat, "B1")
        if action not in self._bid_actions:
            top = self._bid_actions[-2] - PASS
            raise IllegalAction(
                "B1",
                N_("a bid of {bid} is out of range: bid pass, 1 to {top}, or board")
                if top
                else N_("a bid of {bid} is out of range: bid pass or board"),
                bid=action - PASS,
                top=top,
            )
        self._bid(action)

    def _board_name(self, text: str) -> int | None:
        """The level a bab-online board spelling names (``B``, ``2B``, ``3B``, ``4B``, in any
        case: B4), under the ``bab`` preset only; else ``None``."""
        if self.rules.name != "bab":
            return None
        key = text.strip().upper()
        if key == "B":
            return 1
        if len(key) == 2 and key[1] == "B" and key[0] in "234":
            return int(key[0])
        return None

    def _board_at(self, level: int, text: str) -> int:
        """BOARD, for a board bid spelt as ``level`` (``text``): the next level (B4).

        :raises IllegalAction: B1 for a level that is not the next one.
        """
        deal = self._deal
        due = 1 if deal is None else deal.board_level + 1
        if level != due:
            raise IllegalAction(
                "B1",
                N_("{text} is board level {level}, but the next board bid here is level {due}"),
                text=repr(text),
                level=level,
                due=due,
            )
        return BOARD

    def play(self, card: object, seat: object = None) -> None:
        """Play ``card`` (a card or its spelling) for the player on turn: P2–P6.

        :raises IllegalAction: with the rule broken (in the order of docs/rules.md §7).
        """
        self._refuse_if_over()
        deal = self._deal
        if self._phase == _BID:
            raise IllegalAction("B1", N_("no card can be played while bids are still due"))
        if self._phase != _PLAY:
            if deal is not None and deal.thrown_in == ThrownIn.RENIG:
                raise IllegalAction("D6", N_("this deal was thrown in for a renig"))
            if deal is not None and deal.thrown_in == ThrownIn.ALL_PASS:
                raise IllegalAction("D7", N_("every player passed, so this deal was thrown in"))
            raise IllegalAction("P6", N_("all the tricks of this deal have been played"))
        if isinstance(card, str):
            try:
                number = parse_card(card)
            except CardError:
                raise IllegalAction("C2", _NOT_A_CARD, text=repr(card)) from None
        elif not isinstance(card, bool) and isinstance(card, int) and 0 <= card < NUM_CARDS:
            number = int(card)
        else:
            raise IllegalAction("C2", _NOT_A_CARD, text=repr(card))
        self._check_turn(seat, "P2")
        self._legal = self._refuse_card(number)
        self.apply(number)

    def _refuse_if_over(self) -> None:
        if self._phase == _OVER:
            raise IllegalAction(self.over_rule, N_("the game is over"))

    def _check_turn(self, seat: object, rule: str) -> None:
        if seat is not None and seat != self._to_move:
            raise IllegalAction(
                rule,
                N_("it is seat {turn}'s turn, not seat {seat}'s"),
                turn=self._to_move,
                seat=seat,
            )

    def _refuse_card(self, card: int) -> int:
        """Raise the rule ``card`` breaks, if any: P2 (not held), P3, P4, then P2 (revoke).

        Returns the legal cards' mask when ``card`` is among them.
        """
        hand = self._hands[self._to_move]
        name = card_name(card)
        if not hand >> card & 1:
            raise IllegalAction("P2", N_("{card} is not in your hand"), card=name)
        legal = self._legal_cards()
        if legal >> card & 1:
            return legal
        if not self._trick:
            raise IllegalAction(
                "P3",
                N_("you may not lead a trump ({card}) until a trump has been played"),
                card=name,
            )
        led = self._trick[0]
        if led >= LITTLE_BLOOPER and self._forced(self._to_move, led) and hand & self._tmask:
            forced = card_name(legal.bit_length() - 1)
            if led == BIG_BLOOPER:
                raise IllegalAction(
                    "P4",
                    N_("the Big Blooper was led: you must play your highest trump, {forced}"),
                    forced=forced,
                )
            raise IllegalAction(
                "P4",
                N_("the Little Blooper was led: you must play your lowest trump, {forced}"),
                forced=forced,
            )
        led_name = "trumps" if self._lead_mask == self._tmask else _SUIT_NAMES[suit_of(led)]
        raise IllegalAction(
            "P2", N_("you must follow suit: {suit} were led and you hold some"), suit=led_name
        )

    def _bid(self, action: int) -> None:
        deal = self._deal
        assert deal is not None
        deal.bids.append(action)
        seat = self._to_move
        value = action - PASS
        side = self._side[seat]
        contracts = deal.contracts
        if value == _BOARD_VALUE:
            contracts[side] = "board"
            deal.board_level += 1
        elif value and contracts[side] != "board":
            current = contracts[side]
            total = int(current) + value if isinstance(current, str) else value
            if self.rules.contract_cap:
                total = min(total, deal.hand_size)  # B3: cut to the hand, still a number
            contracts[side] = str(total)
        if len(deal.bids) < self.num_players:
            self._to_move = self._next[seat]
            return
        self._end_bidding(deal)

    def _end_bidding(self, deal: Deal) -> None:
        """B3, B4 are kept as bids come; here P1 picks the leader, or D7 throws the deal in."""
        seats = self.rules.bidding_order(deal.dealer)
        first = seats[0]
        values = [b - PASS for b in deal.bids]
        if not any(values):
            if self.rules.all_pass != "play" and not self._all_pass_limit_reached():
                deal.thrown_in = ThrownIn.ALL_PASS
                self._phase = _DEAL
                self._maybe_deal_on()
                return
            leader = first
        else:
            top = max(values)
            bidders = [s for s, v in zip(seats, values, strict=True) if v == top]
            last_board = top == _BOARD_VALUE and self.rules.board_tie_leader == "last"
            leader = bidders[-1] if last_board else bidders[0]
        rule = self.rules.board_leads_trump
        for seat, value in zip(seats, values, strict=True):
            bid_board = value == _BOARD_VALUE
            side_board = deal.contracts[self._side[seat]] == "board"
            if (rule == "bidder" and bid_board) or (rule == "side" and side_board):
                self._free_lead[seat] = True
        deal.leader = leader
        self._to_move = self._lead_seat = leader
        self._phase = _PLAY
        if self.rules.rainbow_hand == deal.hand_size:
            deal.rainbows = tuple(
                seat for seat in deal.seats if _has_rainbow(self._hands[seat], deal.trump)
            )

    def _all_pass_limit_reached(self) -> bool:
        """D7 ``all_pass_limit``: whether that many deals in a row, just before this one, were
        thrown in because all passed (a thrown-in deal is dealt again at the same hand size,
        D2, and a deal played out or a renig ends the run)."""
        limit = self.rules.all_pass_limit
        if limit is None:
            return False
        run = 0
        for earlier in reversed(self.deals[:-1]):
            if earlier.thrown_in != ThrownIn.ALL_PASS:
                return run >= limit
            run += 1
        return run + self._passes_before >= limit

    def _end_trick(self, trick: list[int]) -> None:
        """P5: the highest trump wins, else the highest card of the suit led; P6 at the end."""
        cards = 0
        for played in trick:
            cards |= 1 << played
        if cards & self._tmask:
            self._broken = True
        best = winning_card(cards, self._lead_mask, self._tmask)
        lead = self._lead_seat
        winner = self._order[lead][trick.index(best)]
        self._trick_log.append((lead, trick))
        assert self._deal is not None
        self._deal.winners.append(winner)
        self._trick = []
        self._tricks[self._side[winner]] += 1
        self._played += 1
        self._to_move = winner
        if self._played == self._last_trick:
            assert self._deal is not None
            self._score(self._deal)
        elif self._tie:
            assert self._deal is not None
            self._tie_breaker_trick(self._deal, self._side[winner])

    # ------------------------------------------------------------------ scoring and the end

    def _score(self, deal: Deal) -> None:
        """S1–S4 for every side, then the next deal or the end of the game (E1)."""
        n = deal.hand_size
        rules = self.rules
        points = []
        for side, (contract, taken) in enumerate(zip(deal.contracts, deal.tricks, strict=True)):
            if contract != "board":  # only a board's points depend on who bid what (S3)
                points.append(side_score(rules, contract, taken, n))
                continue
            bids = list(zip(rules.bidding_order(deal.dealer), deal.bids, strict=False))
            own, levels = side_bids(rules, bids, side)
            points.append(points_for_side(rules, n, contract, taken, own, levels, deal.board_level))
        for seat in deal.rainbows:  # S5: a rainbow pays its side, made, set or neither
            points[self._side[seat]] += RAINBOW
        deal.points = points
        for side, p in enumerate(points):
            self.scores[side] += p
        self._counted += 1
        self._phase = _DEAL
        if self._counted == len(self.rules.hand_sizes):
            self._end_of_counted_deals()
        self._maybe_deal_on()

    def _end_of_counted_deals(self) -> None:
        """E1: the most points wins; a tie is a draw, or goes to a tie-breaker (E2, E3)."""
        top = max(self.scores)
        tied = tuple(side for side, score in enumerate(self.scores) if score == top)
        if len(tied) == 1:
            self._finish(tied[0], "E1")
        elif not self.rules.tie_breaker:
            self._finish(None, "E1")
        elif self.num_players == 4:
            self._pending_tie = (DealKind.TIE_BREAKER, (0, 1, 2, 3))
        elif len(tied) == 3:
            self._pending_tie = (DealKind.TIE_BREAKER_THREE, (0, 1, 2))
        else:
            self._pending_tie = (DealKind.TIE_BREAKER_TWO, tied)

    def _tie_breaker_trick(self, deal: Deal, side: int) -> None:
        """E2, E3: first to 7 tricks wins; three tied players play all 13 tricks."""
        rule = "E3" if self.num_players == 3 else "E2"
        if deal.kind != DealKind.TIE_BREAKER_THREE:
            if deal.tricks[side] == 7:
                deal.points = [0] * self.num_sides
                self._finish(side, rule)
            return
        if self._played < 13:
            return
        deal.points = [0] * self.num_sides
        top = max(deal.tricks)
        best = tuple(s for s, t in enumerate(deal.tricks) if t == top)
        if len(best) == 1:
            self._finish(best[0], rule)
            return
        self._phase = _DEAL
        self._pending_tie = (DealKind.TIE_BREAKER_TWO, best)
        self._maybe_deal_on()

    def _finish(self, winner: int | None, rule: str) -> None:
        self.winner = winner
        self.over_rule = rule
        self._phase = _OVER

    def _maybe_deal_on(self) -> None:
        """A seeded game deals the next deal as soon as it is due."""
        if self.rng is not None and self._phase == _DEAL:
            dealer = self.expected_dealer()
            assert dealer is not None
            self._deal_from_rng(dealer)

    # ------------------------------------------------------------------ views and copies

    def view(self, seat: object) -> SeatView:
        """Everything ``seat`` may know now — and nothing else.

        :raises SeatError: when there is no such seat at this table.
        """
        if type(seat) is not int or not 0 <= seat < self.num_players:
            raise SeatError(repr(seat), self.num_players)
        return self._view(seat)

    def public_view(self) -> SeatView:
        """What a spectator may know: no hand but the public cards."""
        return self._view(None)

    def _view(self, seat: int | None) -> SeatView:
        """The view of ``seat`` (``None``: a spectator). Copies out only what it may see: its
        own hand and drawn card, and what is public."""
        deal = self._deal
        # Once the game is over its last deal is history too: a score sheet reads it there.
        finished = self.deals if self._phase == _OVER else self.deals[:-1]
        history = tuple(map(_summary, finished))
        n, sides = self.num_players, self.num_sides
        if deal is None:
            return SeatView(
                self.rules, seat, self.phase, tuple(self.scores), history, self.winner,
                -1, None, None, 0, (), CardSet(), (0,) * n, (), None, None, None,
                (), (None,) * sides, 0, None, (False,) * n, False,
                (), (), (), (0,) * sides, CardSet(), (frozenset(),) * n, None, (),
            )  # fmt: skip
        order = self.rules.bidding_order(deal.dealer)
        bids = tuple((order[i], BIDS[b - PASS]) for i, b in enumerate(deal.bids))
        tricks = tuple(
            (leader, tuple(map(CARDS.__getitem__, cards))) for leader, cards in self._trick_log
        )
        trick = tuple((s, CARDS[c]) for s, c in self.trick)
        exchange = deal.exchange
        to_move = self.to_move
        legal: tuple[Card | Bid, ...] = ()
        if seat is not None and to_move == seat:
            legal = tuple(map(named_action, self.legal_actions()))
        return SeatView(
            rules=self.rules,
            seat=seat,
            phase=self.phase,
            scores=tuple(self.scores),
            history=history,
            winner=self.winner,
            deal_number=self._deals_before + len(self.deals) - 1,
            deal_kind=deal.kind,
            dealer=deal.dealer,
            hand_size=deal.hand_size,
            seats_in_deal=deal.seats,
            hand=CardSet(self._hands[seat] if seat is not None else 0),
            hand_counts=tuple(hand.bit_count() for hand in self._hands),
            turned_up=tuple(CARDS[c] for c in deal.turned),
            trump=deal.trump,
            joker_shown=None if exchange is None else (exchange[0], CARDS[exchange[1]]),
            drawn=CARDS[exchange[2]] if exchange is not None and exchange[0] == seat else None,
            bids=bids,
            contracts=tuple(deal.contracts),
            board_level=deal.board_level,
            leader=deal.leader,
            free_trump_lead=tuple(self._free_lead),
            trumps_broken=self._broken,
            trick=trick,
            completed_tricks=tricks,
            trick_winners=tuple(deal.winners),
            tricks_won=tuple(deal.tricks),
            played=CardSet(mask_of(deal.play)),
            voids=voids(
                [*self._trick_log, (self._lead_seat, self._trick)]
                if self._trick
                else self._trick_log,
                deal.seats,
                self._tmask,
                n,
            ),
            to_move=to_move,
            legal_actions=legal,
        )

    def __repr__(self) -> str:
        deal = self._deal
        where = "no deal yet"
        if deal is not None:
            where = f"deal {len(self.deals)} ({deal.hand_size} cards)"
            if self._phase == _OVER:
                where = f"{len(self.deals)} deals of {len(self.rules.hand_sizes)}"
        state = self.phase.name.lower()
        if self.to_move is not None:
            state += f", seat {self.to_move} to move"
        scores = " / ".join(map(str, self.scores))
        end = ""
        if self._phase == _OVER:
            end = ", drawn" if self.winner is None else f", side {self.winner} won"
        return f"<Game {self.rules.name}, {where}, {state}, scores {scores}{end}>"

    def __str__(self) -> str:
        """The table as the engine knows it: every hand shown."""
        return render(self._view(None), dict(enumerate(self._hands)))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (and deep-copied) field by field, generator included: the lists a deal
        shares with the game stay shared (pickle keeps each object once)."""
        return (_rebuilt_game, (self.rules, tuple(getattr(self, name) for name in _GAME_FIELDS)))

    def copy(self, *, with_rng: bool = False) -> Game:
        """An independent copy, for search: past deals are shared, being final.

        The copy deals nothing by itself unless ``with_rng`` (which copies the generator's
        state, a cost search rarely wants): what a later deal holds is not known to search.
        """
        new = Game(self.rules)  # cheap without a generator: then every field is replaced
        for name in _GAME_FIELDS:
            setattr(new, name, getattr(self, name))
        new.rng = _copy_rng(self.rng) if with_rng and self.rng is not None else None
        new.scores = self.scores[:]
        new.deals = self.deals[:]
        if self._deal is not None:
            deal = self._deal.copy()
            new.deals[-1] = deal
            new._deal = deal
            new._tricks = deal.tricks
            new._play = deal.play
        new._hands = self._hands[:]
        new._free_lead = self._free_lead[:]
        new._trick = self._trick[:]
        new._trick_log = self._trick_log[:]

        return new


def _rebuilt_deal(values: tuple[Any, ...]) -> Deal:
    """The deal whose fields are ``values`` (see :meth:`Deal.__reduce__`)."""
    new = Deal(0, _NORMAL, 0, (), (), (), 0)
    for name, value in zip(_DEAL_FIELDS, values, strict=True):
        setattr(new, name, value)
    return new


def _rebuilt_game(rules: Ruleset, values: tuple[Any, ...]) -> Game:
    """The game whose fields are ``values`` (see :meth:`Game.__reduce__`)."""
    new = Game(rules)
    for name, value in zip(_GAME_FIELDS, values, strict=True):
        setattr(new, name, value)
    return new


_SUIT_NAMES = (N_("spades"), N_("hearts"), N_("diamonds"), N_("clubs"))


_DECK_ORDERS = math.factorial(NUM_CARDS)


@functools.cache
def _bid_lists(max_bid: str) -> tuple[tuple[int, ...], ...]:
    """The legal bids for each hand size (B1): pass, 1 to n − 1 (or n, or n but never above
    12), board."""
    lists = []
    for size in range(14):
        top = size - 1 if max_bid == "hand_minus_one" else size
        if max_bid == "hand_cap_12":
            top = min(top, 12)
        lists.append((PASS, *range(PASS + 1, PASS + top + 1), BOARD))
    return tuple(lists)


_BIT = tuple(1 << card for card in range(NUM_CARDS))
_NORMAL = DealKind.NORMAL


@functools.cache
def _rotations(
    seats: tuple[int, ...], num_players: int
) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """For the seats dealt in: each seat's next seat, and the playing order from each seat."""
    following = [(s + 1) % num_players for s in range(num_players)]
    order: list[tuple[int, ...]] = [()] * num_players
    for i, seat in enumerate(seats):
        following[seat] = next_seat(seat, seats)
        order[seat] = seats[i:] + seats[:i]
    return tuple(following), tuple(order)


def _shuffled_deck(rng: random.Random) -> list[int]:
    """A uniformly random order of the 54 cards (D3).

    Fisher–Yates driven by one uniform integer below 54!, read as mixed-radix digits: the
    same distribution as ``rng.shuffle`` at half the cost, which matters in simulations.
    """
    number = rng.randrange(_DECK_ORDERS)
    deck = list(range(NUM_CARDS))
    for i in range(NUM_CARDS - 1, 0, -1):
        number, j = divmod(number, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


RAINBOW: Final = 10  #: what one rainbow adds to its side's points (S5)
_STANDARD: Final = Ruleset.preset("standard")

#: P4's reach, as the solver's kernel takes it: no force, both Bloopers force everyone, the
#: Big Blooper forces the leader's opponents only.
NO_FORCE, FORCE_ALL, FORCE_OPPONENTS = 0, 1, 2


def blooper_mode(rules: Ruleset) -> int:
    """The ``blooper_forces`` option as one of NO_FORCE, FORCE_ALL, FORCE_OPPONENTS."""
    if rules.blooper_forces == "big_opponents":
        return FORCE_OPPONENTS
    return FORCE_ALL if rules.blooper_forces is True else NO_FORCE


def blooper_forces_seat(mode: int, led: int, same_side_as_leader: bool) -> bool:
    """Whether the Blooper ``led`` forces a player's trump (P4), by ``mode``."""
    if mode == FORCE_ALL:
        return led >= LITTLE_BLOOPER
    return mode == FORCE_OPPONENTS and led == BIG_BLOOPER and not same_side_as_leader


def board_multiple(rules: Ruleset, side_level: int, deal_level: int) -> int:
    """S3's *m* for a board side: the deal's board level (``board_multiplier`` true), two to
    the power of the side's own highest level (``"doubling"``), or 1."""
    if rules.board_multiplier == "doubling":
        return int(2**side_level)
    return deal_level if rules.board_multiplier is True else 1


def side_bids(
    rules: Ruleset, bids: Sequence[tuple[int, int]], side: int
) -> tuple[list[int], list[int]]:
    """``side``'s own bids among ``bids`` ((seat, action) in bidding order), and the levels
    of its board bids (B4: the k-th board bid of the deal is level k)."""
    own: list[int] = []
    levels: list[int] = []
    boards = 0
    for seat, action in bids:
        boards += action == BOARD
        if rules.side_of(seat) == side:
            own.append(action)
            if action == BOARD:
                levels.append(boards)
    return own, levels


def points_for_side(
    rules: Ruleset,
    hand_size: int,
    contract: int | str | None,
    taken: int,
    own_bids: Sequence[int],
    own_levels: Sequence[int],
    deal_level: int,
) -> int:
    """What a side scores for a deal, before rainbows (S5): its contract (B3), its bids and
    their board levels (B4), the deal's board level, and the tricks it took (S1–S3)."""
    multiple = 1
    if contract == "board":
        if (
            rules.board_multiplier == "doubling"
            and hand_size == 13
            and list(own_levels) == [1]
            and sorted(own_bids) == [PASS, BOARD]
        ):
            contract = "13"  # S3's exception: a lone B and a 0 on 13 cards counts as 13
        else:
            multiple = board_multiple(rules, max(own_levels, default=0), deal_level)
    return side_score(rules, contract, taken, hand_size, multiple)


def side_score(
    rules: Ruleset, contract: int | str | None, taken: int, hand_size: int, multiple: int = 1
) -> int:
    """What a side scores for a deal under ``rules``, before rainbows (S5): S1 with its
    ``contract_points``, S2 with its ``zero_contract``, S3 with ``multiple`` (*m*).

    >>> bab = Ruleset.preset("bab")
    >>> side_score(bab, "5", 6, 8), side_score(bab, None, 2, 6), side_score(bab, "board", 4, 4, 4)
    (51, 2, 160)
    """
    if contract is None:
        return taken if rules.zero_contract == "tricks" else 0  # S2
    if contract == "board":
        sign = 1 if taken == hand_size else -1
        return sign * 10 * hand_size * multiple  # S3
    bid = int(contract)
    points = rules.contract_points
    return points * bid + taken - bid if taken >= bid else -points * bid  # S1


def _has_rainbow(hand: int, trump: int | None) -> bool:
    """S5: a card of each suit, a joker counting as one of the trump suit (of none when
    there is no trump suit)."""
    if trump is not None and hand & JOKERS:
        hand |= SUIT_MASKS[trump]
    return all(hand & SUIT_MASKS[suit] for suit in range(4))


def deal_points(contract: int | str | None, taken: int, hand_size: int, level: int) -> int:
    """What a side scores for a deal under the ``standard`` scoring: S1 for a number, S2
    without a contract, S3 for board (``level`` is *m*: the board level, or 1 without
    ``board_multiplier``)."""
    return side_score(_STANDARD, contract, taken, hand_size, level)


def contract_made(contract: int | str | None, taken: int, hand_size: int) -> bool | None:
    """Whether a side's contract was made with ``taken`` tricks (every trick for board);
    ``None`` for a side with no contract, which cannot be set (S2)."""
    if contract is None:
        return None
    return taken == hand_size if contract == "board" else taken >= int(contract)


def legal_cards(
    hand: int, led: int, follow: int, trumps: int, may_lead_trump: bool, blooper_forces: bool
) -> int:
    """The cards of ``hand`` that may be played: the one statement of P2, P3 and P4.

    ``led`` is the card that led the trick (−1 when leading), ``follow`` the cards that follow
    it (its suit, or every trump), ``trumps`` every trump (0 without a trump suit),
    ``may_lead_trump`` whether P3 (a) or (c) lets this player lead one. The solver shares it.
    """
    if led < 0:
        if trumps and not may_lead_trump:
            return hand & ~trumps or hand  # P3 (b): nothing but trumps
        return hand
    if led >= LITTLE_BLOOPER and blooper_forces:
        held = hand & trumps
        if held:  # P4: highest trump after the Big Blooper, lowest after the Little
            return 1 << (held.bit_length() - 1) if led == BIG_BLOOPER else held & -held
        return hand
    return hand & follow or hand


def follow_mask(led: int, trumps: int) -> int:
    """The cards that follow ``led`` (P2): every trump when a trump (a Blooper included) was
    led, else the suit led (``trumps``: every trump of the deal, 0 for no trump)."""
    return trumps if trumps >> led & 1 else SUIT_MASKS[led // 13]


def winning_card(cards: int, follow: int, trumps: int) -> int:
    """The card that wins a trick holding ``cards`` (a mask) when ``follow`` follows its lead
    (P5): the highest trump, else the highest card of the suit led. Trumps and the suits are
    each in rank order within a mask (C3), so the highest is the highest bit."""
    return (cards & trumps or cards & follow).bit_length() - 1


def trick_winner(
    leader: int, cards: Sequence[int], seats: Sequence[int], trumps: int
) -> tuple[int, int]:
    """The seat winning a trick (so far) and its card: ``cards`` in the order played from
    ``leader``, among ``seats`` (the seats dealt in) and with ``trumps`` the deal's trumps."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    best = winning_card(mask, follow_mask(cards[0], trumps), trumps)
    seat = leader
    for card in cards:
        if card == best:
            break
        seat = next_seat(seat, seats)
    return seat, best


def voids(
    tricks: Iterable[tuple[int, Sequence[int]]], seats: Sequence[int], trumps: int, num_players: int
) -> tuple[frozenset[int], ...]:
    """Per seat, the suits it has shown it lacks by failing to follow (P2), public knowledge:
    suit indexes, and :data:`~backalley.view.TRUMPS` for a trump lead not followed.
    ``tricks`` are (leader, cards in order) of this deal, the one under way included."""
    found: list[set[int]] = [set() for _ in range(num_players)]
    for leader, cards in tricks:
        led = cards[0]
        follow = follow_mask(led, trumps)
        suit = TRUMPS if follow == trumps else suit_of(led)
        seat = leader
        for card in cards[1:]:
            seat = next_seat(seat, seats)
            if not follow >> card & 1:
                found[seat].add(suit)
    return tuple(frozenset(v) for v in found)


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
        tuple(deal.winners),
    )


def is_bid_text(text: str, bidding: bool = False) -> bool:
    """Whether ``text`` is spelt as a bid (B1) — else it is read as a card (C2). With
    ``bidding`` (bids are due), a text that is no card is read as a bid too, so that "14" or
    "board2" is refused as the bad bid it is, not as a card played too early."""
    try:
        parse_bid(text)
    except BidError:
        if not bidding:
            return False
        try:
            parse_card(text)
        except CardError:
            return True
        return False
    return True


def _tie_breaker(rules: Ruleset, seats: object) -> tuple[DealKind, tuple[int, ...]]:
    """The tie-breaker dealt to ``seats`` (E2, E3), as a game taken up before it holds it.

    :raises IllegalAction: E2 / E3 when the rules have none, or not for those seats.
    """
    rule = "E3" if rules.num_players == 3 else "E2"
    if not rules.tie_breaker:
        raise IllegalAction(rule, N_("these rules have no tie-breaker"))
    if (
        not isinstance(seats, (list, tuple))
        or not all(map(is_int, seats))
        or sorted(set(seats)) != list(seats)
        or not set(seats) <= set(range(rules.num_players))
        or len(seats) < (4 if rules.num_players == 4 else 2)
    ):
        raise IllegalAction(
            rule,
            N_("a tie-breaker is dealt to the tied seats, in order, not {seats}"),
            seats=repr(seats),
        )
    tied = tuple(int(seat) for seat in seats)
    if rules.num_players == 4:
        return DealKind.TIE_BREAKER, tied
    return (DealKind.TIE_BREAKER_THREE if len(tied) == 3 else DealKind.TIE_BREAKER_TWO), tied


def _copy_rng(rng: random.Random) -> random.Random:
    new = random.Random()
    new.setstate(rng.getstate())
    return new


def _card(card: int | str) -> int:
    if isinstance(card, str):
        return parse_card(card)
    if not isinstance(card, bool) and isinstance(card, int) and 0 <= card < NUM_CARDS:
        return int(card)
    raise CardError(repr(card))


assert FULL_DECK >> NUM_CARDS == 0 and JOKERS >> LITTLE_BLOOPER == 3 and len(SUITS) == 4
