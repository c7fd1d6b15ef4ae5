"""A seat's view built from what that seat knows, for programs that play outside the engine.

Inside the engine a bot's view comes from :meth:`Game.view <backalley.engine.Game.view>`. A
program that plays somewhere else — another site, a tournament harness, a study of one
position — knows what its seat knows: the rules, where the game stands at this deal, its own
hand, the turn-up, the bids and the cards played. :class:`Knowledge` holds that, and
:meth:`Knowledge.view` builds from it the very :class:`~backalley.view.SeatView` the engine
would give that seat, every derived field (voids, contracts, board level, the leader, free
trump leads, tricks won) and the legal actions included, without replaying earlier deals:
what the rules carry from deal to deal (the counted deal due, the scores, D7's run of
all-pass throw-ins, a tie-breaker) is given instead.

How, and why it is exact: the engine itself is dealt one deal that fits the knowledge —
the other seats hold the cards they played and unseen cards that keep every one of their plays
legal (a suit not followed is not held, P2; a trump led before trumps were broken means
nothing but trumps, P3; an answer to a Blooper bounds the trumps, P4), every hand holding an
honour or a trump where a renig would otherwise have thrown the deal in (D6) — and the bids and
cards are applied to it. So every field and every refusal is the engine's own, and the cards
it was dealt for the other seats never leave: the view shows only this seat's hand.

What contradicts itself within the deal is refused with the rule it breaks: a card seen twice
(D3), a hand of the wrong size (D2), a bid or a card the rules refuse (B1, P2–P6, the
engine's message), a deal that no cards fit (the voids shown leave a seat nothing to hold: P2;
no honour and no trump: D6). What is carried from earlier deals is checked for type and range
only (:meth:`Game.taken_up <backalley.engine.Game.taken_up>`).

Such a view has no record: a ``backalley/1`` record starts at a game's start, and this game
starts at a deal whose past is only summed up. Its ``history`` is empty (but for this very
deal, once the knowledge has ended the game).

>>> from backalley.rules import Ruleset
>>> known = Knowledge(
...     Ruleset.preset("standard", hand_sizes=[3]), seat=2, dealer=1,
...     hand=CardSet("9S 9H LJ"), turn_up=(Card("2S"),),
...     bids=("pass", "1", "board", "2"), plays=(Card("QS"), Card("KS")),
... )
>>> view = known.view()
>>> view.leader, view.contracts, view.to_move, view.legal_actions
(0, ('board', '3'), 2, (Card('9S'), Card('LJ')))
>>> view
<SeatView seat 2, deal 1 (3 cards), trump ♠, play: seat 2 to move, hand 9S 9H LJ, trick QS KS>
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from backalley.cards import (
    FULL_DECK,
    HONOURS,
    LITTLE_BLOOPER,
    N_,
    NUM_CARDS,
    Card,
    CardError,
    CardSet,
    card_name,
    mask_cards,
    mask_of,
    parse_card,
    suit_of,
    trump_mask,
)
from backalley.engine import (
    DealKind,
    Game,
    IllegalAction,
    Phase,
    SeatError,
    blooper_forces_seat,
    blooper_mode,
    follow_mask,
    legal_cards,
    trick_winner,
)
from backalley.rules import Ruleset, ThrownIn, is_int, next_seat
from backalley.view import SeatView

__all__ = ["Knowledge"]


@dataclass(frozen=True)
class Knowledge:
    """What one seat knows at a moment of a deal, and so the view that seat would have.

    ``bids`` are in the order bid, from the dealer's left (B1), spelt as a record spells them
    (``"pass"``, ``"2"``, ``"board"``; under ``bab`` also ``"B"``, ``"2B"`` …); ``plays`` are
    this deal's cards in the order played; ``hand`` is what the seat holds now. ``deal``,
    ``scores``, ``passes``, ``tie_breaker`` and ``deals_before`` are carried from earlier
    deals, as :meth:`Game.taken_up <backalley.engine.Game.taken_up>` takes them.
    ``joker_shown`` is a joker shown and discarded under D4, with the seat that showed it,
    and ``drawn`` the card this seat drew for it (only the seat that showed one knows it).
    """

    rules: Ruleset
    seat: int
    dealer: int
    hand: CardSet
    turn_up: tuple[Card, ...]
    bids: tuple[str, ...] = ()
    plays: tuple[Card, ...] = ()
    deal: int = 0
    scores: tuple[int, ...] | None = None
    passes: int = 0
    tie_breaker: tuple[int, ...] | None = None
    joker_shown: tuple[int, Card] | None = None
    drawn: Card | None = None
    deals_before: int | None = None

    def __post_init__(self) -> None:
        # Cards and bids may be given as they are written (C2, B1): kept as the engine's.
        set_ = object.__setattr__
        if not isinstance(self.hand, int):  # written out: a card twice is no hand (D3)
            _refuse_repeats(
                self.hand.split() if isinstance(self.hand, str) else list(self.hand), "the hand"
            )
        set_(self, "hand", CardSet(self.hand))
        set_(self, "turn_up", tuple(Card(card) for card in self.turn_up))
        set_(self, "plays", tuple(Card(card) for card in self.plays))
        set_(self, "bids", tuple(str(bid) for bid in self.bids))
        if self.joker_shown is not None:
            set_(self, "joker_shown", (self.joker_shown[0], Card(self.joker_shown[1])))
        if self.drawn is not None:
            set_(self, "drawn", Card(self.drawn))

    def view(self) -> SeatView:
        """The seat's view, as the engine would give it (see the module's docstring).

        :raises IllegalAction: what contradicts itself, with the rule it breaks.
        :raises SeatError: for a seat that is not at the table (C4).
        """
        return _view_of(self)

    def taken_up(self) -> Game:
        """The game at this deal, before it is dealt: the rules and everything the game
        carries from earlier deals (scores, D7's run of passes, a tie-breaker's seats), for
        a caller that deals it itself (:meth:`Game.start_deal`)."""
        return _taken_up(self)

    @classmethod
    def of(cls, view: SeatView) -> Knowledge:
        """What ``view`` says its seat knows: the inverse of :meth:`view`, for a view of a
        game played from its start (one whose ``history`` holds every earlier deal)."""
        if view.seat is None or view.dealer is None or view.phase not in (Phase.BID, Phase.PLAY):
            raise ValueError(
                "a seat's view of a deal under way (bids or cards due) is needed, not a "
                "spectator's, nor one between deals or after the game"
            )
        counted = sum(1 for deal in view.history if deal.thrown_in is None)
        passes = 0
        for deal in reversed(view.history):
            if deal.thrown_in != ThrownIn.ALL_PASS:
                break
            passes += 1
        tie = None if view.deal_kind == DealKind.NORMAL else view.seats_in_deal
        own = view.rules.bidding_order(view.dealer)
        spelt = tuple(str(bid) for _, bid in view.bids)
        if view.bids and any(s != o for (s, _), o in zip(view.bids, own, strict=False)):
            raise ValueError("the view's bids are not in bidding order")
        plays = tuple(card for _, cards in view.completed_tricks for card in cards)
        return cls(
            rules=view.rules,
            seat=view.seat,
            dealer=view.dealer,
            hand=view.hand,
            turn_up=view.turned_up,
            bids=spelt,
            plays=plays + tuple(card for _, card in view.trick),
            deal=counted if tie is None else 0,
            scores=view.scores,
            passes=passes,
            tie_breaker=tie,
            joker_shown=view.joker_shown,
            drawn=view.drawn,
            deals_before=view.deal_number,
        )

    # ------------------------------------------------------------------ as JSON

    def to_json(self) -> dict[str, Any]:
        """This knowledge as a JSON object in the project's notation (docs/bots.md)."""
        message: dict[str, Any] = {"rules": self.rules.name}
        options = self.rules.changed_options()
        if options:
            message["options"] = options
        message |= {
            "seat": self.seat,
            "dealer": self.dealer,
            "deal": self.deal,
            "scores": list(self.scores) if self.scores is not None else None,
            "passes": self.passes,
            "hand": [str(card) for card in self.hand],
            "turn_up": [str(card) for card in self.turn_up],
            "bids": list(self.bids),
            "plays": [str(card) for card in self.plays],
        }
        if self.tie_breaker is not None:
            message["tie_breaker"] = list(self.tie_breaker)
        if self.joker_shown is not None:
            message["joker_shown"] = [self.joker_shown[0], str(self.joker_shown[1])]
        if self.drawn is not None:
            message["drawn"] = str(self.drawn)
        if self.deals_before is not None:
            message["deals_before"] = self.deals_before
        return {k: v for k, v in message.items() if v is not None}

    @classmethod
    def from_json(cls, message: Mapping[str, Any], rules: Ruleset | None = None) -> Knowledge:
        """Knowledge from a JSON object (docs/bots.md); ``rules`` when it names none.

        ``hand_size`` may stand for ``deal``: the first counted deal of that size.

        :raises ValueError: a field missing or of the wrong kind (a :class:`BackAlleyError
            <backalley.cards.BackAlleyError>` with the rule, for a card, a bid or a rule
            set).
        """
        base = rules if rules is not None else Ruleset.preset("standard")
        options = message.get("options") or {}
        if not isinstance(options, Mapping):
            raise ValueError('"options" must be an object')
        if "rules" in message:  # a preset of its own, with its options
            rules = Ruleset.preset(str(message["rules"]), **options)
        else:  # the asker's rules, with these options changed
            rules = base.with_options(options)
        deal = message.get("deal", 0)
        if "hand_size" in message:
            deal = _deal_of_size(rules, message["hand_size"])
        shown = message.get("joker_shown")
        if shown is not None:
            if not isinstance(shown, Sequence) or isinstance(shown, str) or len(shown) != 2:
                raise ValueError('"joker_shown" is [seat, joker], like [1, "BJ"]')
            shown = (_field_int(shown[0], "joker_shown"), Card(shown[1]))
        drawn = message.get("drawn")
        tie = message.get("tie_breaker")
        scores = message.get("scores")
        return cls(
            rules=rules,
            seat=_field_int(_required(message, "seat"), "seat"),
            dealer=_field_int(_required(message, "dealer"), "dealer"),
            hand=_card_list(message.get("hand", []), "hand"),  # type: ignore[arg-type]
            turn_up=tuple(map(Card, _card_list(_required(message, "turn_up"), "turn_up"))),
            bids=tuple(_strings(message.get("bids", []), "bids")),
            plays=tuple(map(Card, _card_list(message.get("plays", []), "plays"))),
            deal=deal,
            scores=None if scores is None else tuple(_ints(scores, "scores")),
            passes=message.get("passes", 0),
            tie_breaker=None if tie is None else tuple(_ints(tie, "tie_breaker")),
            joker_shown=shown,
            drawn=None if drawn is None else Card(drawn),
            deals_before=message.get("deals_before"),
        )


