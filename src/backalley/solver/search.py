"""The solver's search, compiled by numba: a null-window alpha-beta over one deal in play.

Everything lives in flat int64 arrays so that numba can compile it to machine code:

- ``state``: the position (fields at the offsets below) and a node counter;
- ``moves``: one row of candidate cards per ply, so the search allocates nothing;
- ``saved``: one row per ply of what undoing a completed trick needs, and the table key;
- ``table``: the transposition table (one flat array: entries, then headers), filled at
  trick starts only. Its entries use *partition search*: a bound is stored with how many of
  the top cards of each suit it rested on (its profile), and holds for every position with
  the same hand lengths and the same owners of those cards, whatever the small cards below
  them. A header per set of hand lengths lists the profiles stored; each entry is found by
  hashing the owners of its profile's cards. The key also holds everything else that
  decides the outcome, so that entries stay true across searches and across deals: a bot
  solving many sampled deals reuses the endings they share.

Every answer comes with the cards whose ranks it rests on, and whatever compares ranks must
say so: the table and the skipping of refuted cards (:func:`next_move`) both trust it.

Play follows :func:`backalley.engine.legal_cards` (P2–P4) exactly; tests check the two
against each other and against DDS.
"""

from __future__ import annotations

import numpy as np

from backalley.jit import SUIT, bit_length, compiled, group_of, popcount

# Offsets into ``state``.
TRUMPS = 0  #: every trump (0: no trump suit)
BROKEN = 1  #: a trump was played in an earlier trick (P3 a)
BLOOPER = 2  #: P4 in force
LEADER = 3
TO_MOVE = 4
TRICK_LEN = 5
SEATS = 6  #: seats in play
SIDE = 7  #: the side whose tricks are counted
NODES = 8
CONFIG = 9  #: what the table key needs besides the cards: rules, seating, side
HANDS = 10  #: 4 hands
NEXT = 14  #: 4 next seats, clockwise among the seats in play
SIDES = 18  #: 4 sides
FREE_LEAD = 22  #: 4 flags: the board exception of P3 (c)
TRICK = 26  #: 4 cards of the trick in progress
WIN_CARD = 30  #: 4: the card winning the trick after each card played
WIN_SEAT = 34  #: 4: its seat
LIMIT = 38  #: give up once NODES reaches it (a bot's budget)
REL = 39  #: out: the cards whose ranks the last answer rests on
HINT = 40  #: out: a best move the table remembers
QUICK_HANDS = 41  #: out: the hands whose winners :func:`quick_tricks` counted, a bit a seat
QUICK_EXTRA = 42  #: out: and the other cards its count rests on
STATE_SIZE = 43

# Columns of ``frames``, one row per ply of the search.
TARGET = 0  #: tricks the side must still take from this node
BUCKET = 1  #: table bucket at a trick start, NO_TABLE if not kept there, else NOT_A_TRICK_START
COUNT = 2  #: moves generated
MOVE = 3  #: the move being tried
WON = 4  #: what playing it returned (see play)
SEAT = 5  #: the seat on turn
OURS = 6  #: 1 if that seat is on the side
RELEVANT = 7  #: cards the answers of the children tried so far rest on
CONTRIBUTION = 8  #: the winning card of the trick the move completed, if its rank mattered
SKIP = 9  #: cards a refuted move has shown need not be tried (see :func:`next_move`)
KILLER = 10  #: the lead that last proved a trick start at this ply (kept across nodes)
MERGED = 11  #: legal cards left out as equivalent to the next lower one (see :func:`generate`)
FRAME_SIZE = 12

MAX_PLY = 64
MOVE_ROW = 16
SAVED_TRICK = 11  #: ``saved`` columns: a completed trick, then the position's description
SAVED_PATTERNS = SAVED_TRICK + 6  #: then scratch for the table (see :func:`fact`)
SAVED_SIZE = SAVED_PATTERNS + 6

# The table, one flat array: facts, then profiles (see :func:`probe`).
FACT_BITS = 19  #: one slot per fact, chosen by its hash; a new fact replaces an old one
PATTERNS = 2  #: entry columns 2-5: the owners of the top cards that mattered, per suit
THRESHOLDS = 6  #: how many top cards of each suit mattered, 4 bits a suit
BOUNDS = 7  #: the entry's bounds and best move in one word (see :func:`bounds_word`)
ENTRY_SIZE = 8  #: one cache line (the table is aligned to them)
HEAD_BITS = 14  #: profile buckets, HEAD_WAYS headers each
HEAD_WAYS = 4
PROFILES = 64  #: profiles kept per header (columns 3 on; column 2 counts them)
HEAD_SIZE = 3 + PROFILES
PROFILE = 0xFFFF  #: a header's profile word: the thresholds (4 bits a suit) in these bits,
FILTER = 16  #: and from this bit on, a 32-bit filter of the entries stored under them
FACTS = (1 << FACT_BITS) * ENTRY_SIZE
HEADS = FACTS
HEAD_ROBIN = HEADS + (1 << HEAD_BITS) * HEAD_WAYS * HEAD_SIZE
TABLE_SIZE = HEAD_ROBIN + (1 << HEAD_BITS)
NO_BOUND = 99
TABLE_FROM = 3  #: tricks left from which trick starts are kept: fewer are quicker searched
NO_TABLE = -2
NOT_A_TRICK_START = -1

LITTLE = 52
BIG = 53

SUIT_ONLY = (1 << LITTLE) - 1  #: every card but the jokers


def new_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fresh work arrays: moves, saved tricks and descriptions, frames, and the table."""
    frames = np.zeros((MAX_PLY, FRAME_SIZE), dtype=np.int64)
    frames[:, KILLER] = -1
    memory = np.zeros(TABLE_SIZE + 8, dtype=np.int64)
    start = (-memory.ctypes.data // 8) % 8  # entries start on a cache line (64 bytes)
    table = memory[start : start + TABLE_SIZE]
    table.fill(0)  # touch every page now, not one by one in the first search (~0.2 s)
    return (
        np.zeros((MAX_PLY, 2 * MOVE_ROW), dtype=np.int64),
        np.zeros((MAX_PLY, SAVED_SIZE), dtype=np.int64),
        frames,
        table,
    )


@compiled(inline="always")
def beats(card: int, best: int, trumps: int, led_group: int) -> bool:
    """Does ``card`` beat ``best``, the card winning the trick so far (P5)?

    A compiled statement of :func:`backalley.engine.winning_card` for one card against the
    best so far; ``tests/test_solver.py`` checks that the two agree on every pair."""
    if (trumps >> best) & 1:
        return ((trumps >> card) & 1) == 1 and card > best
    if (trumps >> card) & 1:
        return True
    return ((led_group >> card) & 1) == 1 and card > best


@compiled(inline="always")
def equivalent(card: int, previous: int, trumps: int, others: int) -> bool:
    """Is ``card`` worth the same as ``previous``, the next lower card of the same hand: in
    the same group with no card of ``others`` between them? Never a Blooper (P4)."""
    if card >= LITTLE or previous < 0:
        return False
    group = group_of(card, trumps)
    if not (group >> previous) & 1:
        return False
    between = ((1 << card) - (1 << (previous + 1))) & group & others
    return between == 0


@compiled(inline="always")
def tricks_left(state: np.ndarray) -> int:
    """Tricks still to be won, the one in progress included."""
    return popcount(state[HANDS + state[LEADER]]) + (1 if state[TRICK_LEN] else 0)


@compiled(inline="always")
def forced(state: np.ndarray, seat: int, led: int) -> bool:
    """Whether the Blooper ``led`` forces ``seat``'s trump (P4): ``state[BLOOPER]`` 1, either
    Blooper and everyone; 2, the Big Blooper and the leader's opponents only."""
    mode = state[BLOOPER]
    if mode == 1:
        return True
    return mode == 2 and led == BIG and state[SIDES + seat] != state[SIDES + state[LEADER]]


