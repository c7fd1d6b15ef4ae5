"""Analysis for players: a double-dummy review of played deals, hints, and claims.

- :func:`review` goes through a game (or a record), deal by deal and card by card, and gives
  the double-dummy value of every legal card at the moment each card was played: the tricks
  the player's side takes from that trick on, best play by all, as ``backalley solve``
  counts them. The card chosen *cost* the difference to the best card; a card that cost a
  trick or more is a mistake. With ``bids=True`` it also asks the ``expert`` bot, from each
  bidder's own view, what it would have bid and why.
- :func:`hint` is what the ``expert`` bot would do now from one seat's view: it reads that
  view only, never another hand.
- :func:`claim` settles a claim: does the side of the player on turn take every remaining
  trick against any defence? The check is double dummy (every hand known), so it belongs to
  whoever holds the game — a server, not the player. A claim that holds is played out along
  the solver's line, so the game's record keeps every card and still verifies.

The review counts tricks, not points: a card that gives away a trick may cost a contract or
nothing at all, and the reader judges that. Tie-breaker deals (E2, E3) are not reviewed:
their play stops at seven tricks, which a count of tricks to the end does not measure.
Nothing here does I/O; :mod:`backalley.cli` prints and writes.

Seat 2 leads the 4C where the QH would have made both tricks for its side:

>>> from backalley.rules import Ruleset
>>> game = Game(Ruleset.preset("standard", hand_sizes=[2]), seed=4)
>>> for action in "1 pass pass pass 4C JC AH 5C 5H 7H 8D QH".split():
...     game.apply(action)
>>> deal = review(game).deals[0]
>>> lead = deal.cards[0]
>>> lead.seat, lead.card, lead.values, lead.cost, lead.better
(2, Card('4C'), {Card('QH'): 2, Card('4C'): 1}, 1, (Card('QH'),))
>>> deal.double_dummy, deal.taken, deal.given_away(2)
((2, 0), (1, 1), 1)
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from backalley.bots import LEVELS, needs_solver
from backalley.cards import CARDS, N_, SUITS, BackAlleyError, Card, mask_cards
from backalley.engine import Deal, Game, Phase
from backalley.record import Record, read_record, replay
from backalley.rules import Bid, DealKind, Ruleset, named_action
from backalley.solver import Position, card_values, tricks

#: The levels whose bots can say why they chose: they solve sampled deals.
ADVISERS = tuple(level for level in LEVELS if needs_solver(level))


class AnalysisError(BackAlleyError):
    """An analysis asked at a moment it does not fit: a hint or claim off turn, a claim with
    no card due, an adviser that cannot give its reasons."""

    def __init__(self, template: str, **params: Any) -> None:
        super().__init__(None, template, **params)


# ---------------------------------------------------------------------------- the review


@dataclass(frozen=True)
class CardReview:
    """One card as played, against every card its player could have played then."""

    index: int  #: its place in the deal's play, from 0
    trick: int  #: the trick it belongs to, from 0
    seat: int
    card: Card
    values: dict[Card, int]  #: each legal card: tricks for the seat's side from this trick on

    @property
    def best(self) -> int:
        """The value of the best card."""
        return max(self.values.values())

    @property
    def cost(self) -> int:
        """Tricks the side gave away with this card, against the best one."""
        return self.best - self.values[self.card]

    @property
    def mistake(self) -> bool:
        """It cost a trick or more."""
        return self.cost > 0

    @property
    def better(self) -> tuple[Card, ...]:
        """The cards that would have kept every trick (none when this card did)."""
        if not self.mistake:
            return ()
        return tuple(card for card, value in self.values.items() if value == self.best)


@dataclass(frozen=True)
class BidReview:
    """One bid as made, and what the adviser bot would have bid from the same view."""

    index: int  #: its place in the deal's bids, from 0
    seat: int
    bid: Bid
    advice: Bid  #: what the adviser would have bid
    expected: dict[Bid, float]  #: each bid it weighed: mean points for the side (S1–S3)
    tricks: tuple[int, ...]  #: the side's tricks in each deal it solved
    fell_back: bool  #: it could solve no deal in budget and bid as the heuristic player

    @property
    def distribution(self) -> dict[int, int]:
        """How many solved deals gave the side each number of tricks."""
        return dict(sorted(Counter(self.tricks).items()))


@dataclass(frozen=True)
class DealReview:
    """The review of one deal: every card reviewed, the double-dummy result at the first
    lead against the tricks taken, and (on request) every bid."""

    deal: int  #: index in the game's deals, thrown-in deals and tie-breakers included
    dealer: int
    hand_size: int
    trump: int | None
    kind: DealKind
    thrown_in: str | None
    contracts: tuple[int | str | None, ...]
    taken: tuple[int, ...]  #: tricks per side so far
    complete: bool  #: every card of the deal was played
    double_dummy: tuple[int, ...] | None  #: per side, at the first lead (None if not played)
    cards: tuple[CardReview, ...]
    bids: tuple[BidReview, ...] = ()
    lone_joker: int | None = None  #: the deal's only trump under D8
    winners: tuple[int, ...] = ()  #: the seat that won each completed trick (P5)

    @property
    def reviewed(self) -> bool:
        """Whether its cards were reviewed (not a throw-in, not a tie-breaker)."""
        return _reviewable(self)

    def given_away(self, seat: int) -> int:
        """Tricks ``seat``'s cards gave away in this deal."""
        return sum(c.cost for c in self.cards if c.seat == seat)

    def mistakes(self, seat: int) -> int:
        """Cards of ``seat`` that cost a trick or more."""
        return sum(1 for c in self.cards if c.seat == seat and c.mistake)


