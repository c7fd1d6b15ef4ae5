"""Observations: what one seat knows, as a vector of floats (docs/env.md has the tables).

Two encodings, laid out field by field as OpenSpiel lays out its games' tensors:

- ``compact`` (:data:`COMPACT`, 531 floats): the seat's hand, the trump, the face-up cards,
  the deal's bids and contracts, the trick in progress, every card played, the voids shown,
  the tricks taken, the scores, the hand size and the seats' positions;
- ``full`` (:data:`FULL`, 3,499 floats): the compact fields, then the card this seat drew in
  a joker exchange (D4), its hand as dealt, and every finished trick of the deal in order.
  It is the deal's information state: two histories of a deal that this seat cannot tell
  apart, with the same scores, give the same vector. Earlier deals enter only through the
  scores and the counted deals: nothing else of them bears on the rest of the game.

Seats are relative to the observer: 0 is the seat itself, 1 its left, 2 its partner (or, in
``classic3``, its right), 3 its right; sides likewise, its own first. So one policy plays
every seat.

Each encoding is written twice, from the same table: :func:`encode_view` reads a
:class:`~backalley.view.SeatView` — a view carries only what its seat may know, so nothing
else can reach an observation — and :func:`write_observation` reads the compiled state of
:mod:`backalley.env.kernel` for the research environment's speed. ``tests/test_env.py`` checks
that both write the same floats at every step of thousands of games, and that dealing the
other hands again, consistently with the seat's view, changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from backalley.env import kernel as k
from backalley.jit import bit_length, compiled, popcount
from backalley.rules import Ruleset
from backalley.view import TRUMPS, SeatView


@dataclass(frozen=True)
class Field:
    """One field of an encoding: where it starts, how long it is, and what it holds."""

    name: str
    offset: int
    length: int
    meaning: str


def _layout(rows: list[tuple[str, int, str]], start: int = 0) -> tuple[Field, ...]:
    fields, at = [], start
    for name, length, meaning in rows:
        fields.append(Field(name, at, length, meaning))
        at += length
    return tuple(fields)


_CARDS = "one per card, 2♠ … A♠, 2♥ … A♥, 2♦ … A♦, 2♣ … A♣, LJ, BJ (the action numbers 0‥53)"

#: The compact encoding.
COMPACT: tuple[Field, ...] = _layout(
    [
        ("hand", 54, f"this seat's cards: {_CARDS}"),
        ("trump_suit", 5, "one-hot: ♠, ♥, ♦, ♣, no trump suit"),
        ("lone_joker", 2, "D8: the Little Blooper, the Big Blooper is the deal's only trump"),
        ("face_up", 54, "the turn-up, jokers turned up and set aside (D5), a joker shown (D4)"),
        ("joker_shown_by", 4, "D4: the seat that showed the other joker"),
        ("hand_size", 13, "one-hot: 1 … 13 cards dealt"),
        ("deal_kind", 4, "one-hot: a counted deal, E2's, E3's of three, E3's of two"),
        ("phase", 2, "one-hot: bidding, play"),
        ("dealer", 4, "one-hot: the dealer's seat"),
        ("deals_played", 1, "counted deals scored ÷ counted deals in the game"),
        ("bids", 64, "per seat, one-hot of 16: no bid yet, pass, 1 … 13, board"),
        ("board_level", 5, "one-hot: 0 … 4 board bids this deal (B4)"),
        ("contracts", 9, "per side: no contract, board, a number of tricks ÷ 13 (B3)"),
        ("free_trump_lead", 4, "per seat: P3 (c) lets it lead trump before trumps are broken"),
        ("trumps_broken", 1, "P3 (a): a trump has been played in an earlier trick"),
        ("tricks_won", 3, "per side: tricks taken this deal ÷ 13"),
        ("tricks_left", 1, "tricks still to play this deal ÷ 13"),
        ("trick_leader", 4, "one-hot: the seat that led the trick in progress"),
        ("trick", 216, "per seat, 54: its card in the trick in progress"),
        ("played", 54, "every card played this deal"),
        ("voids", 20, "per seat, 5: shown void in ♠, ♥, ♦, ♣, trumps (P2)"),
        ("hand_counts", 4, "per seat: cards left ÷ 13"),
        ("scores", 3, "per side: the game's score ÷ 100"),
    ]
)
COMPACT_SIZE = COMPACT[-1].offset + COMPACT[-1].length

#: The full encoding: the compact fields, then these.
FULL: tuple[Field, ...] = COMPACT + _layout(
    [
        ("drawn", 54, "D4: the card this seat drew for the joker it showed"),
        ("dealt", 54, "this seat's hand as dealt (after a D4 exchange)"),
        (
            "tricks_history",
            13 * 220,
            "per finished trick of the deal, in order, 220: one-hot of 4, the seat that led; "
            "per seat, 54: the card it played",
        ),
    ],
    COMPACT_SIZE,
)
FULL_SIZE = FULL[-1].offset + FULL[-1].length
ENCODINGS = {"compact": COMPACT, "full": FULL}


def size_of(encoding: str) -> int:
    """The length of ``encoding``'s vectors."""
    return COMPACT_SIZE if encoding == "compact" else FULL_SIZE