@compiled(inline="always")
def legal(state: np.ndarray) -> int:
    """The cards the player on turn may play: P2, P3 and P4.

    A compiled copy of :func:`backalley.engine.legal_cards`; ``tests/test_solver.py`` checks
    that the two agree on positions from random games."""
    seat = state[TO_MOVE]
    hand = state[HANDS + seat]
    trumps = state[TRUMPS]
    if state[TRICK_LEN] == 0:
        if trumps and not (state[BROKEN] or state[FREE_LEAD + seat]):
            rest = hand & ~trumps
            return rest if rest else hand  # P3 (b): nothing but trumps
        return hand
    led = state[TRICK]
    if led >= LITTLE and forced(state, seat, led):
        held = hand & trumps
        if held:  # P4: highest trump after the Big Blooper, lowest after the Little
            if led == BIG:
                return 1 << (bit_length(held) - 1)
            return held & -held
        return hand
    follow = hand & group_of(led, trumps)
    return follow if follow else hand


@compiled(inline="always")
def play(state: np.ndarray, saved: np.ndarray, ply: int, card: int) -> int:
    """Play ``card`` for the player on turn: 1 if it completes a trick the side wins, 0 if it
    completes one the side loses, -1 if the trick goes on. A completed trick's winning card
    goes to state[REL] if it beat a card of its own group (its rank mattered), else 0."""
    seat = state[TO_MOVE]
    trumps = state[TRUMPS]
    state[HANDS + seat] ^= 1 << card
    i = state[TRICK_LEN]
    state[TRICK + i] = card
    if i == 0:
        win_card = card
        win_seat = seat
    else:
        win_card = state[WIN_CARD + i - 1]
        win_seat = state[WIN_SEAT + i - 1]
        if beats(card, win_card, trumps, group_of(state[TRICK], trumps)):
            win_card = card
            win_seat = seat
    state[WIN_CARD + i] = win_card
    state[WIN_SEAT + i] = win_seat
    if i + 1 < state[SEATS]:
        state[TRICK_LEN] = i + 1
        state[TO_MOVE] = state[NEXT + seat]
        return -1
    saved[ply, 0] = state[LEADER]
    saved[ply, 1] = state[BROKEN]
    for j in range(i):
        saved[ply, 2 + j] = state[TRICK + j]
        saved[ply, 5 + j] = state[WIN_CARD + j]
        saved[ply, 8 + j] = state[WIN_SEAT + j]
    played = 0
    for j in range(i + 1):
        other = state[TRICK + j]
        played |= 1 << other
        if (trumps >> other) & 1:
            state[BROKEN] = 1
    state[REL] = rank_rests(win_card, played, trumps)
    state[TRICK_LEN] = 0
    state[LEADER] = win_seat
    state[TO_MOVE] = win_seat
    return 1 if state[SIDES + win_seat] == state[SIDE] else 0


@compiled(inline="always")
def rank_rests(win_card: int, played: int, trumps: int) -> int:
    """What a completed trick's result rests on: its winning card if it beat another card
    of its group (its rank mattered), else nothing."""
    if played & group_of(win_card, trumps) & ~(1 << win_card):
        return 1 << win_card
    return 0


@compiled(inline="always")
def undo(state: np.ndarray, saved: np.ndarray, ply: int, card: int, seat: int, won: int) -> None:
    """Take back ``card``, played by ``seat``; ``won`` is what :func:`play` returned."""
    if won < 0:
        state[TRICK_LEN] -= 1
    else:
        state[LEADER] = saved[ply, 0]
        state[BROKEN] = saved[ply, 1]
        i = state[SEATS] - 1
        for j in range(i):
            state[TRICK + j] = saved[ply, 2 + j]
            state[WIN_CARD + j] = saved[ply, 5 + j]
            state[WIN_SEAT + j] = saved[ply, 8 + j]
        state[TRICK_LEN] = i
    state[HANDS + seat] |= 1 << card
    state[TO_MOVE] = seat


@compiled(inline="always")
def live_cards(state: np.ndarray) -> int:
    live = 0
    for seat in range(4):
        live |= state[HANDS + seat]
    for j in range(state[TRICK_LEN]):
        live |= 1 << state[TRICK + j]
    return live


@compiled(inline="always")
def generate(
    state: np.ndarray, moves: np.ndarray, frames: np.ndarray, ply: int, hint: int, killer: int
) -> int:
    """Write the legal cards of the player on turn to ``moves[ply]``, the promising ones
    first; return how many.

    A card equivalent to the next lower one of the hand (adjacent once the other live cards
    are counted) is left out, to frames[ply, MERGED]: the lower one stands for it. That
    they are adjacent is a fact about small cards, which the table treats as
    interchangeable, so a refutation of every move must also rest on the representative
    whenever the cards it rests on stop between the two (see :func:`merge_rests`). A table
    hint or killer that was left out passes to its representative. The killer (the lead
    that last proved a trick start at this depth) and the table's best move get a bonus
    on top of their score rather than the first place: measured, that searches fewer
    nodes (the killer outweighs the table's move, as in DDS).
    """
    seat = state[TO_MOVE]
    trumps = state[TRUMPS]
    hand = state[HANDS + seat]
    others = live_cards(state) & ~hand
    count = 0
    cards = legal(state)
    merged = 0
    previous = -1
    while cards:
        lowest = cards & -cards
        cards ^= lowest
        card = bit_length(lowest) - 1
        if equivalent(card, previous, trumps, others):
            merged |= lowest
            if card == hint:
                hint = moves[ply, count - 1]
            if card == killer:
                killer = moves[ply, count - 1]
        else:
            moves[ply, count] = card
            count += 1
        previous = card
    frames[ply, MERGED] = merged
    # The cards are ascending in moves[ply, :count]: score each (in the scratch half).
    if state[TRICK_LEN] == 0:
        group = 0
        out = 0
        below_top = 0
        weight = 0
        low = 0
        second_mine = False
        for k in range(count):
            card = moves[ply, k]
            if not (group >> card) & 1:  # the cards come suit by suit
                group = group_of(card, trumps)
                out = group & others
                below_top = out & ~(1 << (bit_length(out) - 1)) if out else 0
                second_mine = below_top != 0 and (hand & group) >> (bit_length(below_top) - 1) != 0
                weight = suit_weight(state, group)
                low = low_lead_weight(state, group, others)
            rank = rank_of(card)
            if out >> card == 0:
                moves[ply, MOVE_ROW + k] = 100 - rank + weight  # a winner: cash it
            elif low == PARTNER_TOP:
                moves[ply, MOVE_ROW + k] = 80 - rank + weight  # low to partner's winner
            else:
                # from a run headed by the second card: knock out the top
                run = second_mine and (below_top >> card) == 0
                moves[ply, MOVE_ROW + k] = 50 - rank + weight + low + (30 if run else 0)
    else:
        i = state[TRICK_LEN] - 1
        win_card = state[WIN_CARD + i]
        win_seat = state[WIN_SEAT + i]
        led_group = group_of(state[TRICK], trumps)
        threat = later_threat(state, led_group)
        partner_has_it = state[SIDES + win_seat] == state[SIDES + seat] and not (
            threat >= 0 and beats(threat, win_card, trumps, led_group)
        )
        for k in range(count):
            moves[ply, MOVE_ROW + k] = follow_score(
                state, moves[ply, k], win_card, led_group, partner_has_it, threat
            )
    for k in range(count):
        if moves[ply, k] == killer:
            moves[ply, MOVE_ROW + k] += 100
        elif moves[ply, k] == hint:
            moves[ply, MOVE_ROW + k] += 50
    select(moves, ply, 0, count)
    return count


