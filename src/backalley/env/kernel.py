"""The rules as a compiled state machine over many games at once, for the research environment.

This is the engine (:mod:`backalley.engine`) again, in flat int64 arrays that numba compiles
to machine code: dealing (D1–D8), bidding (B1–B4), play (P1–P6), scoring (S1–S5) and the
end of the game with its tie-breakers (E1–E3), for every preset and option. It exists for
speed alone: the engine stays the statement of the rules, and ``tests/test_env.py`` replays
thousands of games played here through the engine, action by action, checking that both
agree on every legal action, every deal's points and every result.

State, per game *i* (the constants below name the columns):

- ``games[i, G_…]``: the game's and the deal's scalars (phase, dealer, hand size, masks …);
- ``seats[i, s, S_…]``: per seat: its hand, its bid, its P3 board exception, its voids …;
- ``sides[i, d, D_…]``: per side: the contract, tricks taken, score and the deal's points;
- ``decks[i, d % D]``: deal *d*'s 54 cards, hands first (seat by seat, in the order
  dealt), then the stock, top first, as a record writes them; with D > 1 the deals of a
  game are kept, for writing its record;
- ``tricks[i, t]``: the deal's tricks: the leader, then each seat's card (−1: none).

The rule set is ``config`` (``C_…``) and its hand sizes ``sizes``. Cards and actions are the
engine's ints: a card 0‥53, then ``PASS`` = 54 and one bid per number of tricks to ``BOARD``
= 68.

A deal is shuffled from a generator keyed by (game seed, counted deals, deal kind, attempt),
as the arena's duplicate dealer keys its deals: two games with the same seed are dealt the
same cards deal for deal, and a game's ``G_TURN`` turns every hand that many seats round (the
duplicate mode: the same cards played again with the seats turned).
"""

from __future__ import annotations

import numpy as np

from backalley.jit import SUIT, bit_length, compiled, group_of, popcount

NUM_CARDS = 54
LITTLE = 52
BIG = 53
JOKERS = (1 << LITTLE) | (1 << BIG)
HONOURS = 0xF << 9 | 0xF << 22 | 0xF << 35 | 0xF << 48  # J Q K A of each suit (D6)
PASS = 54
BOARD = 68
NUM_ACTIONS = 69
BOARD_VALUE = 14  #: a board bid, as ``S_BID`` holds it (a number bid holds its tricks)
BOARD_CONTRACT = 100  #: ``D_CONTRACT`` of a side that bid board
NO_CONTRACT = -1
MAX_TRICKS = 13

# Phases (the engine's Phase, DEAL never seen: a due deal is dealt at once).
BID, PLAY, OVER = 1, 2, 3
# Deal kinds (the engine's DealKind).
NORMAL, TIE_FOUR, TIE_THREE, TIE_TWO = 0, 1, 2, 3
# Why a deal was thrown in (G_THROWN).
KEPT, RENIG, ALL_PASS = 0, 1, 2

# config
C_PLAYERS = 0
C_SIDES = 1
C_JOKER = 2  #: 0 no_trump (D4), 1 turn_again (D5), 2 lone_joker (D8)
C_RENIG = 3  #: smallest hand checked for a renig (D6), −1 for none
C_ALL_PASS = 4  #: 0 redeal, 1 play, 2 redeal_same (D7)
C_ALL_PASS_LIMIT = 5  #: −1 for no limit
C_MAX_BID = 6  #: 0 hand_minus_one, 1 hand, 2 hand_cap_12 (B1)
C_TIE_LEADER = 7  #: 0 last, 1 first (P1)
C_LEADS_TRUMP = 8  #: 0 bidder, 1 side, 2 off (P3)
C_BLOOPER = 9  #: P4's reach: engine.NO_FORCE, FORCE_ALL, FORCE_OPPONENTS
C_MULTIPLIER = 10  #: 0 none, 1 board level, 2 doubling (S3)
C_TIE_BREAKER = 11  #: E2, E3
C_CAP = 12  #: B3 contract_cap
C_CONTRACT_POINTS = 13  #: S1
C_ZERO = 14  #: 0 nothing, 1 tricks (S2)
C_RAINBOW = 15  #: the hand size paying rainbows (S5), −1 for none
C_DEALS = 16  #: counted deals in a game (len(sizes))
C_ONE_DEAL = 17  #: an episode is one counted deal, its hand size drawn from ``sizes``
C_REWARD = 18  #: 0 a deal's points as scored, 1 ±1 for the game's result
C_SIZE = 19

