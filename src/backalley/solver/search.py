"""The solver's search, compiled by numba: a null-window alpha-beta over one deal in play.

Everything lives in flat int64 arrays so that numba can compile it to machine code:

- ``state``: the position (fields at the offsets below) and a node counter;
- ``moves``: one row of candidate cards per ply, so the search allocates nothing;
- ``saved``: one row per ply of what undoing a completed trick needs, and the table key;
- ``keys`` / ``bounds``: the transposition table, filled at trick starts only, keyed on
  the hands *up to relative rank* (only the order of the cards still out matters) together
  with everything else that decides the outcome, so that entries stay true across searches
  and across deals: a bot solving many sampled deals reuses the endings they share.

Play follows :func:`backalley.engine.legal_cards` (P2–P4) exactly; tests check the two
against each other and against DDS.
"""

from __future__ import annotations

import numpy as np
from numba import njit

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
LIMIT = 38  #: give up once NODES reaches it (a bot's budget)
HANDS = 10  #: 4 hands
NEXT = 14  #: 4 next seats, clockwise among the seats in play
SIDES = 18  #: 4 sides
FREE_LEAD = 22  #: 4 flags: the board exception of P3 (c)
TRICK = 26  #: 4 cards of the trick in progress
WIN_CARD = 30  #: 4: the card winning the trick after each card played
WIN_SEAT = 34  #: 4: its seat
STATE_SIZE = 39

# Columns of ``frames``, one row per ply of the search.
TARGET = 0  #: tricks the side must still take from this node
SLOT = 1  #: table slot (trick starts), else -1
COUNT = 2  #: moves generated
MOVE = 3  #: the move being tried
WON = 4  #: what playing it returned (see play)
SEAT = 5  #: the seat on turn
OURS = 6  #: 1 if that seat is on the side
LEFT = 7  #: tricks left
FRAME_SIZE = 8

MAX_PLY = 64
MOVE_ROW = 16
TABLE_BITS = 19
TABLE_SIZE = 1 << TABLE_BITS
KEY_WORDS = 5

LITTLE = 52
BIG = 53
SUIT = 0x1FFF