# ---------------------------------------------------------------------- building the view


def _view_of(known: Knowledge) -> SeatView:
    rules = known.rules
    game = _taken_up(known)
    _, size, seats = game.next_deal()
    seat, dealer = known.seat, known.dealer
    if not is_int(seat) or not 0 <= seat < rules.num_players:
        raise SeatError(repr(seat), rules.num_players)
    if not is_int(dealer) or not 0 <= dealer < rules.num_players:
        raise IllegalAction("D1", N_("there is no seat {dealer} to deal"), dealer=repr(dealer))
    _refuse_cards_seen_twice(known)
    turned = _checked_turn_up(known, size, len(seats))
    exchange = _checked_exchange(known, turned, seats)
    held = int(known.hand)
    if seat not in seats and held:
        raise IllegalAction(
            "D2", N_("seat {seat} sits out this deal and holds no cards"), seat=seat
        )
    if exchange is not None and exchange[0] == seat:
        held |= 1 << exchange[2]
        if exchange[2] not in known.plays and not known.hand >> exchange[2] & 1:
            raise _not_drawn(exchange[2], seat)
        if bin(held).count("1") > size:
            raise _wrong_size(seat, size, int(known.hand), 0)
    trumps = _trumps(rules, turned)
    if bin(held).count("1") > size:
        raise _wrong_size(seat, size, held, 0)

    # Stage 1: any deal that fits the hand, to learn from the bids who leads and who may lead
    # trump; the plays' cards are not placed yet.
    first = _dealt(known, size, seats, turned, trumps, exchange, {seat: held}, {}, {})
    _apply_bids(first, known.bids)
    owners = _owners(first, known.plays, seats, trumps)

    # Stage 2: the deal that fits everything: each seat holds the cards it played, this seat
    # its hand too, the others unseen cards that keep each of their plays legal.
    fixed: dict[int, int] = {s: 0 for s in seats}
    for card, owner in zip(known.plays, owners, strict=True):
        fixed[owner] |= 1 << card
    own = fixed.get(seat, 0) | int(known.hand)
    if exchange is not None and exchange[0] == seat and not own >> exchange[2] & 1:
        raise _not_drawn(exchange[2], seat)
    if seat in seats and bin(own).count("1") != size:
        raise _wrong_size(seat, size, int(known.hand), bin(fixed[seat]).count("1"))
    fixed[seat] = own
    allowed, reasons = _allowed(first, known.plays, owners, seat, seats, trumps)
    game = _dealt(known, size, seats, turned, trumps, exchange, fixed, allowed, reasons)
    _apply_bids(game, known.bids)
    for number, card in enumerate(known.plays, 1):
        try:
            game.play(int(card))
        except IllegalAction as error:
            where = N_("card {number} played ({card}, seat {seat})")
            seat_of = owners[number - 1]
            raise _at(error, where, number=number, card=card_name(card), seat=seat_of) from None
    return game.view(seat)


