"""Double-dummy solver: the exact tricks a side takes from a position with every hand known.

Play follows the engine's own statement of the rules (:func:`backalley.engine.legal_cards`:
following suit, P3 trump leads with the board exception, P4 Bloopers, no-trump deals), so the
solver and the game can never disagree about what may be played.

The search (:mod:`backalley.solver.search`, compiled by numba) is a boolean "can the side
still take *k* tricks?" (a null-window search), asked from a guess up or down, with the
bounds it learns kept in a transposition table at the start of each trick, keyed on relative
ranks (partition search); a side that cannot reach *k* even by taking every remaining trick,
or has reached it already with its quick tricks or top trumps (at a trick's start, or at
second hand when a side sure to win the trick can then cash enough), stops at once; the likeliest
cards are tried first (the lead that last proved a trick start at the same depth, and the
table's best move, weigh in), equivalent cards — adjacent in their suit once the cards of
the other hands are counted — are searched once, and a card whose refutation never looked
at the small cards of its suit stands for the hand's other small cards there. A bot can cap
the nodes a search may visit.

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

from collections.abc import Callable
from dataclasses import dataclass
from types import FunctionType
from typing import TypeVar, cast

import numpy as np

from backalley import jit
from backalley.cards import N_, BackAlleyError, trump_mask
from backalley.engine import Game, blooper_mode, trick_winner
from backalley.rules import next_seat
from backalley.solver import search

T = TypeVar("T")


class NotInPlay(BackAlleyError, ValueError):
    """The solver was asked about a game with no card due."""

    def __init__(self) -> None:
        super().__init__(None, N_("the solver needs a deal in play, with a card due"))


@dataclass(frozen=True)
class Position:
    """A deal in play with every hand known: what the solver searches from."""

    hands: tuple[int, ...]  #: per seat (0 for a seat not dealt in)
    seats: tuple[int, ...]  #: the seats in play, clockwise
    sides: tuple[int, ...]  #: the side of each seat
    trumps: int  #: every trump (0: no trump suit)
    broken: bool  #: a trump was played in an earlier trick (P3 a)
    free_lead: tuple[bool, ...]  #: per seat, the board exception of P3
    blooper_forces: int  #: P4's reach: engine.NO_FORCE, FORCE_ALL or FORCE_OPPONENTS
    trick: tuple[int, ...]  #: cards of the trick in progress, in order
    leader: int  #: the seat that led (or leads) the trick in progress
    to_move: int

    @classmethod
    def from_game(cls, game: Game) -> Position:
        """The position of a game in play (the solver sees every hand: double dummy).

        :raises NotInPlay: when no card is due.
        """
        deal = game.current_deal
        if deal is None or game.to_move is None or game.phase.name != "PLAY":
            raise NotInPlay()
        trick = game.trick
        leader = trick[0][0] if trick else game.to_move
        return cls(
            hands=tuple(game.hand(s) for s in range(game.num_players)),
            seats=deal.seats,
            sides=tuple(game.rules.side_of(s) for s in range(game.num_players)),
            trumps=trump_mask(deal.trump, deal.lone_joker),
            broken=game.trumps_broken,
            free_lead=tuple(game.free_trump_lead(s) for s in range(game.num_players)),
            blooper_forces=blooper_mode(game.rules),
            trick=tuple(card for _, card in trick),
            leader=leader,
            to_move=game.to_move,
        )

    @property
    def tricks_left(self) -> int:
        """Tricks still to be won, the one in progress included."""
        return self.hands[self.leader].bit_count() + (1 if self.trick else 0)


class OutOfBudget(BackAlleyError):
    """The search gave up: it would have visited more nodes than its budget allowed."""

    def __init__(self, budget: int | None) -> None:
        super().__init__(None, N_("the search needs more than {budget} nodes"), budget=budget)


def tricks(position: Position, side: int | None = None, budget: int | None = None) -> int:
    """Tricks ``side`` (default: the side on turn) takes from here on, with best play by all.

    :raises OutOfBudget: if ``budget`` nodes were not enough.
    """
    chosen = position.sides[position.to_move] if side is None else side
    state = _state(position, chosen, budget)
    moves, saved, frames, table = _tables()
    left = position.tricks_left
    found = int(search.value(state, moves, saved, frames, table, 0, (left + 1) // 2))
    if found < 0:
        raise OutOfBudget(budget)
    return found


def card_values(position: Position, budget: int | None = None) -> dict[int, int]:
    """For each legal card of the player on turn: the tricks that player's side takes from the
    current trick on (the current trick included) if it plays that card, best play by all.

    :raises OutOfBudget: if ``budget`` nodes were not enough.
    """
    state = _state(position, position.sides[position.to_move], budget)
    moves, saved, frames, table = _tables()
    cards = np.zeros(16, dtype=np.int64)
    values = np.zeros(16, dtype=np.int64)
    count = search.card_values(state, moves, saved, frames, table, cards, values)
    if count < 0:
        raise OutOfBudget(budget)
    return {int(cards[i]): int(values[i]) for i in range(count)}


def needs_compiling() -> bool:
    """Will the first solve of this process compile the search (20 s, once) rather than
    load it from numba's cache (under a second)? (:func:`backalley.jit.needs_compiling`)"""
    return bool(jit.needs_compiling(search.card_values))