def new_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fresh work arrays: moves, saved tricks, frames, table keys, table bounds."""
    return (
        np.zeros((MAX_PLY, 2 * MOVE_ROW), dtype=np.int64),
        np.zeros((MAX_PLY, FRAME_SIZE), dtype=np.int64),
        np.zeros((MAX_PLY, 11 + KEY_WORDS), dtype=np.int64),
        np.zeros((TABLE_SIZE, KEY_WORDS), dtype=np.int64),
        np.zeros((TABLE_SIZE, 3), dtype=np.int64),
    )


@njit(cache=True, inline="always")
def popcount(x: int) -> int:
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56  # at most 64: the sign bit stays clear


@njit(cache=True, inline="always")
def bit_length(x: int) -> int:
    x |= x >> 1
    x |= x >> 2
    x |= x >> 4
    x |= x >> 8
    x |= x >> 16
    x |= x >> 32
    return popcount(x)


@njit(cache=True, inline="always")
def group_of(card: int, trumps: int) -> int:
    """The cards ranked against ``card``: its suit, or every trump."""
    if (trumps >> card) & 1:
        return trumps
    return SUIT << (13 * (card // 13))


@njit(cache=True, inline="always")
def beats(card: int, best: int, trumps: int, led_group: int) -> bool:
    """Does ``card`` beat ``best``, the card winning the trick so far (P5)?"""
    if (trumps >> best) & 1:
        return ((trumps >> card) & 1) == 1 and card > best
    if (trumps >> card) & 1:
        return True
    return ((led_group >> card) & 1) == 1 and card > best


@njit(cache=True)
def legal(state: np.ndarray) -> int:
    """The cards the player on turn may play: P2, P3 and P4, as engine.legal_cards."""
    seat = state[TO_MOVE]
    hand = state[HANDS + seat]
    trumps = state[TRUMPS]
    if state[TRICK_LEN] == 0:
        if trumps and not (state[BROKEN] or state[FREE_LEAD + seat]):
            rest = hand & ~trumps
            return rest if rest else hand  # P3 (b): nothing but trumps
        return hand
    led = state[TRICK]
    if led >= LITTLE and state[BLOOPER]:
        held = hand & trumps
        if held:  # P4: highest trump after the Big Blooper, lowest after the Little
            if led == BIG:
                return 1 << (bit_length(held) - 1)
            return held & -held
        return hand
    follow = hand & group_of(led, trumps)
    return follow if follow else hand


@njit(cache=True)
def play(state: np.ndarray, saved: np.ndarray, ply: int, card: int) -> int:
    """Play ``card`` for the player on turn: 1 if it completes a trick the side wins, 0 if it
    completes one the side loses, -1 if the trick goes on."""
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
    row = saved[ply]
    row[0] = state[LEADER]
    row[1] = state[BROKEN]
    for j in range(i):
        row[2 + j] = state[TRICK + j]
        row[5 + j] = state[WIN_CARD + j]
        row[8 + j] = state[WIN_SEAT + j]
    for j in range(i + 1):
        if (trumps >> state[TRICK + j]) & 1:
            state[BROKEN] = 1
    state[TRICK_LEN] = 0
    state[LEADER] = win_seat
    state[TO_MOVE] = win_seat
    return 1 if state[SIDES + win_seat] == state[SIDE] else 0


@njit(cache=True)
def undo(state: np.ndarray, saved: np.ndarray, ply: int, card: int, seat: int, won: int) -> None:
    """Take back ``card``, played by ``seat``; ``won`` is what :func:`play` returned."""
    if won < 0:
        state[TRICK_LEN] -= 1
    else:
        row = saved[ply]
        state[LEADER] = row[0]
        state[BROKEN] = row[1]
        i = state[SEATS] - 1
        for j in range(i):
            state[TRICK + j] = row[2 + j]
            state[WIN_CARD + j] = row[5 + j]
            state[WIN_SEAT + j] = row[8 + j]
        state[TRICK_LEN] = i
    state[HANDS + seat] |= 1 << card
    state[TO_MOVE] = seat


@njit(cache=True)
def live_cards(state: np.ndarray) -> int:
    live = 0
    for seat in range(4):
        live |= state[HANDS + seat]
    for j in range(state[TRICK_LEN]):
        live |= 1 << state[TRICK + j]
    return live


@njit(cache=True)
def generate(state: np.ndarray, moves: np.ndarray, ply: int, hint: int) -> int:
    """Write the legal cards of the player on turn to ``moves[ply]``, one of each set of
    equivalent cards (adjacent in their group once the other live cards are counted), the
    promising ones first; return how many."""
    seat = state[TO_MOVE]
    trumps = state[TRUMPS]
    hand = state[HANDS + seat]
    others = live_cards(state) & ~hand
    row = moves[ply, :MOVE_ROW]
    count = 0
    previous = -1
    rest = legal(state)
    while rest:
        low = rest & -rest
        rest ^= low
        card = bit_length(low) - 1
        if card < LITTLE and previous >= 0:
            group = group_of(card, trumps)
            if (group >> previous) & 1:
                between = ((low - (1 << (previous + 1))) & group) & others
                if between == 0:
                    previous = card  # equivalent to the card kept before it
                    continue
        row[count] = card
        count += 1
        previous = card if card < LITTLE else -1  # a Blooper's lead is like no other (P4)
    # The cards are ascending in row[:count]: score each (in the scratch half), then sort.
    scores = moves[ply, MOVE_ROW:]
    for k in range(count):
        scores[k] = move_score(state, row[k], others)
        if row[k] == hint:
            scores[k] = 1000
    for k in range(1, count):
        card = row[k]
        score = scores[k]
        j = k - 1
        while j >= 0 and scores[j] < score:
            row[j + 1] = row[j]
            scores[j + 1] = scores[j]
            j -= 1
        row[j + 1] = card
        scores[j + 1] = score
    return count


@njit(cache=True)
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


@njit(cache=True)
def safe_from_later(state: np.ndarray, card: int, seat: int, led_group: int) -> bool:
    """Would ``card``, winning the trick now, stay ahead of every opponent still to play?"""
    trumps = state[TRUMPS]
    later = state[NEXT + seat]
    for _ in range(state[SEATS] - 1 - state[TRICK_LEN]):
        if state[SIDES + later] != state[SIDES + seat]:
            threat = best_threat(state, later, led_group)
            if threat >= 0 and beats(threat, card, trumps, led_group):
                return False
        later = state[NEXT + later]
    return True


@njit(cache=True)
def move_score(state: np.ndarray, card: int, others: int) -> int:
    """How promising ``card`` is for the player on turn (higher: try it sooner)."""
    seat = state[TO_MOVE]
    trumps = state[TRUMPS]
    group = group_of(card, trumps)
    rank = card - 13 * (card // 13) if card < LITTLE else 13 + card - LITTLE
    if state[TRICK_LEN] == 0:
        out = group & others
        if out >> card == 0:
            return 100 + rank  # a winner: cash it
        top = bit_length(out) - 1
        partner_top = False
        for mate in range(4):
            if mate != seat and state[SIDES + mate] == state[SIDES + seat]:
                partner_top = partner_top or (state[HANDS + mate] >> top) & 1 == 1
        if partner_top:
            return 80 - rank  # low to partner's winner
        return 50 - rank  # low from a suit the other side controls
    i = state[TRICK_LEN] - 1
    win_card = state[WIN_CARD + i]
    win_seat = state[WIN_SEAT + i]
    led_group = group_of(state[TRICK], trumps)
    wins = beats(card, win_card, trumps, led_group)
    ruff = 20 if (trumps >> card) & 1 and not (led_group & trumps) else 0
    if state[SIDES + win_seat] == state[SIDES + seat] and safe_from_later(
        state, win_card, win_seat, led_group
    ):
        return 10 - rank if wins else 100 - rank - ruff  # partner has it: play low
    if wins and safe_from_later(state, card, seat, led_group):
        return 90 - rank - ruff  # the cheapest sure winner
    if wins:
        return 30 - rank - ruff
    return 60 - rank - ruff  # low


@njit(cache=True)
def quick_tricks(state: np.ndarray) -> int:
    """Tricks the leader can cash at once: cards above every other card out in their group
    (so no partner is forced to overtake), as many as the other side must follow to before
    a hand of it could ruff."""
    leader = state[LEADER]
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
    if trumps and (state[BROKEN] or state[FREE_LEAD + leader] or (hand & ~trumps) == 0):
        sure += popcount((hand & trumps) >> bit_length(others & trumps))
    for suit in range(4):
        group = (SUIT << (13 * suit)) & ~trumps
        if group == 0:
            continue
        cash = popcount((hand & group) >> bit_length(others & group))
        if cash and theirs & trumps:
            # An opponent with trumps follows as long as it holds the suit, then may ruff.
            for seat in range(4):
                if state[SIDES + seat] != side and state[HANDS + seat] & trumps:
                    length = popcount(state[HANDS + seat] & group)
                    if length < cash:
                        cash = length
        sure += cash
    held = popcount(hand)
    return sure if sure < held else held


@njit(cache=True)
def trump_masters(state: np.ndarray, ours: bool) -> int:
    """Tricks a side (the side counted, or the other) is sure of from its top trumps: a trump
    above every trump of the other side wins the trick it is played to, and one hand's such
    trumps fall in different tricks."""
    trumps = state[TRUMPS]
    theirs = 0
    for seat in range(4):
        if (state[SIDES + seat] == state[SIDE]) != ours:
            theirs |= state[HANDS + seat]
    above = bit_length(theirs & trumps)
    best = 0
    for seat in range(4):
        if (state[SIDES + seat] == state[SIDE]) == ours:
            count = popcount((state[HANDS + seat] & trumps) >> above)
            if count > best:
                best = count
    return best


@njit(cache=True)
def key_of(state: np.ndarray, key: np.ndarray) -> int:
    """Fill ``key`` with the position at a trick start up to relative ranks; return its slot."""
    remaining = 0
    for seat in range(4):
        remaining |= state[HANDS + seat]
    packed0 = 0
    packed1 = 0
    packed2 = 0
    packed3 = 0
    place = 0
    rest = remaining
    while rest:
        low = rest & -rest
        rest ^= low
        if state[HANDS + 0] & low:
            packed0 |= 1 << place
        elif state[HANDS + 1] & low:
            packed1 |= 1 << place
        elif state[HANDS + 2] & low:
            packed2 |= 1 << place
        else:
            packed3 |= 1 << place
        place += 1
    meta = state[CONFIG]
    for suit in range(4):
        meta = (meta << 4) | popcount(remaining & (SUIT << (13 * suit)))
    meta = (((meta << 2) | (remaining >> LITTLE)) << 3) | (state[LEADER] << 1) | state[BROKEN]
    key[0] = packed0
    key[1] = packed1
    key[2] = packed2
    key[3] = packed3
    key[4] = meta
    mixed = np.uint64(0x9E3779B97F4A7C15)
    for word in range(KEY_WORDS):
        mixed = (mixed ^ np.uint64(key[word])) * np.uint64(0xBF58476D1CE4E5B9)
        mixed ^= mixed >> np.uint64(29)
    return np.int64(mixed >> np.uint64(64 - TABLE_BITS))


@njit(cache=True)
def same_key(keys: np.ndarray, slot: int, key: np.ndarray) -> bool:
    entry = keys[slot]
    return (
        entry[4] == key[4]
        and entry[0] == key[0]
        and entry[1] == key[1]
        and entry[2] == key[2]
        and entry[3] == key[3]
    )


@njit(cache=True)
def open_node(
    state: np.ndarray,
    moves: np.ndarray,
    saved: np.ndarray,
    keys: np.ndarray,
    bounds: np.ndarray,
    frames: np.ndarray,
    ply: int,
) -> int:
    """Enter the node at ``ply``: 1 or 0 when its answer is known at once (bounds, quick
    tricks, the table), 3 when the node budget is spent, else 2 with its moves generated
    and its frame filled."""
    target = frames[ply, TARGET]
    if target <= 0:
        return 1
    leader = state[LEADER]
    left = popcount(state[HANDS + leader]) + (1 if state[TRICK_LEN] else 0)
    if target > left:
        return 0
    if state[NODES] >= state[LIMIT]:
        return 3
    state[NODES] += 1
    slot = -1
    hint = -1
    if state[TRICK_LEN] == 0:
        sure = quick_tricks(state)
        if state[SIDES + leader] == state[SIDE]:
            if sure >= target:
                return 1
        elif left - sure < target:
            return 0
        if state[TRUMPS]:
            if trump_masters(state, True) >= target:
                return 1
            if left - trump_masters(state, False) < target:
                return 0
        key = saved[ply, 11:]
        slot = key_of(state, key)
        if same_key(keys, slot, key):
            if bounds[slot, 0] >= target:
                return 1
            if bounds[slot, 1] < target:
                return 0
            hint = bounds[slot, 2]
    seat = state[TO_MOVE]
    frames[ply, SLOT] = slot
    frames[ply, LEFT] = left
    frames[ply, SEAT] = seat
    frames[ply, OURS] = 1 if state[SIDES + seat] == state[SIDE] else 0
    frames[ply, COUNT] = generate(state, moves, ply, hint)
    frames[ply, MOVE] = 0
    return 2


@njit(cache=True)
def close_node(
    saved: np.ndarray,
    keys: np.ndarray,
    bounds: np.ndarray,
    frames: np.ndarray,
    ply: int,
    result: bool,
    best: int,
) -> None:
    """Leave the node at ``ply`` with its answer, kept in the table at a trick start."""
    slot = frames[ply, SLOT]
    if slot < 0:
        return
    key = saved[ply, 11:]
    target = frames[ply, TARGET]
    if not same_key(keys, slot, key):
        for word in range(KEY_WORDS):
            keys[slot, word] = key[word]
        bounds[slot, 0] = 0
        bounds[slot, 1] = frames[ply, LEFT]
        bounds[slot, 2] = -1
    if result:
        if target > bounds[slot, 0]:
            bounds[slot, 0] = target
    elif target - 1 < bounds[slot, 1]:
        bounds[slot, 1] = target - 1
    if best >= 0:
        bounds[slot, 2] = best


@njit(cache=True)
def descend(
    state: np.ndarray, moves: np.ndarray, saved: np.ndarray, frames: np.ndarray, ply: int
) -> None:
    """Play the current move of the node at ``ply`` and set the child's target."""
    won = play(state, saved, ply, moves[ply, frames[ply, MOVE]])
    frames[ply, WON] = won
    frames[ply + 1, TARGET] = frames[ply, TARGET] - (won if won > 0 else 0)