def _taken_up(known: Knowledge) -> Game:
    """The game at the knowledge's deal, with what it carries from earlier ones."""
    return Game.taken_up(
        known.rules,
        deal=known.deal,
        scores=list(known.scores) if known.scores is not None else None,
        passes=known.passes,
        tie_breaker=list(known.tie_breaker) if known.tie_breaker is not None else None,
        deals_before=known.deals_before,
    )


def _seen_twice(card: int, first: str, second: str) -> IllegalAction:
    """D3: each of the 54 cards is in one place only."""
    return IllegalAction(
        "D3", N_("{card} is seen twice: in {first} and in {second}"),
        card=card_name(card), first=first, second=second,
    )  # fmt: skip


def _refuse_cards_seen_twice(known: Knowledge) -> None:
    """D3: each of the 54 cards is in one place only."""
    where: dict[int, str] = {}
    places: list[tuple[str, Sequence[int]]] = [
        ("the hand", list(mask_cards(int(known.hand)))),
        ("the turn-up", [int(c) for c in known.turn_up]),
        ("the cards played", [int(c) for c in known.plays]),
    ]
    if known.joker_shown is not None:
        places.append(("the joker shown", [int(known.joker_shown[1])]))
    for place, cards in places:
        for card in cards:
            if card in where:
                raise _seen_twice(card, where[card], place)
            where[card] = place


