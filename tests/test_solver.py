"""The solver against an independent brute force built on the engine itself.

The brute force knows no solver trick: it copies the game, applies every legal action the
engine offers and takes the max (for the side to move's partnership) or min, memoised on the
full state only. Positions come from random rule sets and random play, 1 to 5 cards a hand.
"""

from __future__ import annotations

import functools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from backalley.cards import mask_of, parse_card, trump_mask
from backalley.engine import Game, Phase, follow_mask, winning_card
from backalley.jit import popcount
from backalley.rules import Ruleset
from backalley.solver import OutOfBudget, Position, _state, card_values, search, tricks


def brute_force(game: Game, side: int, memo: dict[tuple, int] | None = None) -> int:
    """Tricks ``side`` takes from here to the end of the deal, best play by all, by the engine.

    ``memo`` may be shared by calls on positions of one deal: what it keeps is the tricks a
    side gains from a state on, which does not depend on how the state was reached."""
    memo = {} if memo is None else memo

    def won(g: Game) -> int:
        return g.deals[len(game.deals) - 1].tricks[side]

    def search(g: Game) -> int:
        """Tricks ``side`` gains from this state on (memoised on the state, not the past)."""
        if g.phase != Phase.PLAY or len(g.deals) != len(game.deals):
            return 0
        hands = tuple(g.hand(s) for s in range(g.num_players))
        key = (side, hands, tuple(g.trick), g.to_move, g.trumps_broken)
        if key not in memo:
            results = []
            for action in g.legal_actions():
                child = g.copy()
                child.apply(action)
                results.append(won(child) - won(g) + search(child))
            memo[key] = max(results) if g.rules.side_of(g.to_move) == side else min(results)
        return memo[key]

    return search(game)