@njit(cache=True)
def reach(
    state: np.ndarray,
    moves: np.ndarray,
    saved: np.ndarray,
    keys: np.ndarray,
    bounds: np.ndarray,
    frames: np.ndarray,
    root: int,
    target: int,
) -> int:
    """Can the side still take ``target`` tricks from here? 1 yes, 0 no, -1 out of budget
    (the position is then as it was).

    A depth-first alpha-beta on a boolean, written as a loop over ``frames`` (one row per
    ply) rather than by recursion, which numba cannot cache.
    """
    ply = root
    frames[ply, TARGET] = target
    entering = True
    result = False
    while True:
        if entering:
            opened = open_node(state, moves, saved, keys, bounds, frames, ply)
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
            entering = False
        if ply == root:
            return 1 if result else 0
        ply -= 1  # back in the parent, with the child's result
        card = moves[ply, frames[ply, MOVE]]
        undo(state, saved, ply, card, frames[ply, SEAT], frames[ply, WON])
        ours = frames[ply, OURS] == 1
        if result == ours:
            close_node(saved, keys, bounds, frames, ply, result, card)
            continue
        frames[ply, MOVE] += 1
        if frames[ply, MOVE] < frames[ply, COUNT]:
            descend(state, moves, saved, frames, ply)
            ply += 1
            entering = True
            continue
        result = not ours
        close_node(saved, keys, bounds, frames, ply, result, -1)