def _at(name: str) -> int:
    return next(f.offset for f in FULL if f.name == name)


O_HAND, O_TRUMP, O_LONE, O_FACE, O_SHOWN_BY = map(
    _at, ("hand", "trump_suit", "lone_joker", "face_up", "joker_shown_by")
)
O_SIZE, O_KIND, O_PHASE, O_DEALER, O_DEALS = map(
    _at, ("hand_size", "deal_kind", "phase", "dealer", "deals_played")
)
O_BIDS, O_LEVEL, O_CONTRACTS, O_FREE, O_BROKEN = map(
    _at, ("bids", "board_level", "contracts", "free_trump_lead", "trumps_broken")
)
O_WON, O_LEFT, O_LEADER, O_TRICK, O_PLAYED = map(
    _at, ("tricks_won", "tricks_left", "trick_leader", "trick", "played")
)
O_VOIDS, O_COUNTS, O_SCORES, O_DRAWN, O_DEALT, O_HISTORY = map(
    _at, ("voids", "hand_counts", "scores", "drawn", "dealt", "tricks_history")
)


# ---------------------------------------------------------------------- from a view


def encode_view(view: SeatView, encoding: str = "compact") -> np.ndarray:
    """The observation of ``view``'s seat, from its view alone (float32)."""
    assert view.seat is not None, "a spectator has no observation"
    rules = view.rules
    n, sides = rules.num_players, rules.num_sides
    me = view.seat
    mine = rules.side_of(me)
    out = np.zeros(size_of(encoding), dtype=np.float32)

    def seat_at(seat: int) -> int:
        return (seat - me) % n

    def side_at(side: int) -> int:
        return (side - mine) % sides

    def cards(at: int, mask: int) -> None:
        for card in range(54):
            if mask >> card & 1:
                out[at + card] = 1

    cards(O_HAND, view.hand)
    out[O_TRUMP + (4 if view.trump is None else view.trump)] = 1
    lone = view.lone_joker
    if lone is not None:
        out[O_LONE + lone - k.LITTLE] = 1
    for card in view.turned_up:
        out[O_FACE + card] = 1
    if view.joker_shown is not None:
        out[O_FACE + view.joker_shown[1]] = 1
        out[O_SHOWN_BY + seat_at(view.joker_shown[0])] = 1
    out[O_SIZE + view.hand_size - 1] = 1
    assert view.deal_kind is not None and view.dealer is not None
    out[O_KIND + int(view.deal_kind)] = 1
    out[O_PHASE + int(view.phase) - 1] = 1
    out[O_DEALER + seat_at(view.dealer)] = 1
    deals = len(rules.hand_sizes)
    counted = min(sum(1 for d in view.history if d.thrown_in is None), deals)
    out[O_DEALS] = counted / deals
    for seat, bid in view.bids:
        tricks = bid.tricks
        out[O_BIDS + 16 * seat_at(seat) + (15 if tricks is None else 1 + tricks)] = 1
    out[O_LEVEL + view.board_level] = 1
    for side, contract in enumerate(view.contracts):
        at = O_CONTRACTS + 3 * side_at(side)
        if contract is None:
            out[at] = 1
        elif contract == "board":
            out[at + 1] = 1
        else:
            out[at + 2] = int(contract) / 13
    for seat, free in enumerate(view.free_trump_lead):
        out[O_FREE + seat_at(seat)] = free
    out[O_BROKEN] = view.trumps_broken
    for side, won in enumerate(view.tricks_won):
        out[O_WON + side_at(side)] = won / 13
    out[O_LEFT] = (view.hand_size - len(view.completed_tricks)) / 13
    if view.trick:
        out[O_LEADER + seat_at(view.trick[0][0])] = 1
    for seat, card in view.trick:
        out[O_TRICK + 54 * seat_at(seat) + card] = 1
    cards(O_PLAYED, view.played)
    for seat, suits in enumerate(view.voids):
        for suit in suits:
            out[O_VOIDS + 5 * seat_at(seat) + (4 if suit == TRUMPS else suit)] = 1
    for seat, count in enumerate(view.hand_counts):
        out[O_COUNTS + seat_at(seat)] = count / 13
    for side, points in enumerate(view.scores):
        out[O_SCORES + side_at(side)] = points / 100
    if encoding == "compact":
        return out
    if view.drawn is not None:
        out[O_DRAWN + view.drawn] = 1
    dealt = int(view.hand)
    seats = view.seats_in_deal
    for number, (leader, played) in enumerate(view.completed_tricks):
        at = O_HISTORY + 220 * number
        out[at + seat_at(leader)] = 1
        seat = leader
        for card in played:
            out[at + 4 + 54 * seat_at(seat) + card] = 1
            if seat == me:
                dealt |= 1 << card
            seat = seats[(seats.index(seat) + 1) % len(seats)]
    for seat, card in view.trick:
        if seat == me:
            dealt |= 1 << card
    cards(O_DEALT, dealt)
    return out