def random_position(seed: int) -> Game | None:
    rng = random.Random(seed)
    preset = rng.choice(["standard", "classic", "classic3"])
    size = rng.randint(1, 5)
    options = {
        "hand_sizes": [size],
        "joker_turnup": rng.choice(["no_trump", "turn_again"]),
        "board_leads_trump": rng.choice(["bidder", "side", "off"]),
        "blooper_forces": rng.random() < 0.5,
        "all_pass": "play",
        "renig_min_hand": None,
    }
    game = Game(Ruleset.preset(preset, **options), seed=seed)
    while game.phase == Phase.BID:
        game.apply(rng.choice(game.legal_actions()))
    for _ in range(rng.randint(0, size * game.num_players // 2)):
        if game.phase != Phase.PLAY:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game if game.phase == Phase.PLAY else None


@functools.cache
def positions() -> list[Game]:
    """350 positions of `standard` games, dealt by the first test that asks (not at collection,
    which every test process does)."""
    return [g for g in (random_position(seed) for seed in range(600)) if g is not None][:350]


def random_bab_position(seed: int) -> Game | None:
    """A position of a small ``bab`` deal, half of them with a joker turned up (D8: the other
    joker the lone trump), the Big Blooper forcing opponents only or everyone."""
    rng = random.Random(seed)
    size = rng.randint(1, 5)
    blooper = rng.choice(["big_opponents", "big_opponents", True])
    game = Game(Ruleset.preset("bab", hand_sizes=[size], blooper_forces=blooper))
    deck = list(range(54))
    rng.shuffle(deck)
    hands = [deck[i * size : (i + 1) * size] for i in range(4)]
    stock = deck[4 * size :]
    if rng.random() < 0.5:  # a joker on top of the stock, wherever the other one is
        joker = rng.choice([52, 53])
        where = next((h for h in hands if joker in h), stock)
        where[where.index(joker)] = stock[0]
        stock[0] = joker
    game.start_deal(rng.randrange(4), hands, stock)
    while game.phase == Phase.BID:
        game.apply(rng.choice(game.legal_actions()))
    for _ in range(rng.randint(0, size * 2)):
        if game.phase != Phase.PLAY:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game if game.phase == Phase.PLAY else None


@functools.cache
def bab_positions() -> list[Game]:
    """200 positions of `bab` games, dealt when first asked for."""
    return [g for g in map(random_bab_position, range(400)) if g is not None][:200]


def test_there_are_200_bab_positions_a_third_with_a_lone_joker():
    assert len(bab_positions()) == 200
    lone = [g for g in bab_positions() if g.current_deal.lone_joker is not None]
    assert len(lone) >= 60


@pytest.mark.brute_force
@pytest.mark.parametrize("chunk", range(10))
def test_solver_agrees_with_brute_force_on_bab(chunk):
    for game in bab_positions()[chunk::10]:
        agrees_with_brute_force(game)


def test_there_are_350_positions():
    assert len(positions()) == 350


@pytest.mark.brute_force
@pytest.mark.parametrize("chunk", range(14))
def test_solver_agrees_with_brute_force(chunk):
    for game in positions()[chunk::14]:
        agrees_with_brute_force(game)


def agrees_with_brute_force(game: Game) -> None:
    """The solver's tricks and each legal card's value at ``game``'s position are the brute
    force's."""
    position = Position.from_game(game)
    side = game.rules.side_of(game.to_move)
    memo: dict[tuple, int] = {}  # the root's search has searched every card's position
    assert tricks(position) == brute_force(game, side, memo)
    values = card_values(position)
    assert set(values) == set(game.legal_actions())
    for card, value in values.items():
        child = game.copy()
        child.apply(card)
        if child.phase != Phase.PLAY or len(child.deals) != len(game.deals):
            done = child.deals[len(game.deals) - 1]
            assert value == done.tricks[side] - game.current_deal.tricks[side]
        else:
            assert value == brute_force(child, side, memo) + (
                child.current_deal.tricks[side] - game.current_deal.tricks[side]
            )


def test_solve_command_prints_each_card_and_json(capsys, tmp_path):
    import json

    from backalley.cli import main
    from backalley.record import write_record

    game = next(g for g in positions() if len(g.legal_actions()) > 1)
    path = tmp_path / "position.json"
    path.write_text(json.dumps(write_record(game)))
    assert main(["solve", "--json", str(path)]) == 0
    answer = json.loads(capsys.readouterr().out)
    values = card_values(Position.from_game(game))
    assert answer["seat"] == game.to_move
    from backalley.cards import card_name

    assert answer["cards"] == {card_name(c): v for c, v in values.items()}
    assert main(["solve", str(path)]) == 0
    assert "tricks" in capsys.readouterr().out


def test_solve_says_so_only_when_it_must_compile_first(capsys, tmp_path):
    """The first solve on a machine compiles the search (20 s, once): ``backalley solve``
    says so then, and not once numba's cache holds it."""
    import json
    import os
    import subprocess
    import sys

    from backalley.cli import main
    from backalley.record import write_record
    from backalley.solver import needs_compiling

    ask = "from backalley.solver import needs_compiling; print(needs_compiling())"
    cold = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty")}
    answer = subprocess.run([sys.executable, "-c", ask], env=cold, capture_output=True, text=True)
    assert answer.stdout.strip() == "True", answer.stderr
    game = next(g for g in positions() if len(g.legal_actions()) > 1)
    card_values(Position.from_game(game))
    assert not needs_compiling()
    path = tmp_path / "position.json"
    path.write_text(json.dumps(write_record(game)))
    assert main(["solve", str(path)]) == 0
    assert "compiling" not in capsys.readouterr().err


def test_the_first_compilation_runs_beneath_a_large_frame():
    """CPython 3.11 maps and unmaps a chunk of its frame stack whenever calls cross a chunk
    boundary back and forth; the compiler runs from a frame that fills most of a chunk far
    larger than its recursion needs (see solver.on_a_large_frame)."""
    import sys

    from backalley.solver import LARGE_FRAME, on_a_large_frame

    def caller_locals() -> int:
        return sys._getframe(1).f_code.co_nlocals

    assert on_a_large_frame(caller_locals) > LARGE_FRAME
    assert on_a_large_frame(lambda: "done") == "done"


def test_solve_refuses_a_record_with_no_card_due(capsys):
    from pathlib import Path

    from backalley.cli import main

    done = Path(__file__).parent / "records" / "draw_standard.json"
    assert main(["solve", str(done)]) == 2
    assert "nothing to solve" in capsys.readouterr().err


def test_a_spent_budget_raises_and_leaves_the_solver_exact():
    game = None
    seed = 0
    while game is None or len(game.legal_actions()) < 3:
        seed += 1
        game = random_position(seed)
    position = Position.from_game(game)
    with pytest.raises(OutOfBudget):
        card_values(position, budget=1)
    with pytest.raises(OutOfBudget):
        tricks(position, budget=1)
    values = card_values(position)
    assert card_values(position, budget=10**9) == values
    assert (
        max(values.values())
        == tricks(position)
        == brute_force(game, game.rules.side_of(game.to_move))
    )


@njit
def _more_than_one_card(mask: int) -> bool:
    return popcount(mask) > 1


@settings(deadline=None)
@given(st.integers(min_value=0, max_value=(1 << 54) - 1))
def test_the_compiled_search_counts_cards_exactly(mask):
    # The bytes of the count were once summed by a multiplication that overflows an int64;
    # numba lets LLVM assume signed arithmetic never overflows, and comparisons of the count
    # came out wrong (one card counted as "more than one").
    assert popcount(mask) == mask.bit_count()
    assert _more_than_one_card(mask) == (mask.bit_count() > 1)


def test_second_hand_that_wins_the_trick_and_cashes_the_rest_is_seen_at_once():
    """DDS's quick tricks at second hand: with no trump, the side on turn wins this trick
    for sure (the ace) and its winner then cashes the rest, so the search stops at the node
    itself: two null-window searches of one node each fit a budget of two nodes. When the
    winner cannot cash the rest at once, the same value takes a search."""

    def position(*hands: tuple[str, ...]) -> Position:
        return Position(
            hands=tuple(mask_of(parse_card(name) for name in hand) for hand in hands),
            seats=(0, 1, 2, 3),
            sides=(0, 1, 0, 1),
            trumps=0,
            broken=False,
            free_lead=(False,) * 4,
            blooper_forces=False,
            trick=(parse_card("2S"),),
            leader=0,
            to_move=1,
        )

    cashes = position(("3S", "4S"), ("AS", "AH", "AD"), ("5S", "6S", "7S"), ("8S", "KH", "KD"))
    assert tricks(cashes, budget=2) == 3
    assert card_values(cashes) == {parse_card("AS"): 3}
    blocked = position(("3S", "4S"), ("AS", "QH", "AD"), ("5S", "6S", "7S"), ("8S", "KH", "KD"))
    with pytest.raises(OutOfBudget):
        tricks(blocked, budget=2)
    assert tricks(blocked) == 3


def test_second_hand_cashes_its_top_trumps_when_the_other_side_has_none():
    """Hearts are trumps, held only by the side on turn: the ace of spades wins the trick
    for sure and its hand then cashes the ace and king of trumps (nothing but trumps left:
    P3 lets it lead them), so the search stops at the node itself."""
    from backalley.cards import trump_mask

    position = Position(
        hands=(
            mask_of(parse_card(name) for name in ("3S", "4S")),
            mask_of(parse_card(name) for name in ("AS", "AH", "KH")),
            mask_of(parse_card(name) for name in ("5S", "6S", "7S")),
            mask_of(parse_card(name) for name in ("8S", "QH", "JH")),
        ),
        seats=(0, 1, 2, 3),
        sides=(0, 1, 0, 1),
        trumps=trump_mask(parse_card("AH") // 13),
        broken=False,
        free_lead=(False,) * 4,
        blooper_forces=True,
        trick=(parse_card("2S"),),
        leader=0,
        to_move=1,
    )
    assert tricks(position, budget=2) == 3
    assert card_values(position)[parse_card("AS")] == 3


def _trick_start(*hands: tuple[str, ...]) -> Position:
    """A no-trump position at a trick start, seat 0 (side 0) on lead."""
    return Position(
        hands=tuple(mask_of(parse_card(name) for name in hand) for hand in hands),
        seats=(0, 1, 2, 3),
        sides=(0, 1, 0, 1),
        trumps=0,
        broken=False,
        free_lead=(False,) * 4,
        blooper_forces=False,
        trick=(),
        leader=0,
        to_move=0,
    )


def test_length_winners_are_quick_tricks():
    """AK32 of spades against one spade in each other hand: the ace and king draw them, and
    the 3 and 2 win too. Counted at once, the three null-window searches (2, 3 and 4 tricks)
    take one node each; counting only the cards above every other card (two) takes a search."""
    counted_at_once(
        _trick_start(
            ("AS", "KS", "3S", "2S"),
            ("QS", "5H", "6H", "7H"),
            ("4D", "5D", "6D", "7D"),
            ("JS", "8H", "9H", "TH"),
        ),
        4,
    )


def counted_at_once(position: Position, expected: int) -> None:
    """The quick tricks settle each of the null-window searches for ``position`` at its first
    node (three nodes in all), and its value is ``expected``."""
    assert tricks(position, budget=3) == expected
    assert tricks(position) == expected


def test_a_partner_reached_after_the_leader_cashes_adds_its_winners():
    """The leader cashes AK of spades (the partner throws its diamonds), then leads the 2 of
    hearts to the partner's AK: four tricks, seen at once. With AKQ of hearts the partner
    throws a heart instead, still four. Without a heart to lead, the leader cannot reach
    the partner: two tricks, which takes a search."""
    position = _trick_start(
        ("AS", "KS", "2H", "3D"),
        ("QS", "6D", "7D", "8D"),
        ("AH", "KH", "4D", "5D"),
        ("JS", "9D", "TD", "JC"),
    )
    assert tricks(position, budget=3) == 4
    crowded = _trick_start(
        ("AS", "KS", "2H", "3D"),
        ("QS", "6D", "7D", "8D"),
        ("AH", "KH", "QH", "4D"),
        ("JS", "9D", "TD", "JC"),
    )
    assert tricks(crowded, budget=3) == 4
    blocked = _trick_start(
        ("AS", "KS", "2D", "3D"),
        ("QS", "6D", "7D", "8D"),
        ("AH", "KH", "QH", "4D"),
        ("JS", "9D", "TD", "JC"),
    )
    with pytest.raises(OutOfBudget):
        tricks(blocked, budget=3)
    assert tricks(blocked) == 2


def test_the_top_card_crosses_to_the_partners_next_best():
    """DDS's "Ax opposite Kx": the leader cashes the ace of hearts, the partner following
    with the 3, then leads the 2 to the partner's king, which cashes the queen of clubs
    too: three tricks, seen at once. With the partner's king bare, the ace would fell it;
    the small heart led to the king takes two tricks instead, which takes a search."""
    position = _trick_start(
        ("AH", "2H", "5D", "6D"),
        ("JH", "TH", "7D", "8D"),
        ("KH", "3H", "QC", "4D"),
        ("9H", "9D", "TD", "JD"),
    )
    assert tricks(position, budget=3) == 3
    bare = _trick_start(
        ("AH", "2H", "5D", "6D"),
        ("JH", "TH", "7D", "8D"),
        ("KH", "QC", "4D", "3D"),
        ("9H", "9D", "TD", "JD"),
    )
    with pytest.raises(OutOfBudget):
        tricks(bare, budget=3)
    assert tricks(bare) == 2


def test_a_partner_unblocking_under_the_leaders_cards_lets_it_run_the_suit():
    """AKJ8 of spades opposite QT6: the partner throws its highest spade under each of the
    leader's highest (Q under the A, T under the K, 6 under the J), and the other side's two
    spades fall at once: four tricks, seen at once. Counting only the cards above every other
    card, the partner's queen among them, finds two, and the rest takes a search."""
    counted_at_once(
        _trick_start(
            ("AS", "KS", "JS", "8S"),
            ("9S", "5H", "6H", "7H"),
            ("QS", "TS", "6S", "2H"),
            ("7S", "8H", "9H", "TH"),
        ),
        4,
    )


def test_the_top_card_and_a_partners_next_best_cash_the_longer_hand():
    """A54 of hearts opposite K2, the other side with two hearts each: the 4 to the king,
    the 2 back to the ace, and the 5 wins too: three tricks, seen at once (DDS's count of
    "Ax opposite Kx" with the length of the longer hand)."""
    counted_at_once(
        _trick_start(
            ("AH", "5H", "4H", "6D"),
            ("QH", "3H", "9D", "TD"),
            ("KH", "2H", "7D", "8D"),
            ("JH", "TH", "JD", "QD"),
        ),
        3,
    )


# The search's compiled copies of the engine's trick rules (numba cannot call the engine):
# each is checked here against the one definition it copies.


@pytest.mark.parametrize("trump", [None, 0, 1, 2, 3])
def test_the_search_follows_suit_as_the_engine_does(trump):
    trumps = trump_mask(trump)
    cards = range(54) if trump is not None else range(52)  # no Blooper plays without trumps
    for led in cards:
        assert search.group_of(led, trumps) == follow_mask(led, trumps)


@pytest.mark.parametrize("trump", [None, 0, 3])
def test_the_search_wins_tricks_as_the_engine_does(trump):
    trumps = trump_mask(trump)
    cards = range(54) if trump is not None else range(52)
    for led in cards:
        follow = follow_mask(led, trumps)
        group = search.group_of(led, trumps)
        for best in cards:
            if best != led and winning_card(1 << led | 1 << best, follow, trumps) != best:
                continue  # the card winning so far is the lead or one that beat it
            for card in cards:
                if card in (best, led):
                    continue
                engine_says = winning_card(1 << best | 1 << card, follow, trumps) == card
                assert search.beats(card, best, trumps, group) == engine_says, (led, best, card)


def test_the_search_allows_the_cards_the_engine_allows():
    for game in positions() + bab_positions():
        position = Position.from_game(game)
        state = _state(position, game.rules.side_of(position.to_move))
        assert search.legal(state) == mask_of(game.legal_actions())