def _checked_turn_up(known: Knowledge, size: int, dealt_in: int) -> tuple[int, ...]:
    """The cards turned up, as the rules turn them: one (D3, D4, D8), or jokers set aside and
    then a card that is not one (D5)."""
    turned = tuple(int(card) for card in known.turn_up)
    if known.rules.joker_turnup != "turn_again":
        if len(turned) != 1:
            raise IllegalAction(
                "D3", N_("one card is turned up under these rules, not {count}"),
                count=len(turned),
            )  # fmt: skip
        return turned
    stock = NUM_CARDS - size * dealt_in
    if len(turned) > stock:
        raise IllegalAction(
            "D5", N_("{count} cards turned up, but the stock holds {stock}"),
            count=len(turned), stock=stock,
        )  # fmt: skip
    jokers_only = len(turned) == stock and all(card >= LITTLE_BLOOPER for card in turned)
    jokers_first = all(card >= LITTLE_BLOOPER for card in turned[:-1])
    if not turned or not (jokers_only or (jokers_first and turned[-1] < LITTLE_BLOOPER)):
        raise IllegalAction(
            "D5",
            N_("a joker turned up is set aside and the next card turned: give every card "
               "turned up, the jokers first and then the one that is not a joker"),
        )  # fmt: skip
    return turned