# games[i, …]
G_PHASE = 0
G_DEALER = 1
G_SIZE = 2  #: hand size
G_KIND = 3
G_COUNTED = 4  #: counted deals scored
G_DEAL_NUMBER = 5  #: deals dealt, thrown in included, minus one
G_TO_MOVE = 6
G_LEAD = 7  #: the seat that led the trick in progress
G_IN_TRICK = 8  #: cards in the trick in progress
G_TRICK = 9  #: tricks finished this deal
G_TRUMPS = 10  #: every trump, as a mask
G_FOLLOW = 11  #: what follows the lead of the trick in progress
G_BROKEN = 12  #: P3 (a)
G_LEVEL = 13  #: board level (B4)
G_BIDS = 14  #: bids made this deal
G_TRUMP = 15  #: the trump suit, −1 for none
G_LONE = 16  #: D8's lone joker, −1 for none
G_TURNED = 17  #: how many stock cards lie face up (the turn-up and jokers set aside, D5)
G_SHOWN_SEAT = 18  #: D4: the seat that showed the other joker, −1 for none
G_SHOWN = 19  #: that joker
G_DRAWN = 20  #: the card it drew
G_SEATS = 21  #: the seats dealt in, as a mask of seats
G_ACTIVE = 22  #: how many
G_TIE_KIND = 23  #: the tie-breaker due, −1 for none
G_TIE_SEATS = 24
G_WINNER = 25  #: the winning side; −1 a draw, −2 not over
G_OVER_RULE = 26  #: 1 E1, 2 E2, 3 E3
G_SEED = 27
G_ATTEMPT = 28  #: deals dealt at this counted deal and kind (keys the shuffle)
G_TURN = 29  #: duplicate: seats the hands are turned by
G_PLAYED = 30  #: the cards played this deal, as a mask
G_LEADER = 31  #: the deal's opening leader, −1 before play
G_THROWN = 32  #: why the last deal was thrown in
G_RUN = 33  #: all-pass throw-ins in a row just before this deal
G_FIRST_DEALER = 34
G_LAST_TRICK = 35  #: the trick after which the deal is scored (0: a tie-breaker)
G_ONE_SIZE = 36  #: one-deal episodes: this episode's hand size
G_KEY = 37  #: the counted deals when the last deal was dealt (with G_KIND, keys G_ATTEMPT)
GAME_FIELDS = 38

# seats[i, s, …]
S_HAND = 0
S_BID = 1  #: −1 none yet, 0 pass, 1‥13 tricks, 14 board
S_FREE = 2  #: P3 (c): may lead trump before trumps are broken
S_VOIDS = 3  #: bit k: shown void in suit k, bit 4: in trumps
S_CARD = 4  #: its card in the trick in progress, −1 for none
S_RAINBOW = 5
S_DEALT = 6  #: the hand as dealt (after a D4 exchange)
S_ORDER = 7  #: its place in the bidding, from the dealer's left
S_SIZE = 8

# sides[i, d, …]
D_CONTRACT = 0  #: NO_CONTRACT, a number of tricks, or BOARD_CONTRACT
D_TRICKS = 1
D_SCORE = 2
D_POINTS = 3  #: the last deal scored
D_SIZE = 4

MASK64 = np.uint64(0xFFFFFFFFFFFFFFFF)