@compiled(inline="always")
def select(moves: np.ndarray, ply: int, start: int, count: int) -> None:
    """Bring the most promising of the moves from ``start`` on to ``start`` (the lower card
    on a tie). Moves are picked one at a time, as they are needed: most nodes need one."""
    best = start
    for k in range(start + 1, count):
        score = moves[ply, MOVE_ROW + k]
        top = moves[ply, MOVE_ROW + best]
        if score > top or (score == top and moves[ply, k] < moves[ply, best]):
            best = k
    if best != start:
        card = moves[ply, best]
        moves[ply, best] = moves[ply, start]
        moves[ply, start] = card
        score = moves[ply, MOVE_ROW + best]
        moves[ply, MOVE_ROW + best] = moves[ply, MOVE_ROW + start]
        moves[ply, MOVE_ROW + start] = score


@compiled(inline="always")
def best_threat(state: np.ndarray, seat: int, led_group: int) -> int:
    """The card ``seat`` could beat others with in this trick: its highest of the suit led,
    or, void in it, its highest trump; -1 if neither."""
    hand = state[HANDS + seat]
    follow = hand & led_group
    if follow:
        return bit_length(follow) - 1
    ruff = hand & state[TRUMPS]
    if ruff:
        return bit_length(ruff) - 1
    return -1