# ---------------------------------------------------------------------- from the kernel


@compiled(inline="always")
def _cards(out, at, mask) -> None:
    while mask != 0:
        low = mask & -mask
        out[at + bit_length(low) - 1] = 1.0
        mask ^= low


@compiled()
def write_observation(config, games, seats, sides, decks, tricks, i, me, out, full) -> None:
    """Game ``i`` as seat ``me`` sees it, into ``out`` (compact, or ``full``)."""
    out[:] = 0.0
    n = config[k.C_PLAYERS]
    nsides = config[k.C_SIDES]
    mine = k.side_of(config, me)
    _cards(out, O_HAND, seats[i, me, k.S_HAND])
    trump = games[i, k.G_TRUMP]
    out[O_TRUMP + (4 if trump < 0 else trump)] = 1.0
    if games[i, k.G_LONE] >= 0:
        out[O_LONE + games[i, k.G_LONE] - k.LITTLE] = 1.0
    size = games[i, k.G_SIZE]
    stock = games[i, k.G_ACTIVE] * size
    slot = games[i, k.G_DEAL_NUMBER] % decks.shape[1]
    for c in range(games[i, k.G_TURNED]):
        out[O_FACE + decks[i, slot, stock + c]] = 1.0
    if games[i, k.G_SHOWN_SEAT] >= 0:
        out[O_FACE + games[i, k.G_SHOWN]] = 1.0
        out[O_SHOWN_BY + (games[i, k.G_SHOWN_SEAT] - me) % n] = 1.0
    out[O_SIZE + size - 1] = 1.0
    out[O_KIND + games[i, k.G_KIND]] = 1.0
    out[O_PHASE + games[i, k.G_PHASE] - 1] = 1.0
    out[O_DEALER + (games[i, k.G_DEALER] - me) % n] = 1.0
    deals = 1 if config[k.C_ONE_DEAL] else config[k.C_DEALS]
    out[O_DEALS] = games[i, k.G_COUNTED] / deals
    for s in range(n):
        rel = (s - me) % n
        bid = seats[i, s, k.S_BID]
        if bid >= 0:
            out[O_BIDS + 16 * rel + 1 + bid] = 1.0
        if seats[i, s, k.S_FREE]:
            out[O_FREE + rel] = 1.0
        card = seats[i, s, k.S_CARD]
        if card >= 0:
            out[O_TRICK + 54 * rel + card] = 1.0
        voids = seats[i, s, k.S_VOIDS]
        for suit in range(5):
            if (voids >> suit) & 1:
                out[O_VOIDS + 5 * rel + suit] = 1.0
        out[O_COUNTS + rel] = popcount(seats[i, s, k.S_HAND]) / 13
    out[O_LEVEL + games[i, k.G_LEVEL]] = 1.0
    for d in range(nsides):
        rel = (d - mine) % nsides
        contract = sides[i, d, k.D_CONTRACT]
        at = O_CONTRACTS + 3 * rel
        if contract == k.NO_CONTRACT:
            out[at] = 1.0
        elif contract == k.BOARD_CONTRACT:
            out[at + 1] = 1.0
        else:
            out[at + 2] = contract / 13
        out[O_WON + rel] = sides[i, d, k.D_TRICKS] / 13
        out[O_SCORES + rel] = sides[i, d, k.D_SCORE] / 100
    out[O_BROKEN] = games[i, k.G_BROKEN]
    out[O_LEFT] = (size - games[i, k.G_TRICK]) / 13
    if games[i, k.G_IN_TRICK] > 0:
        out[O_LEADER + (games[i, k.G_LEAD] - me) % n] = 1.0
    _cards(out, O_PLAYED, games[i, k.G_PLAYED])
    if not full:
        return
    if games[i, k.G_SHOWN_SEAT] == me:
        out[O_DRAWN + games[i, k.G_DRAWN]] = 1.0
    _cards(out, O_DEALT, seats[i, me, k.S_DEALT])
    for t in range(games[i, k.G_TRICK]):
        at = O_HISTORY + 220 * t
        out[at + (tricks[i, t, 0] - me) % n] = 1.0
        for s in range(n):
            card = tricks[i, t, 1 + s]
            if card >= 0:
                out[at + 4 + 54 * ((s - me) % n) + card] = 1.0


@compiled()
def write_observations(config, games, seats, sides, decks, tricks, to_play, out, full) -> None:
    """Each game's observation for its player to act (zeros where none is)."""
    for i in range(out.shape[0]):
        if to_play[i] < 0:
            out[i, :] = 0.0
        else:
            write_observation(
                config, games, seats, sides, decks, tricks, i, to_play[i], out[i], full
            )


def bounds(
    encoding: str = "compact", rules: Ruleset | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The least and greatest value of each float of ``encoding`` (for a Box space): 0 to 1,
    but a numeric contract (up to two hands' worth, without B3's cap) and the scores — for
    ``rules``, what every deal at most scores or loses (a quadruple board doubled, 16 times
    over, S3, and two rainbows, S5), else unbounded."""
    low = np.zeros(size_of(encoding), dtype=np.float32)
    high = np.ones(size_of(encoding), dtype=np.float32)
    high[O_CONTRACTS : O_CONTRACTS + 9] = 2.0
    most = np.inf if rules is None else sum(160 * n + 20 for n in rules.hand_sizes) / 100
    low[O_SCORES : O_SCORES + 3] = -most
    high[O_SCORES : O_SCORES + 3] = most
    return low, high