def _checked_exchange(
    known: Knowledge, turned: tuple[int, ...], seats: tuple[int, ...]
) -> tuple[int, int, int] | None:
    """D4's exchange as (seat, joker shown, card drawn), the card drawn ``-1`` when another
    seat drew it (unknown here); ``None`` when there was none."""
    rules = known.rules
    joker_up = rules.joker_turnup == "no_trump" and turned[0] >= LITTLE_BLOOPER
    other = turned[0] ^ 1 if joker_up else -1  # the two jokers are 52 and 53
    if known.joker_shown is None:
        if known.drawn is not None:
            raise IllegalAction("D4", N_("a card is drawn only for a joker shown"))
        if joker_up and (int(known.hand) >> other & 1 or other in known.plays):
            raise IllegalAction(
                "D4",
                N_("with a joker turned up, {joker} would have been shown and discarded"),
                joker=card_name(other),
            )
        return None
    shower, joker = known.joker_shown
    if not joker_up or int(joker) != other:
        raise IllegalAction(
            "D4", N_("a joker is shown only when the other one is turned up (no trump)")
        )
    if not is_int(shower) or shower not in seats:
        raise IllegalAction("D4", N_("there is no seat {seat} to show a joker"), seat=repr(shower))
    if shower == known.seat and known.drawn is None:
        raise IllegalAction("D4", N_("the seat that showed the joker says which card it drew"))
    if shower != known.seat and known.drawn is not None:
        raise IllegalAction("D4", N_("only the seat that showed the joker knows the card drawn"))
    return shower, other, -1 if known.drawn is None else int(known.drawn)


def _trumps(rules: Ruleset, turned: tuple[int, ...]) -> int:
    """Every trump of the deal, from its turn-up (D3–D5, D8)."""
    top = turned[-1]
    if top < LITTLE_BLOOPER:
        return trump_mask(suit_of(top))
    if rules.joker_turnup == "lone_joker":
        return trump_mask(None, top ^ 1)
    return 0


def _dealt(
    known: Knowledge,
    size: int,
    seats: tuple[int, ...],
    turned: tuple[int, ...],
    trumps: int,
    exchange: tuple[int, int, int] | None,
    fixed: Mapping[int, int],
    allowed: Mapping[int, int],
    reasons: Mapping[int, str],
) -> Game:
    """The game taken up and dealt a deal in which each seat holds ``fixed`` (after any
    exchange) and unseen cards from ``allowed`` (any, for a seat not in it) to make its size."""
    rules = known.rules
    out = mask_of(turned)
    if exchange is not None:
        out |= 1 << exchange[1]
    elif rules.joker_turnup == "no_trump" and turned[0] >= LITTLE_BLOOPER:
        out |= 1 << (turned[0] ^ 1)  # D4: the other joker is in the stock, in no hand
    for cards in fixed.values():
        out |= cards
    pool = [card for card in range(NUM_CARDS) if not out >> card & 1]
    renig = (
        rules.renig_min_hand is not None
        and size >= rules.renig_min_hand
        and known.tie_breaker is None
    )
    strong = HONOURS | trumps
    slots: list[tuple[int, int]] = []  # (seat, the cards it may take)
    for seat in seats:
        have = fixed.get(seat, 0)
        need = size - bin(have).count("1")
        may = allowed.get(seat, FULL_DECK)
        if need and renig and not have & strong:
            slots.append((seat, may & strong))  # D6: else the deal is thrown in
            need -= 1
        slots += [(seat, may)] * need
    if renig and any(
        not fixed.get(seat, 0) & strong and size == bin(fixed.get(seat, 0)).count("1")
        for seat in seats
    ):
        raise IllegalAction("D6", N_("a hand with no honour and no trump is thrown in for a renig"))
    match = _match(slots, pool)
    if match is None:
        raise _no_deal_fits(slots, pool, reasons, "D6" if renig else "P2")
    hands = [0] * rules.num_players
    for seat, cards in fixed.items():
        hands[seat] |= cards
    for (seat, _), card in zip(slots, match, strict=True):
        hands[seat] |= 1 << card
    stock = list(turned)
    if exchange is not None:
        shower, joker, drawn = exchange
        if drawn < 0:
            drawn = (hands[shower] & -hands[shower]).bit_length() - 1
        hands[shower] ^= 1 << drawn | 1 << joker  # dealt the joker, drew the card under it
        stock.append(drawn)
    placed = mask_of(stock)
    for hand in hands:
        placed |= hand
    stock += [card for card in range(NUM_CARDS) if not placed >> card & 1]
    game = _taken_up(known)
    game.start_deal(known.dealer, [mask_cards(hand) for hand in hands], stock)
    return game