@compiled(inline="always")
def mix(x: np.uint64) -> np.uint64:
    """splitmix64's finaliser: a well-spread 64-bit hash of ``x``."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@compiled(inline="always")
def key(seed: int, a: int, b: int, c: int) -> np.uint64:
    """The generator state for (seed, a, b, c)."""
    x = mix(np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15))
    x = mix(x ^ np.uint64(a + 1))
    x = mix(x ^ np.uint64((b + 1) * 0x10001))
    return mix(x ^ np.uint64((c + 1) * 0x100000001))


@compiled(inline="always")
def below(state: np.uint64, n: int) -> tuple[np.uint64, int]:
    """The splitmix64 generator ``state`` moved on, and a uniform integer below ``n`` drawn
    from it (Lemire's multiply-shift: 32 random bits, a bias under 2⁻²⁶)."""
    state = state + np.uint64(0x9E3779B97F4A7C15)
    x = mix(state)
    return state, int((x >> np.uint64(32)) * np.uint64(n) >> np.uint64(32))


@compiled(inline="always")
def side_of(config: np.ndarray, seat: int) -> int:
    return seat if config[C_PLAYERS] == 3 else seat % 2


@compiled(inline="always")
def next_in(games: np.ndarray, i: int, seat: int, players: int) -> int:
    """The next seat clockwise among those dealt in (C4)."""
    nxt = (seat + 1) % players
    while not (games[i, G_SEATS] >> nxt) & 1:
        nxt = (nxt + 1) % players
    return nxt


@compiled(inline="always")
def trump_cards(trump: int, lone: int) -> int:
    """Every trump (C3, D8): the suit and both jokers, the lone joker, or none."""
    if trump < 0:
        return 0 if lone < 0 else 1 << lone
    return (SUIT << (13 * trump)) | JOKERS


@compiled(inline="always")
def legal_cards(hand: int, led: int, follow: int, trumps: int, may_lead: bool, forces: bool) -> int:
    """engine.legal_cards compiled: P2, P3 and P4."""
    if led < 0:
        if trumps != 0 and not may_lead:
            rest = hand & ~trumps
            return rest if rest != 0 else hand
        return hand
    if led >= LITTLE and forces:
        held = hand & trumps
        if held != 0:
            if led == BIG:
                return 1 << (bit_length(held) - 1)
            return held & -held
        return hand
    same = hand & follow
    return same if same != 0 else hand


@compiled(inline="always")
def forces(config: np.ndarray, games: np.ndarray, i: int, seat: int, led: int) -> bool:
    """engine.blooper_forces_seat: does the Blooper ``led`` force ``seat``'s trump (P4)?"""
    mode = config[C_BLOOPER]
    if mode == 1:
        return led >= LITTLE
    if mode == 2 and led == BIG:
        return side_of(config, seat) != side_of(config, games[i, G_LEAD])
    return False


@compiled(inline="always")
def legal_mask(config, games, seats, i) -> int:
    """The cards the player on turn may play, as a mask."""
    seat = games[i, G_TO_MOVE]
    led = -1
    if games[i, G_IN_TRICK] > 0:
        led = seats[i, games[i, G_LEAD], S_CARD]
    may_lead = games[i, G_BROKEN] != 0 or seats[i, seat, S_FREE] != 0
    force = led >= LITTLE and forces(config, games, i, seat, led)
    return legal_cards(
        seats[i, seat, S_HAND], led, games[i, G_FOLLOW], games[i, G_TRUMPS], may_lead, force
    )


@compiled(inline="always")
def top_bid(config: np.ndarray, size: int) -> int:
    """The highest number bid (B1)."""
    top = size - 1 if config[C_MAX_BID] == 0 else size
    if config[C_MAX_BID] == 2 and top > 12:
        top = 12
    return top


@compiled()
def write_mask(config, games, seats, i, mask) -> None:
    """The legal actions of game ``i`` as 0/1 into ``mask`` (every 0 when it is over)."""
    mask[:] = 0
    phase = games[i, G_PHASE]
    if phase == PLAY:
        legal = legal_mask(config, games, seats, i)
        while legal != 0:
            low = legal & -legal
            mask[bit_length(low) - 1] = 1
            legal ^= low
    elif phase == BID:
        mask[PASS] = 1
        for k in range(1, top_bid(config, games[i, G_SIZE]) + 1):
            mask[PASS + k] = 1
        mask[BOARD] = 1


@compiled()
def is_legal(config, games, seats, i, action) -> bool:
    phase = games[i, G_PHASE]
    if phase == PLAY:
        return 0 <= action < NUM_CARDS and (legal_mask(config, games, seats, i) >> action) & 1 == 1
    if phase == BID:
        if action in (PASS, BOARD):
            return True
        return PASS < action <= PASS + top_bid(config, games[i, G_SIZE])
    return False


# ---------------------------------------------------------------------- dealing


@compiled()
def deal(config, sizes, games, seats, sides, decks, tricks, i) -> None:
    """Deal the due deal of game ``i`` (D1–D8) and open its bidding (or its play, in a
    tie-breaker); a deal thrown in for a renig (D6) is dealt again at once."""
    players = config[C_PLAYERS]
    while True:
        kind = NORMAL
        if games[i, G_TIE_KIND] >= 0:
            kind = games[i, G_TIE_KIND]
            size = 13
            members = games[i, G_TIE_SEATS]
        else:
            size = games[i, G_ONE_SIZE] if config[C_ONE_DEAL] else sizes[games[i, G_COUNTED]]
            members = (1 << players) - 1
        games[i, G_TIE_KIND] = -1
        # D1: the first dealer at random, then the dealer's left (the same dealer again after
        # a renig, or an all-pass deal under "redeal_same").
        if games[i, G_DEAL_NUMBER] < 0:
            dealer = games[i, G_FIRST_DEALER]
        elif games[i, G_THROWN] == RENIG or (
            games[i, G_THROWN] == ALL_PASS and config[C_ALL_PASS] == 2
        ):
            dealer = games[i, G_DEALER]
        else:
            dealer = (games[i, G_DEALER] + 1) % players
        if games[i, G_THROWN] == ALL_PASS:
            games[i, G_RUN] += 1
        else:
            games[i, G_RUN] = 0
        games[i, G_THROWN] = KEPT
        # the shuffle's key: (counted deals, kind, attempt), as the arena's duplicate dealer
        same = games[i, G_KEY] == games[i, G_COUNTED] and games[i, G_KIND] == kind
        games[i, G_ATTEMPT] = games[i, G_ATTEMPT] + 1 if same else 0
        games[i, G_KEY] = games[i, G_COUNTED]
        games[i, G_DEAL_NUMBER] += 1
        slot = games[i, G_DEAL_NUMBER] % decks.shape[1]
        shuffle(games, decks, i, slot, kind, players, members, size)
        games[i, G_DEALER] = dealer
        games[i, G_SIZE] = size
        games[i, G_KIND] = kind
        games[i, G_SEATS] = members
        games[i, G_ACTIVE] = popcount(members)
        games[i, G_IN_TRICK] = 0
        games[i, G_TRICK] = 0
        games[i, G_BROKEN] = 0
        games[i, G_LEVEL] = 0
        games[i, G_BIDS] = 0
        games[i, G_PLAYED] = 0
        games[i, G_LEADER] = -1
        games[i, G_SHOWN_SEAT] = -1
        games[i, G_SHOWN] = -1
        games[i, G_DRAWN] = -1
        games[i, G_LAST_TRICK] = size if kind == NORMAL else 0
        at = 0
        for s in range(4):
            seats[i, s, S_HAND] = 0
            seats[i, s, S_BID] = -1
            seats[i, s, S_FREE] = 0
            seats[i, s, S_VOIDS] = 0
            seats[i, s, S_CARD] = -1
            seats[i, s, S_RAINBOW] = 0
            seats[i, s, S_ORDER] = (s - dealer - 1) % players if s < players else -1
            if s < players and (members >> s) & 1:
                hand = 0
                for k in range(size):
                    hand |= 1 << decks[i, slot, at + k]
                at += size
                seats[i, s, S_HAND] = hand
        for d in range(3):
            sides[i, d, D_CONTRACT] = NO_CONTRACT
            sides[i, d, D_TRICKS] = 0
        for t in range(MAX_TRICKS):
            for k in range(5):
                tricks[i, t, k] = -1
        turn_up(config, games, seats, decks, i, slot, at, players)
        games[i, G_TRUMPS] = trump_cards(games[i, G_TRUMP], games[i, G_LONE])
        for s in range(players):
            seats[i, s, S_DEALT] = seats[i, s, S_HAND]
        if kind != NORMAL:
            # E2, E3: no bidding; the left of the dealer leads, or the first seat dealt in after.
            leader = (dealer + 1) % players
            while not (members >> leader) & 1:
                leader = (leader + 1) % players
            games[i, G_LEADER] = leader
            games[i, G_LEAD] = leader
            games[i, G_TO_MOVE] = leader
            games[i, G_PHASE] = PLAY
            return
        if config[C_RENIG] >= 0 and size >= config[C_RENIG]:
            strong = HONOURS | games[i, G_TRUMPS]
            renig = False
            for s in range(players):
                if seats[i, s, S_HAND] & strong == 0:
                    renig = True
            if renig:  # D6: thrown in, and the same dealer deals again
                games[i, G_THROWN] = RENIG
                continue
        games[i, G_PHASE] = BID
        games[i, G_TO_MOVE] = (dealer + 1) % players
        return


@compiled()
def shuffle(games, decks, i, slot, kind, players, members, size) -> None:
    """The deal's 54 cards into ``decks[i]``: shuffled (Fisher–Yates) from the generator
    keyed by this deal, then each seat's hand turned ``G_TURN`` seats round."""
    state = key(games[i, G_SEED], games[i, G_COUNTED], kind, games[i, G_ATTEMPT])
    deck = decks[i, slot]
    for c in range(NUM_CARDS):
        deck[c] = c
    for c in range(NUM_CARDS - 1, 0, -1):
        state, j = below(state, c + 1)
        t = deck[c]
        deck[c] = deck[j]
        deck[j] = t
    turn = games[i, G_TURN] % players
    if turn == 0 or popcount(members) != players:
        return
    # seat s holds what seat s − turn would have held: the hands rotated right by ``turn``
    # hands, in place (three reversals)
    n = players * size
    by = turn * size
    reverse(deck, 0, n)
    reverse(deck, 0, by)
    reverse(deck, by, n)


@compiled(inline="always")
def reverse(deck, start, stop) -> None:
    """Reverse ``deck[start:stop]`` in place."""
    stop -= 1
    while start < stop:
        t = deck[start]
        deck[start] = deck[stop]
        deck[stop] = t
        start += 1
        stop -= 1


@compiled()
def turn_up(config, games, seats, decks, i, slot, at, players) -> None:
    """Turn up the stock's top card and settle the trump suit (D3, D4, D5, D8)."""
    deck = decks[i, slot]
    top = deck[at]
    games[i, G_LONE] = -1
    games[i, G_TURNED] = 1
    mode = config[C_JOKER]
    if mode == 2:  # D8: the other joker is the only trump
        if top < LITTLE:
            games[i, G_TRUMP] = top // 13
        else:
            games[i, G_TRUMP] = -1
            games[i, G_LONE] = BIG if top == LITTLE else LITTLE
        return
    if mode == 0:  # D4: no trump; the other joker is shown and replaced from the stock
        if top < LITTLE:
            games[i, G_TRUMP] = top // 13
            return
        games[i, G_TRUMP] = -1
        other = BIG if top == LITTLE else LITTLE
        for s in range(players):
            hand = seats[i, s, S_HAND]
            if (hand >> other) & 1:
                drawn = deck[at + 1]
                seats[i, s, S_HAND] = (hand ^ (1 << other)) | (1 << drawn)
                games[i, G_SHOWN_SEAT] = s
                games[i, G_SHOWN] = other
                games[i, G_DRAWN] = drawn
        return
    k = at  # D5: jokers turned up are set aside and the next card turned
    while k < NUM_CARDS and deck[k] >= LITTLE:
        k += 1
    games[i, G_TURNED] = k - at + 1 if k < NUM_CARDS else k - at
    games[i, G_TRUMP] = deck[k] // 13 if k < NUM_CARDS else -1


# ---------------------------------------------------------------------- acting


@compiled()
def act(config, sizes, games, seats, sides, decks, tricks, i, action, rewards) -> None:
    """Apply ``action`` (legal: see :func:`is_legal`) for the player on turn in game ``i``;
    rewards of the deals it ends are added to ``rewards[i]``."""
    players = config[C_PLAYERS]
    seat = games[i, G_TO_MOVE]
    if games[i, G_PHASE] == BID:
        value = action - PASS
        seats[i, seat, S_BID] = value
        side = side_of(config, seat)
        if value == BOARD_VALUE:
            sides[i, side, D_CONTRACT] = BOARD_CONTRACT
            games[i, G_LEVEL] += 1
        elif value > 0 and sides[i, side, D_CONTRACT] != BOARD_CONTRACT:
            total = value
            if sides[i, side, D_CONTRACT] != NO_CONTRACT:
                total += sides[i, side, D_CONTRACT]
            if config[C_CAP] and total > games[i, G_SIZE]:
                total = games[i, G_SIZE]  # B3
            sides[i, side, D_CONTRACT] = total
        games[i, G_BIDS] += 1
        if games[i, G_BIDS] < players:
            games[i, G_TO_MOVE] = (seat + 1) % players
            return
        end_bidding(config, sizes, games, seats, sides, decks, tricks, i, rewards)
        return
    # a card
    seats[i, seat, S_HAND] ^= 1 << action
    seats[i, seat, S_CARD] = action
    games[i, G_PLAYED] |= 1 << action
    trick = games[i, G_TRICK]
    tricks[i, trick, 1 + seat] = action
    count = games[i, G_IN_TRICK] + 1
    games[i, G_IN_TRICK] = count
    if count == 1:
        games[i, G_LEAD] = seat
        tricks[i, trick, 0] = seat
        games[i, G_FOLLOW] = group_of(action, games[i, G_TRUMPS])
    elif not (games[i, G_FOLLOW] >> action) & 1:  # P2: a void shown
        led = seats[i, games[i, G_LEAD], S_CARD]
        trumps = games[i, G_TRUMPS]
        suit = 4 if games[i, G_FOLLOW] == trumps else led // 13
        seats[i, seat, S_VOIDS] |= 1 << suit
    if count < games[i, G_ACTIVE]:
        games[i, G_TO_MOVE] = next_in(games, i, seat, players)
        return
    end_trick(config, sizes, games, seats, sides, decks, tricks, i, rewards)


@compiled()
def end_bidding(config, sizes, games, seats, sides, decks, tricks, i, rewards) -> None:
    """P1 picks the leader, or D7 throws the deal in; P3's board exception; S5's rainbows."""
    players = config[C_PLAYERS]
    dealer = games[i, G_DEALER]
    first = (dealer + 1) % players
    top = 0
    for s in range(players):
        if seats[i, s, S_BID] > top:
            top = seats[i, s, S_BID]
    if top == 0:
        limit = config[C_ALL_PASS_LIMIT]
        reached = limit >= 0 and games[i, G_RUN] >= limit
        if config[C_ALL_PASS] != 1 and not reached:
            games[i, G_THROWN] = ALL_PASS
            deal(config, sizes, games, seats, sides, decks, tricks, i)
            return
        leader = first
    else:
        leader = -1
        last_board = top == BOARD_VALUE and config[C_TIE_LEADER] == 0
        for k in range(players):
            s = (first + k) % players
            if seats[i, s, S_BID] == top and (leader < 0 or last_board):
                leader = s
    rule = config[C_LEADS_TRUMP]
    for s in range(players):
        bid_board = seats[i, s, S_BID] == BOARD_VALUE
        side_board = sides[i, side_of(config, s), D_CONTRACT] == BOARD_CONTRACT
        if (rule == 0 and bid_board) or (rule == 1 and side_board):
            seats[i, s, S_FREE] = 1
    games[i, G_LEADER] = leader
    games[i, G_LEAD] = leader
    games[i, G_TO_MOVE] = leader
    games[i, G_PHASE] = PLAY
    if config[C_RAINBOW] == games[i, G_SIZE]:
        trump = games[i, G_TRUMP]
        for s in range(players):
            hand = seats[i, s, S_HAND]
            if trump >= 0 and hand & JOKERS:
                hand |= SUIT << (13 * trump)
            every = True
            for suit in range(4):
                if (hand >> (13 * suit)) & SUIT == 0:
                    every = False
            seats[i, s, S_RAINBOW] = 1 if every else 0


@compiled()
def end_trick(config, sizes, games, seats, sides, decks, tricks, i, rewards) -> None:
    """P5: the highest trump wins, else the highest card of the suit led; then the next
    trick, the deal's score (S1–S5) or a tie-breaker's end (E2, E3)."""
    players = config[C_PLAYERS]
    trumps = games[i, G_TRUMPS]
    cards = 0
    for s in range(players):
        if seats[i, s, S_CARD] >= 0:
            cards |= 1 << seats[i, s, S_CARD]
    if cards & trumps:
        games[i, G_BROKEN] = 1
    best_cards = cards & trumps
    if best_cards == 0:
        best_cards = cards & games[i, G_FOLLOW]
    best = bit_length(best_cards) - 1
    winner = 0
    for s in range(players):
        if seats[i, s, S_CARD] == best:
            winner = s
        seats[i, s, S_CARD] = -1
    side = side_of(config, winner)
    sides[i, side, D_TRICKS] += 1
    games[i, G_IN_TRICK] = 0
    games[i, G_TRICK] += 1
    games[i, G_TO_MOVE] = winner
    games[i, G_LEAD] = winner
    if games[i, G_TRICK] == games[i, G_LAST_TRICK]:
        score(config, sizes, games, seats, sides, decks, tricks, i, rewards)
    elif games[i, G_KIND] != NORMAL:
        tie_breaker_trick(config, sizes, games, seats, sides, decks, tricks, i, side, rewards)


@compiled()
def board_points(config, games, seats, i, side, taken, size) -> int:
    """S3 for a board side (engine.points_for_side): its bids' board levels (B4), and
    bab's exception of a lone B and a 0 on 13 cards."""
    players = config[C_PLAYERS]
    dealer = games[i, G_DEALER]
    boards = 0
    own_top = 0
    own_levels = 0
    own_boards = 0
    own_passes = 0
    own_bids = 0
    for k in range(players):
        s = (dealer + 1 + k) % players
        bid = seats[i, s, S_BID]
        if bid == BOARD_VALUE:
            boards += 1
        if side_of(config, s) == side:
            own_bids += 1
            if bid == BOARD_VALUE:
                own_boards += 1
                own_levels += 1
                own_top = boards
            elif bid == 0:
                own_passes += 1
    if (
        config[C_MULTIPLIER] == 2
        and size == 13
        and own_levels == 1
        and own_top == 1
        and own_bids == 2
        and own_passes == 1
    ):
        return numeric_points(config, 13, taken)  # a lone B and a 0 on 13 cards counts as 13
    if config[C_MULTIPLIER] == 2:
        multiple = 1 << own_top
    elif config[C_MULTIPLIER] == 1:
        multiple = games[i, G_LEVEL]
    else:
        multiple = 1
    sign = 1 if taken == size else -1
    return sign * 10 * size * multiple


@compiled(inline="always")
def numeric_points(config, bid, taken) -> int:
    """S1."""
    points = config[C_CONTRACT_POINTS]
    if taken >= bid:
        return points * bid + taken - bid
    return -points * bid


@compiled()
def score(config, sizes, games, seats, sides, decks, tricks, i, rewards) -> None:
    """S1–S5 for every side, then the next deal or the end of the game (E1)."""
    players = config[C_PLAYERS]
    size = games[i, G_SIZE]
    for d in range(config[C_SIDES]):
        contract = sides[i, d, D_CONTRACT]
        taken = sides[i, d, D_TRICKS]
        if contract == NO_CONTRACT:
            points = taken if config[C_ZERO] == 1 else 0  # S2
        elif contract == BOARD_CONTRACT:
            points = board_points(config, games, seats, i, d, taken, size)
        else:
            points = numeric_points(config, contract, taken)
        sides[i, d, D_POINTS] = points
    for s in range(players):
        if seats[i, s, S_RAINBOW]:
            sides[i, side_of(config, s), D_POINTS] += 10  # S5
    for d in range(config[C_SIDES]):
        sides[i, d, D_SCORE] += sides[i, d, D_POINTS]
    if config[C_REWARD] == 0:
        for s in range(players):
            rewards[i, s] += sides[i, side_of(config, s), D_POINTS]
    games[i, G_COUNTED] += 1
    if config[C_ONE_DEAL] or games[i, G_COUNTED] == config[C_DEALS]:
        end_of_counted_deals(config, games, sides, i, rewards)
    if games[i, G_PHASE] != OVER:
        deal(config, sizes, games, seats, sides, decks, tricks, i)


@compiled()
def end_of_counted_deals(config, games, sides, i, rewards) -> None:
    """E1: the most points wins; a tie is a draw, or goes to a tie-breaker (E2, E3)."""
    n = config[C_SIDES]
    top = sides[i, 0, D_SCORE]
    for d in range(n):
        if sides[i, d, D_SCORE] > top:
            top = sides[i, d, D_SCORE]
    tied = 0
    count = 0
    for d in range(n):
        if sides[i, d, D_SCORE] == top:
            tied |= 1 << d
            count += 1
    if count == 1:
        finish(config, games, i, bit_length(tied) - 1, 1, rewards)
    elif not config[C_TIE_BREAKER] or config[C_ONE_DEAL]:
        finish(config, games, i, -1, 1, rewards)
    elif config[C_PLAYERS] == 4:
        games[i, G_TIE_KIND] = TIE_FOUR
        games[i, G_TIE_SEATS] = 0xF
    elif count == 3:
        games[i, G_TIE_KIND] = TIE_THREE
        games[i, G_TIE_SEATS] = 0x7
    else:
        games[i, G_TIE_KIND] = TIE_TWO
        games[i, G_TIE_SEATS] = tied


@compiled()
def tie_breaker_trick(config, sizes, games, seats, sides, decks, tricks, i, side, rewards) -> None:
    """E2, E3: first to 7 tricks wins; three tied players play all 13 tricks."""
    rule = 3 if config[C_PLAYERS] == 3 else 2
    if games[i, G_KIND] != TIE_THREE:
        if sides[i, side, D_TRICKS] == 7:
            for d in range(3):
                sides[i, d, D_POINTS] = 0
            finish(config, games, i, side, rule, rewards)
        return
    if games[i, G_TRICK] < 13:
        return
    for d in range(3):
        sides[i, d, D_POINTS] = 0
    top = 0
    for d in range(3):
        if sides[i, d, D_TRICKS] > top:
            top = sides[i, d, D_TRICKS]
    best = 0
    count = 0
    for d in range(3):
        if sides[i, d, D_TRICKS] == top:
            best |= 1 << d
            count += 1
    if count == 1:
        finish(config, games, i, bit_length(best) - 1, rule, rewards)
        return
    games[i, G_TIE_KIND] = TIE_TWO
    games[i, G_TIE_SEATS] = best
    deal(config, sizes, games, seats, sides, decks, tricks, i)


@compiled()
def finish(config, games, i, winner, rule, rewards) -> None:
    games[i, G_WINNER] = winner
    games[i, G_OVER_RULE] = rule
    games[i, G_PHASE] = OVER
    if config[C_REWARD] == 1 and winner >= 0:
        for s in range(config[C_PLAYERS]):
            rewards[i, s] += 1 if side_of(config, s) == winner else -1


# ---------------------------------------------------------------------- whole batches


@compiled()
def mix_seed(seed: int, group: int, episode: int) -> int:
    """A game's seed: the ``episode``-th game of duplicate group ``group`` (below 2⁶²)."""
    return int(key(seed, group, episode, -1) >> np.uint64(2))


@compiled()
def new_game(config, sizes, games, seats, sides, decks, tricks, i, seed, turn) -> None:
    """Start game ``i`` afresh from ``seed``, its hands turned ``turn`` seats (duplicate)."""
    for f in range(games.shape[1]):
        games[i, f] = 0
    games[i, G_SEED] = seed
    games[i, G_TURN] = turn
    games[i, G_DEAL_NUMBER] = -1
    games[i, G_WINNER] = -2
    games[i, G_TIE_KIND] = -1
    games[i, G_KIND] = NORMAL
    games[i, G_KEY] = -1
    state, first = below(key(seed, -1, -1, -1), config[C_PLAYERS])
    games[i, G_FIRST_DEALER] = (first + turn) % config[C_PLAYERS]
    state, pick = below(state, config[C_DEALS])
    games[i, G_ONE_SIZE] = sizes[pick]
    for d in range(3):
        sides[i, d, D_SCORE] = 0
        sides[i, d, D_POINTS] = 0
    deal(config, sizes, games, seats, sides, decks, tricks, i)


WAIT = -1  #: an action that leaves its game as it is for this step


@compiled()
def first_illegal(config, games, seats, actions) -> int:
    """The first game whose action is neither legal nor WAIT, or −1."""
    for i in range(actions.shape[0]):
        if actions[i] != WAIT and not is_legal(config, games, seats, i, actions[i]):
            return i
    return -1


@compiled()
def step_all(config, sizes, games, seats, sides, decks, tricks, actions, rewards, done) -> None:
    """Apply every game's action (a game given WAIT stays as it is); ``done[i]`` is set
    where a game ended."""
    for i in range(actions.shape[0]):
        for s in range(rewards.shape[1]):
            rewards[i, s] = 0
        if actions[i] == WAIT:
            done[i] = False
            continue
        act(config, sizes, games, seats, sides, decks, tricks, i, actions[i], rewards)
        done[i] = games[i, G_PHASE] == OVER


@compiled()
def write_masks(config, games, seats, masks, to_play) -> None:
    for i in range(masks.shape[0]):
        write_mask(config, games, seats, i, masks[i])
        to_play[i] = games[i, G_TO_MOVE] if games[i, G_PHASE] != OVER else -1


@compiled()
def random_play(config, sizes, games, seats, sides, decks, tricks, rewards, steps, seed) -> int:
    """Play ``steps`` uniformly random legal actions in each game, starting a new game where
    one ends; the actions taken (for the benchmark against OpenSpiel's random play)."""
    state = key(seed, 0, 0, 0)
    taken = 0
    for _ in range(steps):
        for i in range(games.shape[0]):
            if games[i, G_PHASE] == PLAY:
                cards = legal_mask(config, games, seats, i)
                state, pick = below(state, popcount(cards))
                for _k in range(pick):
                    cards &= cards - 1
                action = bit_length(cards & -cards) - 1
            else:  # pass, 1 to the top bid, board
                state, pick = below(state, top_bid(config, games[i, G_SIZE]) + 2)
                action = BOARD if pick == top_bid(config, games[i, G_SIZE]) + 1 else PASS + pick
            act(config, sizes, games, seats, sides, decks, tricks, i, action, rewards)
            taken += 1
            if games[i, G_PHASE] == OVER:
                new_game(
                    config, sizes, games, seats, sides, decks, tricks, i,
                    games[i, G_SEED] + 1, games[i, G_TURN],
                )  # fmt: skip
    return taken