@dataclass(frozen=True)
class Review:
    """A game's review: every deal's, and each player's totals."""

    rules: Ruleset
    players: tuple[str, ...] | None
    deals: tuple[DealReview, ...]
    scores: tuple[int, ...]
    winner: int | None
    finished: bool

    def cards(self, seat: int) -> int:
        """Cards of ``seat`` reviewed."""
        return sum(1 for d in self.deals for c in d.cards if c.seat == seat)

    def given_away(self, seat: int) -> int:
        """Tricks ``seat``'s cards gave away over the game."""
        return sum(d.given_away(seat) for d in self.deals)

    def mistakes(self, seat: int) -> int:
        """Cards of ``seat`` that cost a trick or more, over the game."""
        return sum(d.mistakes(seat) for d in self.deals)

    def to_json(self) -> dict[str, Any]:
        """The review as one JSON-ready object (its fields: docs/analysis.md)."""
        return _review_json(self)


Progress = Callable[[int, int], None]


def review(
    source: Game | Record | str | bytes | dict[str, Any],
    *,
    bids: bool = False,
    seed: int = 0,
    adviser: str = "expert",
    on_step: Progress | None = None,
    only: int | None = None,
) -> Review:
    """Review every card played in ``source`` (a game, or a ``backalley/1`` record), and with
    ``bids`` every bid, asking ``adviser`` (a level of :data:`ADVISERS`) from each bidder's
    view; the same ``seed`` gives the same advice. A partial game is reviewed up to its last
    card. ``on_step(done, total)`` is called after each card or bid reviewed. ``only``
    limits the review to the deal of that index (the others are listed, not reviewed).

    :raises RecordError: for a document that is no record.
    :raises ReplayError: for a record with an illegal action.
    """
    game, players = _read(source)
    reviewed = [(only is None or i == only) and _reviewable(d) for i, d in enumerate(game.deals)]
    total = sum(
        len(d.play) + (len(d.bids) if bids else 0) for i, d in enumerate(game.deals) if reviewed[i]
    )
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if on_step is not None:
            on_step(done, total)

    advise = _adviser(adviser) if bids else None
    replayed = Game(game.rules)
    deals = []
    for number, deal in enumerate(game.deals):
        replayed.start_deal(deal.dealer, [mask_cards(h) for h in deal.hands], list(deal.stock))
        deals.append(_review_deal(replayed, number, deal, advise, seed, step, reviewed[number]))
    return Review(
        game.rules,
        players,
        tuple(deals),
        tuple(game.scores),
        game.winner,
        game.is_over,
    )


