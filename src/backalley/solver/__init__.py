"""Double-dummy solver: the exact tricks a side takes from a position with every hand known.

Play follows the engine's own statement of the rules (:func:`backalley.engine.legal_cards`:
following suit, P3 trump leads with the board exception, P4 Bloopers, no-trump deals), so the
solver and the game can never disagree about what may be played.

The search is a boolean "can the side still take *k* tricks?" (a null-window search), asked
for a rising *k* with the bounds it learns kept in a transposition table at the start of each
trick; cards that are equivalent — adjacent in their suit once the cards of the other hands
are counted — are tried once; winning cards are tried first; and a side that cannot reach
*k* even by taking every remaining trick, or has reached it already, stops at once.

>>> from backalley.engine import Game
>>> from backalley.rules import Ruleset
>>> game = Game(Ruleset.preset("standard", hand_sizes=[4]), seed=2)
>>> while game.phase.name == "BID":
...     game.apply(game.legal_actions()[0] if game.to_move != 1 else game.legal_actions()[1])
>>> position = Position.from_game(game)
>>> values = card_values(position)
>>> sorted(values) == sorted(game.legal_actions())
True
>>> max(values.values()) == tricks(position)
True
"""

from __future__ import annotations

from dataclasses import dataclass

from backalley.cards import LITTLE_BLOOPER, SUIT_MASKS, trump_mask
from backalley.engine import Game, legal_cards


@dataclass(frozen=True)
class Position:
    """A deal in play with every hand known: what the solver searches from."""

    hands: tuple[int, ...]  #: per seat (0 for a seat not dealt in)
    seats: tuple[int, ...]  #: the seats in play, clockwise
    sides: tuple[int, ...]  #: the side of each seat
    trumps: int  #: every trump (0: no trump suit)
    broken: bool  #: a trump was played in an earlier trick (P3 a)
    free_lead: tuple[bool, ...]  #: per seat, the board exception of P3
    blooper_forces: bool
    trick: tuple[int, ...]  #: cards of the trick in progress, in order
    leader: int  #: the seat that led (or leads) the trick in progress
    to_move: int

    @classmethod
    def from_game(cls, game: Game) -> Position:
        """The position of a game in play (the solver sees every hand: double dummy)."""
        deal = game.current_deal
        if deal is None or game.to_move is None or game.phase.name != "PLAY":
            raise ValueError("the solver needs a deal in play")
        trick = game.trick
        leader = trick[0][0] if trick else game.to_move
        return cls(
            hands=tuple(game.hand(s) for s in range(game.num_players)),
            seats=deal.seats,
            sides=tuple(game.side_of(s) for s in range(game.num_players)),
            trumps=trump_mask(deal.trump),
            broken=game.trumps_broken,
            free_lead=tuple(game.free_trump_lead(s) for s in range(game.num_players)),
            blooper_forces=game.rules.blooper_forces,
            trick=tuple(card for _, card in trick),
            leader=leader,
            to_move=game.to_move,
        )

    @property
    def tricks_left(self) -> int:
        """Tricks still to be won, the one in progress included."""
        return self.hands[self.leader].bit_count() + (1 if self.trick else 0)


def tricks(position: Position, side: int | None = None) -> int:
    """Tricks ``side`` (default: the side on turn) takes from here on, with best play by all."""
    chosen = position.sides[position.to_move] if side is None else side
    return _Search(position, chosen).value()


def card_values(position: Position) -> dict[int, int]:
    """For each legal card of the player on turn: the tricks that player's side takes from the
    current trick on (the current trick included) if it plays that card, best play by all."""
    search = _Search(position, position.sides[position.to_move])
    return search.card_values()