def _match(slots: list[tuple[int, int]], pool: list[int]) -> list[int] | None:
    """A card of ``pool`` for every slot, each within the slot's mask, no card twice (a
    bipartite matching, by augmenting paths); ``None`` when there is none."""
    owner: dict[int, int] = {}  # card -> slot

    def place(slot: int, seen: set[int]) -> bool:
        may = slots[slot][1]
        for card in pool:
            if may >> card & 1 and card not in seen:
                seen.add(card)
                if card not in owner or place(owner[card], seen):
                    owner[card] = slot
                    return True
        return False

    order = sorted(range(len(slots)), key=lambda s: bin(slots[s][1]).count("1"))
    for slot in order:  # the most constrained first: fewer paths to search
        if not place(slot, set()):
            return None
    chosen = [0] * len(slots)
    for card, slot in owner.items():
        chosen[slot] = card
    return chosen


def _apply_bids(game: Game, bids: Sequence[str]) -> None:
    for number, bid in enumerate(bids, 1):
        seat = game.to_move
        try:
            game.bid(bid)
        except IllegalAction as error:
            where = N_("bid {number} ({bid}, seat {seat})")
            raise _at(error, where, number=number, bid=repr(bid), seat=seat) from None


def _owners(game: Game, plays: Sequence[int], seats: tuple[int, ...], trumps: int) -> list[int]:
    """The seat that played each card: the leader first (P1), clockwise, the winner of each
    trick leading the next (P5)."""
    if not plays:
        return []
    deal = game.current_deal
    if game.phase != Phase.PLAY or deal is None or deal.leader is None:
        game.play(int(plays[0]))  # the engine's refusal: bids still due, a throw-in …
        raise AssertionError("a card was taken while none was due")  # pragma: no cover
    owners: list[int] = []
    leader = seat = deal.leader
    trick: list[int] = []
    for card in plays:
        owners.append(seat)
        trick.append(int(card))
        if len(trick) == len(seats):
            leader, _ = trick_winner(leader, trick, seats, trumps)
            seat, trick = leader, []
        else:
            seat = next_seat(seat, seats)
    return owners


def _allowed(
    game: Game,
    plays: Sequence[int],
    owners: Sequence[int],
    seat: int,
    seats: tuple[int, ...],
    trumps: int,
) -> tuple[dict[int, int], dict[int, str]]:
    """For each other seat, the unseen cards it may still hold: none whose holding would
    have made one of its plays illegal (P2–P4, by :func:`legal_cards`); and the rule of the
    last play that bounded them."""
    rules = game.rules
    mode = blooper_mode(rules)
    free = [game.free_trump_lead(s) for s in range(rules.num_players)]
    later = {s: 0 for s in seats}  # cards each seat plays from a point of the deal on
    for card, owner in zip(plays, owners, strict=True):
        later[owner] |= 1 << card
    forbidden = {s: 0 for s in seats}
    reasons: dict[int, str] = {}
    broken = False
    size = len(seats)
    for start in range(0, len(plays), size):
        trick = [int(c) for c in plays[start : start + size]]
        lead_seat = owners[start]
        led = trick[0]
        for at, card in enumerate(trick):
            owner = owners[start + at]
            hand = later[owner]
            later[owner] ^= 1 << card
            if owner == seat:
                continue
            rule = "P3"
            if at == 0:
                args = (-1, 0, trumps, broken or free[owner], False)
            else:
                same = rules.side_of(owner) == rules.side_of(lead_seat)
                forced = led >= LITTLE_BLOOPER and blooper_forces_seat(mode, led, same)
                args = (led, follow_mask(led, trumps), trumps, False, forced)
                rule = "P4" if forced else "P2"
            if not legal_cards(hand, *args) >> card & 1:
                continue  # the engine refuses the card itself, with its rule
            before = forbidden[owner]
            for other in range(NUM_CARDS):
                if not hand >> other & 1 and not legal_cards(hand | 1 << other, *args) >> card & 1:
                    forbidden[owner] |= 1 << other
            if forbidden[owner] != before:
                reasons[owner] = rule
        if len(trick) == size and mask_of(trick) & trumps:
            broken = True
    return {s: FULL_DECK & ~forbidden[s] for s in seats if s != seat}, reasons