def _review_deal(
    game: Game,
    number: int,
    deal: Deal,
    advise: Callable[[Game, random.Random], Any] | None,
    seed: int,
    step: Callable[[], None],
    reviewed: bool,
) -> DealReview:
    """Replay ``deal`` into ``game`` (dealt already), reviewing each bid and card before it
    is made if ``reviewed``."""
    bid_reviews = []
    for index, action in enumerate(deal.bids):
        if advise is not None and reviewed:
            seat = game.to_move
            assert seat is not None
            decision = advise(game, random.Random((seed * 1009 + number) * 101 + index))
            bid_reviews.append(
                BidReview(
                    index,
                    seat,
                    _named_bid(action),
                    _named_bid(decision.action),
                    {_named_bid(a): v for a, v in decision.expected.items()},
                    decision.tricks,
                    decision.fell_back,
                )
            )
            step()
        game.apply(action)
    cards: list[CardReview] = []
    double_dummy = None
    current = game.current_deal
    for index, card in enumerate(deal.play):
        if reviewed:
            position = Position.from_game(game)
            values = card_values(position)
            if index == 0:
                double_dummy = _at_first_lead(game, position, max(values.values()))
            seat = game.to_move
            assert seat is not None
            named = {CARDS[c]: v for c, v in sorted(values.items())}
            cards.append(CardReview(index, index // len(deal.seats), seat, CARDS[card], named))
            step()
        game.apply(card)
    assert current is not None
    return DealReview(
        number,
        current.dealer,
        current.hand_size,
        current.trump,
        current.kind,
        current.thrown_in,
        tuple(current.contracts),
        tuple(current.tricks),
        len(current.play) == current.hand_size * len(current.seats),
        double_dummy,
        tuple(cards),
        tuple(bid_reviews),
        lone_joker=current.lone_joker,
        winners=tuple(current.winners),
    )


def _at_first_lead(game: Game, position: Position, leaders: int) -> tuple[int, ...]:
    """Each side's double-dummy tricks at the first lead: ``leaders`` for the leader's side;
    with two sides the other has the rest; with three, each is solved on its own (the two
    others defending together)."""
    rules = game.rules
    leader_side = rules.side_of(position.to_move)
    if rules.num_sides == 2:
        return tuple(
            leaders if side == leader_side else position.tricks_left - leaders for side in range(2)
        )
    return tuple(
        leaders if side == leader_side else tricks(position, side=side)
        for side in range(rules.num_sides)
    )


def _reviewable(deal: Deal | DealReview) -> bool:
    return deal.thrown_in is None and deal.kind == DealKind.NORMAL


def _named_bid(action: int) -> Bid:
    return cast(Bid, named_action(action))


def _read(
    source: Game | Record | str | bytes | dict[str, Any],
) -> tuple[Game, tuple[str, ...] | None]:
    """The game to review, and its players' names when a record gives them."""
    if isinstance(source, Game):
        return source, None
    record = source if isinstance(source, Record) else read_record(source)
    return replay(record), None if record.players is None else tuple(record.players)


# ---------------------------------------------------------------------------- advice


@dataclass(frozen=True)
class Hint:
    """What the adviser bot would do now, and the expected score of each candidate (see
    :class:`backalley.bots.pimc.Decision`: points for a bid; for a card, the side's points
    at the end of the deal less the other side's)."""

    seat: int
    action: Card | Bid
    expected: dict[Card | Bid, float]
    tricks: tuple[int, ...]  #: the side's tricks in each deal the adviser solved
    fell_back: bool = False

    @property
    def samples(self) -> int:
        """Deals the adviser solved."""
        return len(self.tricks)


def hint(game: Game, seat: int, *, adviser: str = "expert", seed: int = 0) -> Hint:
    """What ``adviser`` (a level of :data:`ADVISERS`) would do now for ``seat``, from that
    seat's view alone. Repeatable: the adviser keeps to its sample and node budgets, not to
    the clock, and ``seed`` fixes its samples.

    :raises AnalysisError: when ``seat`` is not to move, or ``adviser`` gives no reasons.
    """
    if game.to_move != seat:
        raise AnalysisError(N_("seat {seat} is not to move: no hint"), seat=seat)
    decision = _adviser(adviser)(game, random.Random(seed))
    return Hint(
        seat,
        named_action(decision.action),
        {named_action(a): v for a, v in decision.expected.items()},
        decision.tricks,
        decision.fell_back,
    )


def _adviser(level: str) -> Callable[[Game, random.Random], Any]:
    """A function that asks the bot of ``level``, repeatable, for its decision from the view
    of the seat to move (it is given that view, never the game)."""
    from backalley.bots import make_bot
    from backalley.bots.pimc import PimcBot

    if level not in ADVISERS:
        raise AnalysisError(
            N_("{level} cannot advise: choose one of {levels}"),
            level=repr(level),
            levels=", ".join(ADVISERS),
        )
    bot = make_bot(level, repeatable=True)
    assert isinstance(bot, PimcBot)

    def ask(game: Game, rng: random.Random) -> Any:
        seat = game.to_move
        assert seat is not None
        return bot.decide(game.view(seat), rng)

    return ask


# ---------------------------------------------------------------------------- claims


@dataclass(frozen=True)
class Claim:
    """A claim settled: whether the side takes every remaining trick and, if so, the cards
    that completed the deal."""

    seat: int
    accepted: bool
    tricks_left: int  #: tricks still to win when the claim was made, the current included
    played: tuple[Card, ...] = field(default=())


def claim_holds(game: Game) -> bool:
    """Whether the side of the player on turn takes every remaining trick, whatever the
    defence (double dummy). Reads every hand: for the holder of the game only.

    :raises AnalysisError: when no card is due.
    """
    position = _claim_position(game)
    return _holds(position, game.rules.side_of(position.to_move))


def claim(game: Game, seat: int) -> Claim:
    """Settle ``seat``'s claim to every remaining trick of the deal. If it holds, play the
    deal out along the solver's line — the claiming side keeps every trick, the defence plays
    its lowest cards — so the record keeps every card; if not, change nothing.

    :raises AnalysisError: when ``seat`` is not to play a card.
    """
    position = _claim_position(game)
    if position.to_move != seat:
        raise AnalysisError(
            N_("seat {seat} is not to play: only the player on turn may claim"), seat=seat
        )
    left = position.tricks_left
    side = game.rules.side_of(seat)
    if not _holds(position, side):
        return Claim(seat, False, left)
    deal = game.current_deal
    played = []
    while game.phase == Phase.PLAY and game.current_deal is deal:
        values = card_values(Position.from_game(game))
        mover = game.to_move
        assert mover is not None
        ours = game.rules.side_of(mover) == side
        target = max(values.values()) if ours else min(values.values())
        card = min(c for c, v in values.items() if v == target)
        played.append(CARDS[card])
        game.apply(card)
    return Claim(seat, True, left, tuple(played))


def _holds(position: Position, side: int) -> bool:
    """Whether ``side`` takes every remaining trick from ``position``, whatever the defence."""
    return tricks(position, side=side) == position.tricks_left


def _claim_position(game: Game) -> Position:
    if game.phase != Phase.PLAY:
        raise AnalysisError(N_("there is no card to play: nothing to claim"))
    return Position.from_game(game)


# ---------------------------------------------------------------------------- JSON


def _review_json(result: Review) -> dict[str, Any]:
    rules = result.rules
    seats = range(rules.num_players)
    return {
        "format": "backalley-review/1",
        "rules": rules.name,
        "options": rules.changed_options(),
        "players": None if result.players is None else list(result.players),
        "scores": list(result.scores),
        "finished": result.finished,
        "winner": result.winner,
        "summary": [
            {
                "seat": seat,
                "cards": result.cards(seat),
                "mistakes": result.mistakes(seat),
                "given_away": result.given_away(seat),
            }
            for seat in seats
        ],
        "deals": [_deal_json(deal, rules) for deal in result.deals],
    }


def _deal_json(deal: DealReview, rules: Ruleset) -> dict[str, Any]:
    return {
        "deal": deal.deal,
        "dealer": deal.dealer,
        "hand_size": deal.hand_size,
        "trump": None if deal.trump is None else SUITS[deal.trump],
        "tie_breaker": deal.kind != DealKind.NORMAL,
        "thrown_in": deal.thrown_in,
        "reviewed": deal.reviewed,
        "contracts": list(deal.contracts),
        "taken": list(deal.taken),
        "complete": deal.complete,
        "double_dummy": None if deal.double_dummy is None else list(deal.double_dummy),
        "given_away": [deal.given_away(s) for s in range(rules.num_players)],
        "mistakes": [deal.mistakes(s) for s in range(rules.num_players)],
        "cards": [
            {
                "index": c.index,
                "trick": c.trick,
                "seat": c.seat,
                "card": str(c.card),
                "values": {str(card): value for card, value in c.values.items()},
                "best": c.best,
                "cost": c.cost,
                "better": [str(card) for card in c.better],
            }
            for c in deal.cards
        ],
        "bids": [
            {
                "index": b.index,
                "seat": b.seat,
                "bid": str(b.bid),
                "advice": str(b.advice),
                "expected": {str(bid): round(v, 3) for bid, v in b.expected.items()},
                "tricks": {str(k): v for k, v in b.distribution.items()},
                "fell_back": b.fell_back,
            }
            for b in deal.bids
        ],
    }


__all__ = [
    "ADVISERS",
    "AnalysisError",
    "BidReview",
    "CardReview",
    "Claim",
    "DealReview",
    "Hint",
    "Review",
    "claim",
    "claim_holds",
    "hint",
    "review",
]