@compiled(inline="always")
def rank_of(card: int) -> int:
    """0 for a two up to 12 for an ace; the Bloopers above."""
    return card - 13 * (card // 13) if card < LITTLE else 13 + card - LITTLE


@compiled()
def suit_weight(state: np.ndarray, group: int) -> int:
    """How good a suit is to lead from for the player on turn: one where the other side
    holds few cards, but not none, and never first into its ruff."""
    seat = state[TO_MOVE]
    trumps = state[TRUMPS]
    left = popcount(state[HANDS + seat])
    weight = 0
    for other in range(4):
        if state[SIDES + other] != state[SIDES + seat] and state[HANDS + other]:
            length = popcount(state[HANDS + other] & group)
            if length:
                weight -= 5 * length
            elif trumps and state[HANDS + other] & trumps and not (group & trumps):
                weight -= 150  # it ruffs
            else:
                weight -= 5 * (left + 1)
        elif (
            other != seat
            and state[HANDS + other]
            and not trumps
            and not state[HANDS + other] & group
        ):
            weight -= 10  # partner is void: it cannot win there
    return weight


PARTNER_TOP = 1000  #: what :func:`low_lead_weight` says when a partner holds the top card


@compiled()
def low_lead_weight(state: np.ndarray, group: int, others: int) -> int:
    """What makes a suit good to lead low in, for the player on turn, beyond
    :func:`suit_weight`; PARTNER_TOP when a partner holds the top card out."""
    seat = state[TO_MOVE]
    out = group & others
    if out == 0:
        return 0
    top = bit_length(out) - 1
    lho = state[NEXT + seat]
    partner = state[NEXT + lho]
    rho = lho
    while state[NEXT + rho] != seat:
        rho = state[NEXT + rho]
    for mate in range(4):
        if (
            mate != seat
            and state[SIDES + mate] == state[SIDES + seat]
            and (state[HANDS + mate] >> top) & 1
        ):
            return PARTNER_TOP
    weight = 0
    if (state[HANDS + seat] & group) >> top:
        weight -= 15  # leading low from under its own top card
    rest = out & ~(1 << top)
    second = bit_length(rest) - 1 if rest else -1
    if (state[HANDS + rho] >> top) & 1 or (second >= 0 and (state[HANDS + rho] >> second) & 1):
        weight -= 10  # the player after partner is over it
    if (
        partner != seat
        and state[SIDES + partner] == state[SIDES + seat]
        and (state[HANDS + lho] >> top) & 1
        and second >= 0
        and (state[HANDS + partner] >> second) & 1
    ):
        weight += 30  # through the top card to partner's second
    for other in range(4):
        if (state[HANDS + other] >> top) & 1 and popcount(state[HANDS + other] & group) == 1:
            weight += 25  # the top card is bare: it falls
    return weight


@compiled(inline="always")
def later_threat(state: np.ndarray, led_group: int) -> int:
    """The best card an opponent of the player on turn still to play in this trick could
    win it with (see :func:`best_threat`), or -1."""
    trumps = state[TRUMPS]
    seat = state[TO_MOVE]
    threat = -1
    later = state[NEXT + seat]
    for _ in range(state[SEATS] - 1 - state[TRICK_LEN]):
        if state[SIDES + later] != state[SIDES + seat]:
            card = best_threat(state, later, led_group)
            if card >= 0 and (threat < 0 or beats(card, threat, trumps, led_group)):
                threat = card
        later = state[NEXT + later]
    return threat


@compiled(inline="always")
def follow_score(
    state: np.ndarray,
    card: int,
    win_card: int,
    led_group: int,
    partner_has_it: bool,
    threat: int,
) -> int:
    """How promising ``card`` is in a trick under way (higher: try it sooner): low under a
    partner who has it won, else the cheapest sure winner (one ``threat``, the best card an
    opponent still to play holds, does not beat), else low."""
    trumps = state[TRUMPS]
    rank = rank_of(card)
    wins = beats(card, win_card, trumps, led_group)
    ruff = 20 if (trumps >> card) & 1 and not (led_group & trumps) else 0
    if partner_has_it:
        return 10 - rank if wins else 100 - rank - ruff
    if wins and not (threat >= 0 and beats(threat, card, trumps, led_group)):
        return 90 - rank - ruff  # the cheapest sure winner
    if wins:
        return 30 - rank - ruff
    return 60 - rank - ruff  # low


@compiled(inline="always")
def sure_trick(state: np.ndarray) -> int:
    """In a trick under way: a card that wins it for the side of the player on turn whatever
    the other side plays — already winning it, or the best card that player or a partner yet
    to play can play — or -1. (Not after a Blooper lead under P4, whose plays are forced.)"""
    led = state[TRICK]
    if led >= LITTLE and state[BLOOPER]:  # forced plays (some, or all): no shortcut
        return -1
    trumps = state[TRUMPS]
    led_group = group_of(led, trumps)
    seat = state[TO_MOVE]
    side = state[SIDES + seat]
    i = state[TRICK_LEN] - 1
    win_card = state[WIN_CARD + i]
    best = win_card if state[SIDES + state[WIN_SEAT + i]] == side else -1
    later = seat
    for _ in range(state[SEATS] - state[TRICK_LEN]):
        if state[SIDES + later] == side:
            card = best_threat(state, later, led_group)
            if (
                card >= 0
                and beats(card, win_card, trumps, led_group)
                and (best < 0 or beats(card, best, trumps, led_group))
            ):
                best = card
        later = state[NEXT + later]
    if best < 0:
        return -1
    threat = later_threat(state, led_group)
    if threat >= 0 and beats(threat, best, trumps, led_group):
        return -1
    return best


@compiled()
def quick_tricks(state: np.ndarray) -> int:
    """Tricks the leader's side can cash at once: the leader's winners (when the other side
    holds no trump, also a suit the two hands cash together, see :func:`cashed_together`);
    or, after a small card led to a partner's winner in a suit the other side must follow,
    the partner's; or,
    when the other side holds no trump, the leader's and then, reached last, the partner's.
    The hands whose winners the count rests on go to state[QUICK_HANDS] (see
    :func:`quick_rests`)."""
    leader = state[LEADER]
    state[QUICK_EXTRA] = 0
    own = cashable(state, leader, True)
    own_extra = state[QUICK_EXTRA]
    sure = own
    state[QUICK_HANDS] = 1 << leader
    trumps = state[TRUMPS]
    held = popcount(state[HANDS + leader])
    theirs = opponents_cards(state, leader)
    for mate in range(4):
        if mate == leader or state[SIDES + mate] != state[SIDES + leader]:
            continue
        if state[HANDS + mate] == 0:
            continue
        entry = entry_suit(state, leader, mate)
        if entry >= 0:
            through = cashable(state, mate, False)
            if through > sure:
                sure = through
                state[QUICK_HANDS] = 1 << mate
                state[QUICK_EXTRA] = 0
        if theirs & trumps:
            continue
        if entry >= 0:
            both = own + side_suits(state, mate, trumps)
            extra = own_extra
        else:
            both, extra = cross_after_cashing(state, leader, mate, theirs)
            if both > 0:  # its crossing is counted there, not by cashed_together
                both += cashable(state, leader, False)
        both = min(both, held)  # the partner throws winners last, the long cards first
        if both > sure:
            sure = both
            state[QUICK_HANDS] = (1 << leader) | (1 << mate)
            state[QUICK_EXTRA] = extra
    return sure


@compiled()
def entry_suit(state: np.ndarray, leader: int, mate: int) -> int:
    """A suit in which ``leader`` holds a card and ``mate`` a card above every other card
    out, that no hand of the other side can ruff: a small card led there puts ``mate`` on
    lead. -1 if none. (At a trick start.)"""
    trumps = state[TRUMPS]
    hand = state[HANDS + leader]
    others = live_cards(state) & ~state[HANDS + mate]
    for suit in range(4):
        group = (SUIT << (13 * suit)) & ~trumps
        if (hand & group) == 0 or (state[HANDS + mate] & group) >> bit_length(others & group) == 0:
            continue
        ruffable = False
        for seat in range(4):
            if (
                state[SIDES + seat] != state[SIDES + leader]
                and state[HANDS + seat] & trumps
                and (state[HANDS + seat] & group) == 0
            ):
                ruffable = True
        if not ruffable:
            return suit
    return -1


@compiled()
def cross_after_cashing(state: np.ndarray, leader: int, mate: int, theirs: int) -> tuple[int, int]:
    """With the other side holding no trump, DDS's "Ax opposite Kx": in a suit where
    ``leader`` holds the top cards and a smaller one, and ``mate`` the best card of the
    rest with more cards than the leader's top ones, the leader cashes those (``mate``
    follows low) and leads the small card to ``mate``'s best. Returns ``mate``'s tricks
    then, outside trumps (-1 if no suit allows it), and its cards that count in that suit
    (what the count rests on besides the two hands' winners now). ``theirs``: the other
    side's cards."""
    trumps = state[TRUMPS]
    hand = state[HANDS + leader]
    mine = state[HANDS + mate]
    for suit in range(4):
        group = (SUIT << (13 * suit)) & ~trumps
        lead = hand & group
        top = bit_length((theirs | mine) & group)
        tops = lead >> top << top
        count = popcount(tops)
        if count == 0 or popcount(lead) == count or popcount(mine & group) <= count:
            continue
        if bit_length(mine & group) <= bit_length(theirs & group):
            continue
        rest = mine & group
        for _ in range(count):
            rest &= rest - 1  # the cards it follows with: its lowest
        state[HANDS + leader] = hand & ~tops
        state[HANDS + mate] = (mine & ~group) | rest
        tricks = side_suits(state, mate, trumps)
        extra = masters(state, mate) & group
        state[HANDS + leader] = hand
        state[HANDS + mate] = mine
        return tricks, extra
    return -1, 0


@compiled()
def side_suits(state: np.ndarray, mate: int, trumps: int) -> int:
    """Tricks ``mate`` cashes in the groups other than trumps once a partner's lead puts it
    on lead. With the other side holding no trump, a partner cashing its own winners first
    takes nothing from these while ``mate`` has other cards to throw, and then only one
    a card thrown (the long cards go first): hence the cap of :func:`quick_tricks`."""
    others = live_cards(state) & ~state[HANDS + mate]  # a trick start
    sure = 0
    for suit in range(4):
        group = (SUIT << (13 * suit)) & ~trumps
        if group:
            sure += long_cash(state, mate, group, others)
    return sure


@compiled()
def quick_rests(state: np.ndarray) -> int:
    """The cards the last count of :func:`quick_tricks` rests on."""
    found = state[QUICK_EXTRA]
    for seat in range(4):
        if (state[QUICK_HANDS] >> seat) & 1:
            found |= masters(state, seat)
    return found


@compiled(inline="always")
def cashable(state: np.ndarray, leader: int, joint: bool) -> int:
    """Tricks ``leader``, on lead, can cash at once: cards above every other card out in their
    group (so no partner is forced to overtake): its top trumps, if it may lead them, and its
    other winners, all of them once the top trumps have drawn the other side's, else as many
    as the other side must follow to before a hand of it could ruff."""
    hand = state[HANDS + leader]
    side = state[SIDES + leader]
    trumps = state[TRUMPS]
    others = 0
    theirs = 0
    for seat in range(4):
        if seat != leader:
            others |= state[HANDS + seat]
            if state[SIDES + seat] != side:
                theirs |= state[HANDS + seat]
    sure = 0
    drawn = (theirs & trumps) == 0
    joint = joint and drawn  # (before drawing trumps, which a partner might discard on)
    if trumps and (state[BROKEN] or state[FREE_LEAD + leader] or (hand & ~trumps) == 0):
        sure += long_cash(state, leader, trumps, others)
        # Leading those first draws the other side's trumps, if it has no more of them.
        drawn = True
        for seat in range(4):
            if state[SIDES + seat] != side and popcount(state[HANDS + seat] & trumps) > sure:
                drawn = False
    for suit in range(4):
        group = (SUIT << (13 * suit)) & ~trumps
        if group == 0:
            continue
        cash = long_cash(state, leader, group, others)
        if joint and cash < popcount(hand & group):
            together, rests = cashed_together(state, hand & group, others & group, theirs & group)
            if together > cash:
                cash = together
                state[QUICK_EXTRA] |= rests
        elif cash and not drawn:
            # An opponent with trumps follows as long as it holds the suit, then may ruff.
            for seat in range(4):
                if state[SIDES + seat] != side and state[HANDS + seat] & trumps:
                    length = popcount(state[HANDS + seat] & group)
                    if length < cash:
                        cash = length
        sure += cash
    held = popcount(hand)
    return sure if sure < held else held


@compiled(inline="always")
def cashed_together(state: np.ndarray, mine: int, others: int, theirs: int) -> tuple[int, int]:
    """Tricks the leader's side takes in one group, if no hand ruffs, counting the partner's
    cards too (``mine``: the leader's cards of the group, ``others``: every other hand's,
    ``theirs``: the other side's); and the cards the count rests on. (0, 0) if neither way
    counts:

    - every card of the leader's, when its partner holds no more cards there and can throw
      one under each of the leader's (its highest under the leader's highest, and so on),
      and the leader's top cards outlast the other side's: resting on the ranks down to the
      leader's lowest card;
    - DDS's "Ax opposite Kx", the leader's top card and a partner's next best, both hands
      holding two or more: the ace, then a small card to the king; and every card of the
      longer hand when the other side holds at most two cards each and one of the two hands
      at most two (its small card goes to the other's top card first, or after it).
    """
    longest = 0
    for seat in range(4):
        longest = max(longest, popcount(state[HANDS + seat] & theirs))
    mates = others & ~theirs  # one partner at most (C4)
    own = popcount(mine)
    if popcount(mates) <= own and popcount(mine >> bit_length(theirs)) >= longest:
        rest = mine
        left = mates
        while left and bit_length(left) <= bit_length(rest):
            left ^= 1 << (bit_length(left) - 1)
            rest ^= 1 << (bit_length(rest) - 1)
        if left == 0:
            return own, mine & -mine
    if others == 0 or own < 2:
        return 0, 0
    second = bit_length(others) - 1
    if popcount(mine >> second) != 1 or not (mates >> second) & 1 or popcount(mates) < 2:
        return 0, 0
    if longest <= 2 and (popcount(mates) <= 2 or own <= 2):
        return max(own, popcount(mates)), 1 << second
    return 2, 1 << second


@compiled(inline="always")
def long_cash(state: np.ndarray, leader: int, group: int, others: int) -> int:
    """Tricks ``leader`` cashes in ``group`` from the top, if no hand ruffs: its cards above
    every other card out, and once those have drawn every other hand's cards of the group,
    the rest of its cards too (length winners)."""
    hand = state[HANDS + leader] & group
    cash = popcount(hand >> bit_length(others & group))
    if cash == 0:
        return 0
    for seat in range(4):
        if seat != leader and popcount(state[HANDS + seat] & group) > cash:
            return cash
    return popcount(hand)


@compiled(inline="always")
def opponents_cards(state: np.ndarray, seat: int) -> int:
    """The cards in the hands of the side other than ``seat``'s."""
    side = state[SIDES + seat]
    theirs = 0
    for seat in range(4):
        if state[SIDES + seat] != side:
            theirs |= state[HANDS + seat]
    return theirs


@compiled(inline="always")
def cash_after(state: np.ndarray, card: int, wanted: int) -> bool:
    """With no trump in the other side's hands, at second hand, when ``card`` surely wins
    the trick for the side of the player on turn (:func:`sure_trick`): can the hand that
    plays it cash ``wanted`` more tricks next, on lead (DDS's quick tricks at second hand)?
    Counted in the position before the trick ends: the cards the other hands play to it
    only leave them, which can only make more of that hand's cards winners, and a trump
    played to it could only allow trump leads (P3) that the count leaves out. If so, the
    cards the count rests on go to state[REL]."""
    winner = state[WIN_SEAT + state[TRICK_LEN] - 1]
    for seat in range(4):
        if (state[HANDS + seat] >> card) & 1:
            winner = seat
    held = state[HANDS + winner]
    rest = held & ~(1 << card)
    if popcount(rest) < wanted:
        return False
    state[HANDS + winner] = rest
    enough = cashable(state, winner, False) >= wanted
    if enough:
        state[REL] = masters(state, winner)
    state[HANDS + winner] = held
    return enough


@compiled()
def suit_control(state: np.ndarray, ours: bool) -> tuple[int, int]:
    """With no trump left in any hand: how many tricks a side (the side counted, or the other)
    could at most lead in the suits whose top card it holds (a trick in a suit takes a card
    from each of its hands that holds the suit, so the longer hand's length), and the top
    cards of those suits (when more than one card of the suit is out)."""
    hands = state[HANDS] | state[HANDS + 1] | state[HANDS + 2] | state[HANDS + 3]
    run = 0
    tops = 0
    for suit in range(4):
        group = SUIT << (13 * suit)
        out = hands & group
        if out == 0:
            continue
        top = 1 << (bit_length(out) - 1)
        longest = 0
        held = False
        for seat in range(4):
            if (state[SIDES + seat] == state[SIDE]) == ours and state[HANDS + seat] & out:
                longest = max(longest, popcount(state[HANDS + seat] & group))
                held = held or (state[HANDS + seat] & top) != 0
        if held:
            run += longest
            if out != top:
                tops |= top
    return run, tops


@compiled()
def later_tricks(state: np.ndarray, target: int, left: int) -> int:
    """At a trick start with no trump left in any hand: 0 if the side counted, on lead, needs
    every trick but cannot lead them all in suits it tops (so it must lead one the other
    side tops, whose top card then wins); 1 if the other side, on lead, needs every trick
    and cannot; else -1. The cards it rests on go to state[REL]."""
    hands = state[HANDS] | state[HANDS + 1] | state[HANDS + 2] | state[HANDS + 3]
    if hands & state[TRUMPS]:
        return -1
    ours = state[SIDES + state[LEADER]] == state[SIDE]
    if ours and target == left:
        run, _ = suit_control(state, True)
        if run < left:
            state[REL] = suit_control(state, False)[1]
            return 0
    elif not ours and target == 1:
        run, _ = suit_control(state, False)
        if run < left:
            state[REL] = suit_control(state, True)[1]
            return 1
    return -1


@compiled()
def trump_masters(state: np.ndarray, ours: bool) -> int:
    """Tricks a side (the side counted, or the other) is sure of from its top trumps: a trump
    above every trump of the other side wins the trick it is played to, and one hand's such
    trumps fall in different tricks. Two hands holding such trumps make two tricks when one
    of them has another trump to play instead, should both masters be due in one trick."""
    trumps = state[TRUMPS]
    theirs = 0
    for seat in range(4):
        if (state[SIDES + seat] == state[SIDE]) != ours:
            theirs |= state[HANDS + seat]
    above = bit_length(theirs & trumps)
    best = 0
    holders = 0
    spare = False
    for seat in range(4):
        if (state[SIDES + seat] == state[SIDE]) == ours:
            held = state[HANDS + seat] & trumps
            count = popcount(held >> above)
            if count:
                holders += 1
                spare = spare or popcount(held) > 1
            if count > best:
                best = count
    if holders > 1 and spare and best < 2:
        best = 2
    return best


@compiled()
def masters(state: np.ndarray, seat: int) -> int:
    """The cards of ``seat`` above every other card still out in their group."""
    trumps = state[TRUMPS]
    hand = state[HANDS + seat]
    others = 0
    for other in range(4):
        if other != seat:
            others |= state[HANDS + other]
    found = 0
    if trumps:
        found |= (hand & trumps) >> bit_length(others & trumps) << bit_length(others & trumps)
    for suit in range(4):
        group = (SUIT << (13 * suit)) & ~trumps
        top = bit_length(others & group)
        found |= (hand & group) >> top << top
    return found


@compiled(inline="always")
def describe(state: np.ndarray, desc: np.ndarray) -> int:
    """Describe the position at a trick start for the table; return its bucket.

    ``desc`` gets: [0] how many cards of each suit each hand holds, [1] everything else
    that decides the outcome (rules and seating, who holds each joker, leader, broken
    trumps), [2:6] per suit, who holds each card still out, from the top (2 bits a card).
    An entry of the table stores, per suit, how many of the top cards mattered to its
    result (partition search): a position matches if its counts and its owners of those
    cards are the same — the rest of each suit is just "small cards".
    """
    counts = 0
    for seat in range(4):
        hand = state[HANDS + seat]
        for suit in range(4):
            counts = (counts << 4) | popcount(hand & (SUIT << (13 * suit)))
    meta = state[CONFIG]
    for joker in range(LITTLE, BIG + 1):
        owner = 0
        for seat in range(4):
            if (state[HANDS + seat] >> joker) & 1:
                owner = seat + 1
        meta = (meta << 3) | owner
    meta = (meta << 3) | (state[LEADER] << 1) | state[BROKEN]
    desc[0] = counts
    desc[1] = meta
    hand1 = state[HANDS + 1]
    hand2 = state[HANDS + 2]
    hand3 = state[HANDS + 3]
    remaining = state[HANDS] | hand1 | hand2 | hand3
    for suit in range(4):
        pattern = 0
        length = 0
        rest = remaining & (SUIT << (13 * suit))
        while rest:
            card = bit_length(rest) - 1
            rest ^= 1 << card
            owner = (hand1 >> card) & 1 | 2 * ((hand2 >> card) & 1) | 3 * ((hand3 >> card) & 1)
            pattern |= owner << (2 * length)
            length += 1
        desc[2 + suit] = pattern
    return np.int64(key_hash(desc) >> np.uint64(64 - HEAD_BITS))


@compiled(inline="always")
def key_hash(desc: np.ndarray) -> np.uint64:
    """A hash of the counts and the rest of :func:`describe` (desc[0:2]): the header's
    bucket comes from it, and each entry's from it and the entry's profile."""
    mixed = np.uint64(0x9E3779B97F4A7C15)
    for word in range(2):
        mixed = (mixed ^ np.uint64(desc[word])) * np.uint64(0xBF58476D1CE4E5B9)
        mixed ^= mixed >> np.uint64(29)
    return mixed


@compiled()
def top_cards(state: np.ndarray, thresholds: int) -> int:
    """The top cards still out of each suit, as many as ``thresholds`` says (4 bits a suit),
    at a trick start."""
    remaining = live_cards(state)
    found = 0
    for suit in range(4):
        wanted = (thresholds >> (4 * suit)) & 15
        rank = 12
        while wanted > 0:
            card = 13 * suit + rank
            if (remaining >> card) & 1:
                found |= 1 << card
                wanted -= 1
            rank -= 1
    return found


@compiled(inline="always")
def header(table: np.ndarray, bucket: int, desc: np.ndarray, create: bool) -> int:
    """Where the profiles of positions like ``desc`` (same counts and the rest) are kept;
    -1 if nowhere and not ``create``d."""
    for way in range(HEAD_WAYS):
        at = HEADS + (bucket * HEAD_WAYS + way) * HEAD_SIZE
        if table[at + 2] and table[at] == desc[0] and table[at + 1] == desc[1]:
            return at
    if not create:
        return -1
    way = table[HEAD_ROBIN + bucket] % HEAD_WAYS
    table[HEAD_ROBIN + bucket] += 1
    at = HEADS + (bucket * HEAD_WAYS + way) * HEAD_SIZE
    table[at] = desc[0]
    table[at + 1] = desc[1]
    table[at + 2] = 0
    return at


@compiled(inline="always")
def fact(
    table: np.ndarray,
    desc: np.ndarray,
    key: np.uint64,
    thresholds: int,
    patterns: np.ndarray,
    seen: int,
) -> int:
    """Where the entry for ``desc`` (whose :func:`key_hash` is ``key``, worked out once for
    every profile tried) under ``thresholds`` is, or -1; ``patterns`` gets the
    owners of the top cards the thresholds name, patterns[4] the entry's slot and
    patterns[5] its bit in a profile's filter. Entries whose bit is not in ``seen`` (the
    filter: a bit set for each entry stored under the profile) are known to be absent,
    and their slot is not read: most profiles of a header have few entries, and each
    read of the large table is likely a cache miss. An entry has one slot, one cache
    line, so that a store of a new entry (whose bit is not set) writes without reading:
    measured against four ways and a round robin, 0.94 of the time at 10 and 13 cards,
    for 2 % more nodes at 13."""
    mixed = (key ^ np.uint64(thresholds)) * np.uint64(0xBF58476D1CE4E5B9)
    mixed ^= mixed >> np.uint64(31)
    for suit in range(4):
        wanted = (thresholds >> (4 * suit)) & 15
        patterns[suit] = desc[2 + suit] & ((1 << (2 * wanted)) - 1)
        mixed = (mixed ^ np.uint64(patterns[suit])) * np.uint64(0x94D049BB133111EB)
        mixed ^= mixed >> np.uint64(29)
    at = np.int64(mixed >> np.uint64(64 - FACT_BITS)) * ENTRY_SIZE
    patterns[4] = at
    bit = np.int64((mixed >> np.uint64(20)) & np.uint64(31))
    patterns[5] = bit
    if not (seen >> bit) & 1:
        return -1
    if (
        table[at] == desc[0]
        and table[at + 1] == desc[1]
        and table[at + THRESHOLDS] == thresholds
        and table[at + PATTERNS] == patterns[0]
        and table[at + PATTERNS + 1] == patterns[1]
        and table[at + PATTERNS + 2] == patterns[2]
        and table[at + PATTERNS + 3] == patterns[3]
    ):
        return at
    return -1


@compiled(inline="always")
def bounds_word(low: int, high: int, best: int) -> int:
    """An entry's bounds in one word: the side takes at least ``low`` tricks from here
    (bits 0-7) and at most ``high`` (bits 8-15); ``best`` is a move that proved a bound,
    or -1 (one more than it from bit 16). One word keeps an entry in one cache line."""
    return low | (high << 8) | ((best + 1) << 16)


@compiled(inline="always")
def unpack_bounds(word: int) -> tuple[int, int, int]:
    """The low and high bounds and best move of :func:`bounds_word`."""
    return word & 255, (word >> 8) & 255, (word >> 16) - 1


@compiled(inline="always")
def probe(
    state: np.ndarray,
    table: np.ndarray,
    bucket: int,
    desc: np.ndarray,
    target: int,
    patterns: np.ndarray,
) -> int:
    """1 or 0 if the table settles whether ``target`` is reached (the cards that mattered go
    to state[REL]), else -1 (a best move found on the way goes to state[HINT]).

    Partition search: a result is kept with how many top cards of each suit it rested on
    (its profile), and holds for every position with the same counts and the same owners
    of those cards. A header lists the profiles stored for positions with the same counts;
    each is tried, the entry found by hashing the owners of just those cards, unless the
    profile's filter shows no entry with that hash was stored.
    """
    state[HINT] = -1
    at = header(table, bucket, desc, False)
    if at < 0:
        return -1
    key = key_hash(desc)
    for i in range(table[at + 2]):
        word = table[at + 3 + i]
        thresholds = word & PROFILE
        entry = fact(table, desc, key, thresholds, patterns, word >> FILTER)
        if entry < 0:
            continue
        low, high, best = unpack_bounds(table[entry + BOUNDS])
        if low >= target or high < target:
            state[REL] = top_cards(state, thresholds)
            if i > 0:  # the profiles that answer most come first
                table[at + 3 + i] = table[at + 2 + i]
                table[at + 2 + i] = word
            return 1 if low >= target else 0
        if best >= 0:
            state[HINT] = best
    return -1


@compiled()
def store(
    state: np.ndarray,
    table: np.ndarray,
    bucket: int,
    desc: np.ndarray,
    result: bool,
    target: int,
    relevant: int,
    best: int,
    patterns: np.ndarray,
) -> None:
    """Keep a bound proved at a trick start, with how many top cards of each suit it used."""
    remaining = live_cards(state)  # a trick start: every card out is in a hand
    thresholds = 0
    for suit in range(4):
        mine = relevant & (SUIT << (13 * suit))
        if mine:
            above = popcount(remaining & (SUIT << (13 * suit)) & -(mine & -mine))
            thresholds |= above << (4 * suit)
    at = header(table, bucket, desc, True)
    place = -1
    for i in range(table[at + 2]):
        if table[at + 3 + i] & PROFILE == thresholds:
            place = i
    if place < 0:
        if table[at + 2] < PROFILES:
            table[at + 2] += 1
        place = table[at + 2] - 1  # when full, the newest replaces the last
        table[at + 3 + place] = thresholds
    entry = fact(table, desc, key_hash(desc), thresholds, patterns, table[at + 3 + place] >> FILTER)
    table[at + 3 + place] |= 1 << (FILTER + patterns[5])
    if entry < 0:
        entry = patterns[4]
        table[entry] = desc[0]
        table[entry + 1] = desc[1]
        for suit in range(4):
            table[entry + PATTERNS + suit] = patterns[suit]
        table[entry + THRESHOLDS] = thresholds
        table[entry + BOUNDS] = bounds_word(0, NO_BOUND, -1)
    low, high, known = unpack_bounds(table[entry + BOUNDS])
    if result:
        low = max(low, target)
    else:
        high = min(high, target - 1)
    table[entry + BOUNDS] = bounds_word(low, high, best if best >= 0 else known)


@compiled(inline="always")
def open_node(
    state: np.ndarray,
    moves: np.ndarray,
    saved: np.ndarray,
    frames: np.ndarray,
    table: np.ndarray,
    ply: int,
) -> int:
    """Enter the node at ``ply``: 1 or 0 when its answer is known at once (bounds, quick
    tricks, the table; the cards it rests on go to state[REL]), 3 when the node budget is
    spent, else 2 with its moves generated and its frame filled."""
    target = frames[ply, TARGET]
    state[REL] = 0
    if target <= 0:
        return 1
    leader = state[LEADER]
    left = tricks_left(state)
    if target > left:
        return 0
    if state[NODES] >= state[LIMIT]:
        return 3
    state[NODES] += 1
    bucket = NOT_A_TRICK_START
    hint = -1
    if state[TRICK_LEN]:
        second = state[TRICK_LEN] == 1 and not (
            state[TRUMPS] & opponents_cards(state, state[TO_MOVE])
        )
        if target == 1 or target == left or second:
            card = sure_trick(state)
            if card >= 0:
                ours = state[SIDES + state[TO_MOVE]] == state[SIDE]
                if ours and target == 1:
                    state[REL] = 1 << card
                    return 1
                if not ours and target == left:
                    state[REL] = 1 << card
                    return 0
                if second and cash_after(state, card, target - 1 if ours else left - target):
                    state[REL] |= 1 << card
                    return 1 if ours else 0
    if state[TRICK_LEN] == 0:
        if left == 1:
            return last_trick(state)
        sure = quick_tricks(state)
        if state[SIDES + leader] == state[SIDE]:
            if sure >= target:
                state[REL] = quick_rests(state)
                return 1
        elif left - sure < target:
            state[REL] = quick_rests(state)
            return 0
        trumps = state[TRUMPS]
        if trumps:
            if trump_masters(state, True) >= target:
                state[REL] = trumps_from(state, False)
                return 1
            if left - trump_masters(state, False) < target:
                state[REL] = trumps_from(state, True)
                return 0
        later = later_tricks(state, target, left)
        if later >= 0:
            return later
        bucket = NO_TABLE
        if left >= TABLE_FROM:
            desc = saved[ply, SAVED_TRICK:SAVED_PATTERNS]
            bucket = describe(state, desc)
            found = probe(state, table, bucket, desc, target, saved[ply, SAVED_PATTERNS:])
            if found >= 0:
                return found
            hint = state[HINT]
    seat = state[TO_MOVE]
    frames[ply, BUCKET] = bucket
    frames[ply, SEAT] = seat
    frames[ply, OURS] = 1 if state[SIDES + seat] == state[SIDE] else 0
    killer = frames[ply, KILLER] if bucket != NOT_A_TRICK_START else -1
    frames[ply, COUNT] = generate(state, moves, frames, ply, hint, killer)
    frames[ply, MOVE] = 0
    frames[ply, RELEVANT] = 0
    frames[ply, SKIP] = 0
    return 2


@compiled()
def last_trick(state: np.ndarray) -> int:
    """At the start of the last trick, where every play is forced: 1 if the side wins it,
    else 0. Its winning card goes to state[REL] if it beat a card of its own group."""
    trumps = state[TRUMPS]
    seat = state[LEADER]
    win_card = bit_length(state[HANDS + seat]) - 1
    led_group = group_of(win_card, trumps)
    win_seat = seat
    played = 1 << win_card
    for _ in range(state[SEATS] - 1):
        seat = state[NEXT + seat]
        card = bit_length(state[HANDS + seat]) - 1
        played |= 1 << card
        if beats(card, win_card, trumps, led_group):
            win_card = card
            win_seat = seat
    state[REL] = rank_rests(win_card, played, trumps)
    return 1 if state[SIDES + win_seat] == state[SIDE] else 0


@compiled()
def trumps_from(state: np.ndarray, ours: bool) -> int:
    """Every trump still out from the top down to the highest of one side's (the side
    counted if ``ours``): the cards :func:`trump_masters` for the other side rests on."""
    trumps = state[TRUMPS] & SUIT_ONLY
    held = 0
    remaining = 0
    for seat in range(4):
        remaining |= state[HANDS + seat]
        if (state[SIDES + seat] == state[SIDE]) == ours:
            held |= state[HANDS + seat]
    top = bit_length(held & trumps) - 1
    if top < 0:
        return 0
    return remaining & trumps & ~((1 << top) - 1)


@compiled(inline="always")
def close_node(
    state: np.ndarray,
    saved: np.ndarray,
    frames: np.ndarray,
    table: np.ndarray,
    ply: int,
    result: bool,
    relevant: int,
    best: int,
) -> None:
    """Leave the node at ``ply`` with its answer, kept in the table at a trick start."""
    bucket = frames[ply, BUCKET]
    if bucket >= 0:
        desc = saved[ply, SAVED_TRICK:SAVED_PATTERNS]
        patterns = saved[ply, SAVED_PATTERNS:]
        store(state, table, bucket, desc, result, frames[ply, TARGET], relevant, best, patterns)


@compiled(inline="always")
def descend(
    state: np.ndarray, moves: np.ndarray, saved: np.ndarray, frames: np.ndarray, ply: int
) -> None:
    """Play the current move of the node at ``ply`` and set the child's target."""
    won = play(state, saved, ply, moves[ply, frames[ply, MOVE]])
    frames[ply, WON] = won
    frames[ply, CONTRIBUTION] = state[REL] if won >= 0 else 0
    frames[ply + 1, TARGET] = frames[ply, TARGET] - (won if won > 0 else 0)


@compiled()
def reach(
    state: np.ndarray,
    moves: np.ndarray,
    saved: np.ndarray,
    frames: np.ndarray,
    table: np.ndarray,
    root: int,
    target: int,
) -> int:
    """Can the side still take ``target`` tricks from here? 1 yes, 0 no, -1 out of budget
    (the position is then as it was).

    A depth-first alpha-beta on a boolean, written as a loop over ``frames`` (one row per
    ply) rather than by recursion, which numba cannot cache. Each answer comes with the
    cards whose ranks it rests on (a card that won a trick by rank, the cards of a quick
    trick or of a table entry), so that the table can keep it for every position that
    differs only in the small cards.
    """
    ply = root
    frames[ply, TARGET] = target
    entering = True
    result = False
    relevant = 0
    while True:
        if entering:
            opened = open_node(state, moves, saved, frames, table, ply)
            if opened == 2:
                descend(state, moves, saved, frames, ply)
                ply += 1
                continue
            if opened == 3:
                while ply > root:
                    ply -= 1
                    card = moves[ply, frames[ply, MOVE]]
                    undo(state, saved, ply, card, frames[ply, SEAT], frames[ply, WON])
                return -1
            result = opened == 1
            relevant = state[REL]
            entering = False
        if ply == root:
            state[REL] = relevant
            return 1 if result else 0
        ply -= 1  # back in the parent, with the child's result
        card = moves[ply, frames[ply, MOVE]]
        undo(state, saved, ply, card, frames[ply, SEAT], frames[ply, WON])
        relevant |= frames[ply, CONTRIBUTION]
        ours = frames[ply, OURS] == 1
        if result == ours:
            if frames[ply, BUCKET] != NOT_A_TRICK_START:
                frames[ply, KILLER] = card
            close_node(state, saved, frames, table, ply, result, relevant, card)
            continue
        frames[ply, RELEVANT] |= relevant
        if next_move(state, moves, frames, ply, card):
            descend(state, moves, saved, frames, ply)
            ply += 1
            entering = True
            continue
        result = not ours
        relevant = frames[ply, RELEVANT]
        if frames[ply, MERGED]:
            relevant |= merge_rests(state, frames[ply, SEAT], frames[ply, MERGED], relevant)
        close_node(state, saved, frames, table, ply, result, relevant, -1)


@compiled()
def merge_rests(state: np.ndarray, seat: int, merged: int, relevant: int) -> int:
    """What else a refutation of every move rests on when ``merged`` cards were left out
    as equivalent to the card below them (their representative).

    A left-out card fails as its representative did if both lie below every card of their
    group the refutations rested on (the argument of :func:`next_move`), or if those cards
    reach down to the representative (then the two are adjacent in every position the
    table matches). Only when the lowest such card is the left-out card or one between
    them must the representative be added."""
    hand = state[HANDS + seat]
    trumps = state[TRUMPS]
    extra = 0
    rest = merged
    while rest:
        card = bit_length(rest) - 1
        rest ^= 1 << card
        group = group_of(card, trumps)
        mattered = relevant & group
        if mattered == 0:
            continue
        lowest = bit_length(mattered & -mattered) - 1
        if lowest > card:
            continue
        below = hand & group & ((1 << card) - 1) & ~merged
        representative = bit_length(below) - 1
        if lowest > representative:
            extra |= 1 << representative
    return extra


@compiled(inline="always")
def next_move(
    state: np.ndarray, moves: np.ndarray, frames: np.ndarray, ply: int, card: int
) -> bool:
    """Move on from ``card``, which failed, to the next move worth trying; False if none.

    A refutation rests only on the cards in ``frames[ply, RELEVANT]``. If ``card`` is below
    every one of them in its group, nothing in the refutation compared it with anything, so
    the same refutation answers every other card of the hand in that group below them too:
    those are skipped (DDS's "lowest win"). Never a Blooper, whose lead is like no other (P4).
    """
    if card < LITTLE:
        group = group_of(card, state[TRUMPS]) & SUIT_ONLY
        mattered = frames[ply, RELEVANT] & group
        below = mattered & -mattered  # the lowest card that mattered (0: none did)
        if below == 0 or card < bit_length(below) - 1:
            frames[ply, SKIP] |= group & (below - 1)  # the whole group when none mattered
    move = frames[ply, MOVE] + 1
    count = frames[ply, COUNT]
    while move < count:
        select(moves, ply, move, count)
        if not (frames[ply, SKIP] >> moves[ply, move]) & 1:
            break
        move += 1
    frames[ply, MOVE] = move
    return move < count


@compiled()
def value(
    state: np.ndarray,
    moves: np.ndarray,
    saved: np.ndarray,
    frames: np.ndarray,
    table: np.ndarray,
    ply: int,
    guess: int,
) -> int:
    """The tricks the side takes from here, found by null-window searches from ``guess``;
    -1 if the node budget ran out."""
    left = tricks_left(state)
    low = 0
    high = left
    g = min(max(guess, 1), left)
    while low < high:
        reached = reach(state, moves, saved, frames, table, ply, g)
        if reached < 0:
            return -1
        if reached:
            low = g
            g = g + 1
        else:
            high = g - 1
            g = g - 1
        if g > high:
            g = high
        if g <= low:
            g = low + 1
    return low


@compiled()
def card_values(
    state: np.ndarray,
    moves: np.ndarray,
    saved: np.ndarray,
    frames: np.ndarray,
    table: np.ndarray,
    cards: np.ndarray,
    values: np.ndarray,
) -> int:
    """For each legal card of the player on turn, the side's tricks from the current trick on
    if it is played; the side must be the player's. Fills ``cards`` and ``values`` and returns
    how many, or -1 if the node budget ran out."""
    seat = state[TO_MOVE]
    hand = state[HANDS + seat]
    others = live_cards(state) & ~hand
    trumps = state[TRUMPS]
    rest = legal(state)
    count = 0
    guess = (popcount(hand) + 1) // 2
    previous = -1
    previous_value = 0
    while rest:
        low = rest & -rest
        rest ^= low
        card = bit_length(low) - 1
        cards[count] = card
        if equivalent(card, previous, trumps, others):
            values[count] = previous_value  # equivalent to the card before it
            previous = card
            count += 1
            continue
        won = play(state, saved, 0, card)
        gain = won if won > 0 else 0
        # ply 1 as an int64, not a literal: the same compiled value() as tricks() calls
        found = value(state, moves, saved, frames, table, np.int64(1), guess - gain)
        undo(state, saved, 0, card, seat, won)
        if found < 0:
            return -1
        result = gain + found
        values[count] = result
        guess = result
        previous = card if card < LITTLE else -1
        previous_value = result
        count += 1
    return count