@njit(cache=True)
def value(
    state: np.ndarray,
    moves: np.ndarray,
    saved: np.ndarray,
    frames: np.ndarray,
    keys: np.ndarray,
    bounds: np.ndarray,
    ply: int,
    guess: int,
) -> int:
    """The tricks the side takes from here, found by null-window searches from ``guess``;
    -1 if the node budget ran out."""
    left = popcount(state[HANDS + state[LEADER]]) + (1 if state[TRICK_LEN] else 0)
    low = 0
    high = left
    g = min(max(guess, 1), left)
    while low < high:
        reached = reach(state, moves, saved, keys, bounds, frames, ply, g)
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


@njit(cache=True)
def card_values(
    state: np.ndarray,
    moves: np.ndarray,
    saved: np.ndarray,
    frames: np.ndarray,
    keys: np.ndarray,
    bounds: np.ndarray,
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
        if card < LITTLE and previous >= 0:
            group = group_of(card, trumps)
            between = ((low - (1 << (previous + 1))) & group) & others
            if (group >> previous) & 1 and between == 0:
                values[count] = previous_value  # equivalent to the card before it
                previous = card
                count += 1
                continue
        won = play(state, saved, 0, card)
        gain = won if won > 0 else 0
        found = value(state, moves, saved, frames, keys, bounds, 1, guess - gain)
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