def _no_deal_fits(
    slots: list[tuple[int, int]], pool: list[int], reasons: Mapping[int, str], rule: str
) -> IllegalAction:
    """The refusal of a deal no cards fit, naming a seat left short and the rule of what it
    showed (or ``rule`` when no one seat is)."""
    unseen = mask_of(pool)
    for seat in dict.fromkeys(s for s, _ in slots):
        mine = [may for s, may in slots if s == seat]
        may = 0
        for cards in mine:
            may |= cards
        if bin(may & unseen).count("1") < len(mine):
            return IllegalAction(
                reasons.get(seat, rule),
                N_("no deal fits what seat {seat} showed: of the cards unseen, fewer than "
                   "its {count} could be in its hand, given how it played"),
                seat=seat, count=len(mine),
            )  # fmt: skip
    return IllegalAction(
        rule,
        N_("no deal fits what was shown: the cards unseen cannot be shared among the seats "
           "as they played (the suits they did not follow, their trumps)"),
    )  # fmt: skip


def _refuse_repeats(cards: list[object], place: str) -> None:
    """D3: a card written twice in one place."""
    seen: set[int] = set()
    for card in cards:
        number = int(Card(card))
        if number in seen:
            raise _seen_twice(number, place, place)
        seen.add(number)


def _not_drawn(card: int, seat: int) -> IllegalAction:
    return IllegalAction(
        "D4",
        N_("{card}, the card drawn for the joker, is neither held nor played by seat {seat}"),
        card=card_name(card),
        seat=seat,
    )


def _wrong_size(seat: int, size: int, hand: int, played: int) -> IllegalAction:
    return IllegalAction(
        "D2",
        N_("seat {seat} was dealt {size} cards, but holds {held} and played {played}"),
        seat=seat,
        size=size,
        held=bin(hand).count("1"),
        played=played,
    )


def _at(error: IllegalAction, where: str, **params: Any) -> IllegalAction:
    """``error`` said of the bid or card it refused."""
    place = where.format(**params)
    return IllegalAction(error.rule or "", N_("{place}: {reason}"), place=place,
                         reason=error.message)  # fmt: skip


# ---------------------------------------------------------------------- reading JSON


def _required(message: Mapping[str, Any], key: str) -> Any:
    if key not in message:
        raise ValueError(f'"{key}" is missing')
    return message[key]


def _field_int(value: object, key: str) -> int:
    if not is_int(value):
        raise ValueError(f'"{key}" must be a whole number, not {value!r}')
    assert isinstance(value, int)
    return value


def _ints(value: object, key: str) -> list[int]:
    if not isinstance(value, list):
        raise ValueError(f'"{key}" must be a list of whole numbers, not {value!r}')
    return [_field_int(item, key) for item in value]


def _strings(value: object, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f'"{key}" must be a list of strings, not {value!r}')
    return list(value)


def _card_list(value: object, key: str) -> list[int]:
    """Cards as a list of spellings, or one string of them separated by spaces (C2)."""
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, list):
        raise ValueError(f'"{key}" must be a list of cards, not {value!r}')
    try:
        return [parse_card(item) for item in value]
    except CardError:
        raise
    except (TypeError, ValueError):
        raise ValueError(f'"{key}" must be a list of cards, not {value!r}') from None


def _deal_of_size(rules: Ruleset, size: object) -> int:
    """The first counted deal dealt ``size`` cards (D2)."""
    if is_int(size) and size in rules.hand_sizes:
        return rules.hand_sizes.index(size)
    raise IllegalAction("D2", N_("no deal of these rules is dealt {size} cards"), size=repr(size))