class _Search:
    """Mutable search state for one position and one side; the table lives as long as it."""

    def __init__(self, position: Position, side: int) -> None:
        self.side = side
        self.hands = list(position.hands)
        self.seats = position.seats
        self.sides = position.sides
        self.trumps = position.trumps
        self.broken = position.broken
        self.free_lead = position.free_lead
        self.blooper = position.blooper_forces
        self.trick = list(position.trick)
        self.leader = position.leader
        self.to_move = position.to_move
        count = len(self.seats)
        self.next_seat = {s: self.seats[(i + 1) % count] for i, s in enumerate(self.seats)}
        self.table: dict[tuple[object, ...], tuple[int, int]] = {}
        self.nodes = 0

    # ------------------------------------------------------------------ the game, inside

    def _legal(self) -> int:
        seat = self.to_move
        if not self.trick:
            return legal_cards(
                self.hands[seat], -1, 0, self.trumps, self.broken or self.free_lead[seat], False
            )
        return legal_cards(
            self.hands[seat],
            self.trick[0],
            self._group(self.trick[0]),
            self.trumps,
            True,
            self.blooper,
        )

    def _moves(self) -> list[int]:
        """The legal cards, one of each set of equivalent cards, promising ones first."""
        hand = self.hands[self.to_move]
        legal = self._legal()
        live = 0
        for seat in self.seats:
            live |= self.hands[seat]
        for card in self.trick:
            live |= 1 << card
        others = live & ~hand
        moves: list[int] = []
        previous = -1
        card_set = legal
        while card_set:
            low = card_set & -card_set
            card = low.bit_length() - 1
            card_set ^= low
            if card >= LITTLE_BLOOPER:
                moves.append(card)  # a Blooper's lead is never like another card's (P4)
                previous = -1
                continue
            group = self._group(card)
            if previous >= 0 and group >> previous & 1:
                between = ((1 << card) - (1 << (previous + 1))) & group & others
                if not between:
                    previous = card  # equivalent to the card kept before it
                    continue
            moves.append(card)
            previous = card
        if not self.trick:
            # Lead the cards that are the highest still out in their suit first, then the
            # rest from the top.
            tops = [c for c in moves if (self._group(c) & others) >> c == 0]
            rest = [c for c in reversed(moves) if (self._group(c) & others) >> c != 0]
            return tops[::-1] + rest
        winner, winning = self._winner()
        wins = [c for c in moves if self._beats(c, winning)]  # ascending: cheapest first
        rest = [c for c in moves if not self._beats(c, winning)]
        if self.sides[winner] == self.sides[self.to_move]:
            return rest + wins  # the side is winning the trick: play low
        return wins + rest

    def _group(self, card: int) -> int:
        """The cards ranked against ``card``: its suit, or every trump."""
        return self.trumps if self.trumps >> card & 1 else SUIT_MASKS[card // 13]

    def _winner(self) -> tuple[int, int]:
        """(seat, card) winning the trick in progress so far (P5)."""
        best = self.trick[0]
        offset = 0
        for i, card in enumerate(self.trick[1:], start=1):
            if self._beats(card, best):
                best, offset = card, i
        seat = self.leader
        for _ in range(offset):
            seat = self.next_seat[seat]
        return seat, best

    def _beats(self, card: int, best: int) -> bool:
        trumps = self.trumps
        if trumps >> best & 1:
            return bool(trumps >> card & 1) and card > best
        if trumps >> card & 1:
            return True
        return bool(self._group(self.trick[0]) >> card & 1) and card > best

    def _play(self, card: int) -> tuple[int, int, bool, list[int], int] | None:
        """Play ``card``; at the end of a trick return what undoing needs, else None."""
        seat = self.to_move
        self.hands[seat] ^= 1 << card
        self.trick.append(card)
        if len(self.trick) < len(self.seats):
            self.to_move = self.next_seat[seat]
            return None
        winner, _best = self._winner()
        saved = (
            self.leader,
            seat,
            self.broken,
            self.trick,
            1 if self.sides[winner] == self.side else 0,
        )
        if any(self.trumps >> c & 1 for c in self.trick):
            self.broken = True
        self.trick = []
        self.leader = self.to_move = winner
        return saved

    def _undo(self, card: int, saved: tuple[int, int, bool, list[int], int] | None) -> None:
        if saved is None:
            self.trick.pop()
            seat = self.trick_seat_of_last()
        else:
            self.leader, seat, self.broken, self.trick, _ = saved
            self.trick.pop()
        self.hands[seat] |= 1 << card
        self.to_move = seat

    def trick_seat_of_last(self) -> int:
        seat = self.leader
        for _ in range(len(self.trick)):
            seat = self.next_seat[seat]
        return seat

    # ------------------------------------------------------------------ the search

    def _quick_tricks(self) -> int:
        """Tricks the leader can cash at once: cards above every other card out in their suit
        (or among trumps) — so that no partner is forced to overtake and take the lead —
        where the other side cannot ruff them."""
        leader = self.leader
        hand = self.hands[leader]
        side = self.sides[leader]
        theirs = others = 0
        for seat in self.seats:
            if seat != leader:
                others |= self.hands[seat]
                if self.sides[seat] != side:
                    theirs |= self.hands[seat]
        trumps = self.trumps
        sure = 0
        if trumps and (self.broken or self.free_lead[leader] or not hand & ~trumps):
            sure += ((hand & trumps) >> (others & trumps).bit_length()).bit_count()
        if not theirs & trumps:
            for suit_mask in SUIT_MASKS:
                group = suit_mask & ~trumps
                if group:
                    sure += ((hand & group) >> (others & group).bit_length()).bit_count()
        return min(sure, hand.bit_count())

    def _key(self) -> tuple[object, ...]:
        """The position at a trick start up to relative ranks (partition search, simply).

        Only the order of the cards still out matters, not which were played: each hand is
        packed against the cards remaining, with the count left in each suit, the jokers as
        they are (a Blooper's lead depends on which it is), the leader, and broken trumps.
        """
        remaining = 0
        for seat in self.seats:
            remaining |= self.hands[seat]
        packed: list[int] = []
        for seat in self.seats:
            hand = self.hands[seat]
            bits = 0
            place = 0
            rest = remaining
            while rest:
                low = rest & -rest
                if hand & low:
                    bits |= 1 << place
                place += 1
                rest ^= low
            packed.append(bits)
        counts = [(remaining & SUIT_MASKS[suit]).bit_count() for suit in range(4)]
        return (*packed, *counts, remaining >> LITTLE_BLOOPER, self.leader, self.broken)

    def _left(self) -> int:
        return self.hands[self.leader].bit_count() + (1 if self.trick else 0)

    def reach(self, target: int) -> bool:
        """Can the side still take ``target`` tricks from here?"""
        if target <= 0:
            return True
        left = self._left()
        if target > left:
            return False
        self.nodes += 1
        key: tuple[object, ...] | None = None
        if not self.trick:
            sure = self._quick_tricks()
            if self.sides[self.leader] == self.side:
                if sure >= target:
                    return True
            elif left - sure < target:
                return False
            key = self._key()
            low, high = self.table.get(key, (0, left))
            if low >= target:
                return True
            if high < target:
                return False
        ours = self.sides[self.to_move] == self.side
        result = not ours
        for card in self._moves():
            saved = self._play(card)
            won = saved[4] if saved is not None else 0
            ok = self.reach(target - won)
            self._undo(card, saved)
            if ok == ours:
                result = ours
                break
        if key is not None:
            low, high = self.table.get(key, (0, left))
            if result:
                low = max(low, target)
            else:
                high = min(high, target - 1)
            self.table[key] = (low, high)
        return result

    def value(self) -> int:
        """The most tricks the side is sure of, from here on."""
        best = 0
        while best < self._left() and self.reach(best + 1):
            best += 1
        return best

    def card_values(self) -> dict[int, int]:
        values = {}
        legal = self._legal()
        while legal:
            low = legal & -legal
            card = low.bit_length() - 1
            legal ^= low
            saved = self._play(card)
            won = saved[4] if saved is not None else 0
            values[card] = won + self.value()
            self._undo(card, saved)
        return values