def compile_search() -> None:
    """Make the search ready in this process: compiled the first time on a machine (20 s on
    an idle one of two cores), loaded from numba's cache later (under a second)."""
    _tables()


_TABLES: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []


def clear_table() -> None:
    """Forget what earlier searches of this process learnt (the transposition table and the
    killer moves), so that the next search starts as the first one would: for timing a
    search on its own (benchmarks/solver.py), never needed for its answers."""
    if _TABLES:
        _moves, _saved, frames, table = _TABLES[0]
        table.fill(0)
        frames[:, search.KILLER] = -1


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The work arrays and transposition table, made once per process and kept: the table's
    keys hold everything a result depends on, so entries stay true from one search to the
    next. The first time on a machine, the search is compiled here (see
    :func:`on_a_large_frame`)."""
    if not _TABLES:
        _TABLES.append(search.new_tables())
        if needs_compiling():
            on_a_large_frame(_solve_a_one_card_deal)
    return _TABLES[0]


#: Locals of the frame :func:`on_a_large_frame` runs from: about 0.5 MiB of frame stack.
LARGE_FRAME = 66_000


def on_a_large_frame(work: Callable[[], T]) -> T:
    """Run ``work`` from a frame so large that the frames it calls share its chunk of
    CPython's frame stack.

    CPython 3.11 unmaps a chunk of that stack as soon as the frames in it return and maps
    a new one at the next call (gh-142183, fixed in 3.13): numba's compiler, recursing back
    and forth across a chunk boundary, could spend more time in ``mmap`` and ``munmap`` than
    compiling. Measured: ``backalley solve`` compiling the search took 2 min 24 s, of which
    1 min 30 s in the kernel; from a large frame, 47 s."""
    names = ("work", *(f"unused{i}" for i in range(LARGE_FRAME)))
    code = _call.__code__.replace(co_varnames=names, co_nlocals=len(names))
    return cast("Callable[[Callable[[], T]], T]", FunctionType(code, {}))(work)


def _call(work: Callable[[], T]) -> T:
    return work()


def _solve_a_one_card_deal() -> None:
    """Compile (or load) the search on the smallest deal, through both entry points."""
    position = Position(
        hands=(1, 2, 4, 8),
        seats=(0, 1, 2, 3),
        sides=(0, 1, 0, 1),
        trumps=0,
        broken=False,
        free_lead=(False,) * 4,
        blooper_forces=0,
        trick=(),
        leader=0,
        to_move=0,
    )
    card_values(position)
    tricks(position)  # compiled already: card_values calls the same value()


def _state(position: Position, side: int, budget: int | None = None) -> np.ndarray:
    """The position as the search's flat state array (see :mod:`backalley.solver.search`)."""
    state = np.zeros(search.STATE_SIZE, dtype=np.int64)
    hands = [*position.hands, 0, 0, 0, 0][:4]
    state[search.TRUMPS] = position.trumps
    state[search.BROKEN] = position.broken
    state[search.BLOOPER] = position.blooper_forces
    state[search.LEADER] = position.leader
    state[search.TO_MOVE] = position.to_move
    state[search.SEATS] = len(position.seats)
    state[search.SIDE] = side
    state[search.LIMIT] = 2**62 if budget is None else budget
    config = side
    trump_suit = next((s for s in range(4) if position.trumps >> (13 * s) & 1), 4)
    if trump_suit == 4 and position.trumps:  # D8: a lone joker, the Little or the Big
        trump_suit = 5 if position.trumps >> 52 & 1 else 6
    config = config << 3 | trump_suit
    config = config << 2 | position.blooper_forces
    for seat in range(4):
        in_play = seat in position.seats
        side_of = position.sides[seat] if seat < len(position.sides) else 0
        free = seat < len(position.free_lead) and position.free_lead[seat]
        config = (config << 4) | (in_play << 3) | (side_of << 1) | free
        state[search.HANDS + seat] = hands[seat] if in_play else 0
        state[search.SIDES + seat] = side_of
        state[search.FREE_LEAD + seat] = free
        if in_play:
            state[search.NEXT + seat] = next_seat(seat, position.seats)
    state[search.CONFIG] = config
    for i, card in enumerate(position.trick):
        state[search.TRICK + i] = card
        seat, best = trick_winner(
            position.leader, position.trick[: i + 1], position.seats, position.trumps
        )
        state[search.WIN_CARD + i] = best
        state[search.WIN_SEAT + i] = seat
    state[search.TRICK_LEN] = len(position.trick)
    return state
