"""Bots: they see only their seat's view, always act legally, and play by the maxims."""

from __future__ import annotations

import gc
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley.bots import (
    BOTS,
    LEVELS,
    BadBudget,
    make_bot,
    needs_solver,
    play_game,
    players_elsewhere,
)
from backalley.bots.beginner import BeginnerBot
from backalley.bots.heuristic import HeuristicBot
from backalley.bots.pimc import PimcBot
from backalley.engine import BOARD, PASS, Deal, Game, bid_action
from backalley.env.openspiel import OpenSpielPlayer
from backalley.rules import Ruleset
from support import cards, deal, game_of, play
from test_properties import rulesets


def reachable(root: object) -> list[object]:
    """Every object reachable from ``root`` through references (what a bot could get at)."""
    seen: dict[int, object] = {}
    stack = [root]
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, type):
            continue
        seen[id(item)] = item
        stack.extend(gc.get_referents(item))
    return list(seen.values())


def test_no_game_or_deal_is_reachable_from_a_view():
    game = Game(Ruleset.preset("standard", hand_sizes=[5, 4]), seed=3)
    for _ in range(9):
        game.apply(game.legal_actions()[-1])
    for seat in range(4):
        found = reachable(game.view(seat))
        assert not [o for o in found if isinstance(o, (Game, Deal, random.Random))]
        other_hands = {game.hand(s) for s in range(4) if s != seat and game.hand(s)}
        assert not other_hands & {o for o in found if type(o) is int}


@pytest.mark.parametrize("name", sorted([*BOTS, "openspiel-ismcts", "openspiel-mcts"]))
@settings(max_examples=8, deadline=None)
@given(rulesets(), st.integers(0, 2**32))
def test_bots_always_act_legally(name, rules, seed):
    # The searching bots with a small budget (what they may play does not depend on it):
    # tests/test_pimc.py and tests/test_env_openspiel.py try their real settings.
    if name == "pimc":
        bot = PimcBot(samples=2, seconds=0.02, nodes=2_000)
    elif name.startswith("openspiel-"):
        bot = OpenSpielPlayer(name.removeprefix("openspiel-"), simulations=10)
    else:
        bot = make_bot(name)
    game = play_game(Game(rules, seed=seed), [bot] * rules.num_players, seed=seed)
    assert game.is_over


def test_levels_name_bots_and_unknown_names_are_refused():
    assert {make_bot(level).name for level in LEVELS} <= set(BOTS)
    with pytest.raises(ValueError, match="unknown bot 'oracle'"):
        make_bot("oracle")
    with pytest.raises(ValueError, match="unknown bot 'policy:'"):
        make_bot("policy:")


def test_pimc_at_budgets_of_ones_own():
    bot = make_bot("pimc:samples=7, seconds=0.25,nodes=5000,bid_seconds=0.1")
    assert isinstance(bot, PimcBot)
    assert (bot.samples, bot.seconds, bot.bid_seconds, bot.nodes) == (7, 0.25, 0.1, 5000)
    assert bot.settle is None  # what is not named keeps PimcBot's default
    repeatable = make_bot("pimc:samples=7,seconds=0.25,bid_seconds=0.1", repeatable=True)
    assert (repeatable.seconds, repeatable.bid_seconds) == (None, None)  # type: ignore[attr-defined]
    assert make_bot("pimc:seconds=none").seconds is None  # type: ignore[attr-defined]
    assert needs_solver("pimc:samples=3")
    game = play_game(Game(Ruleset.preset("standard", hand_sizes=[3, 2]), seed=4), [bot] * 4)
    assert game.is_over


@pytest.mark.parametrize(
    ("name", "item"),
    [
        ("pimc:colour=red", "colour=red"),
        ("pimc:samples=many", "samples=many"),
        ("pimc:samples=2.5", "samples=2.5"),
        ("pimc:seconds=0", "seconds=0"),
        ("pimc:seconds=-1", "seconds=-1"),
        ("pimc:seconds=nan", "seconds=nan"),
        ("pimc:nodes=none", "nodes=none"),
        ("pimc:", ""),
    ],
)
def test_what_is_no_budget_is_refused_by_name(name, item):
    with pytest.raises(BadBudget, match=re.escape(f"{item!r} in {name!r} is no budget")):
        make_bot(name)


def test_the_research_environment_adds_its_players_and_bots_know_nothing_of_it():
    """bots imported env for OpenSpiel's players and policies; the environment now adds them
    as entry points, and nothing in bots names env."""
    from pathlib import Path

    import backalley.bots as package

    assert {"openspiel-ismcts", "openspiel-mcts", "policy"} <= set(players_elsewhere())
    assert make_bot("openspiel-ismcts").name == "openspiel-ismcts"
    imports = re.compile(r"^\s*(from|import) backalley\.env\b", re.MULTILINE)
    sources = Path(package.__file__).parent.glob("*.py")
    assert not [p.name for p in sources if imports.search(p.read_text(encoding="utf-8"))]


def choice_of(bot: object, game: Game) -> int:
    """What ``bot`` plays for the seat to move."""
    seat = game.to_move
    assert seat is not None
    return bot.act(game.view(seat), random.Random(0))  # type: ignore[attr-defined, no-any-return]


def heuristic_choice(game: Game) -> int:
    return choice_of(HeuristicBot(), game)


def test_heuristic_bids_board_with_only_sure_winners_and_passes_with_nothing():
    game = game_of(hand_sizes=[2])
    deal(game, 3, ["BJ LJ", "2S 3S", "2D 3D", "2C 3C"], top="7H")
    assert heuristic_choice(game) == BOARD  # seat 0: both Bloopers, trumps are hearts
    play(game, "board")
    assert heuristic_choice(game) == PASS  # seat 1: nothing


def test_heuristic_counts_aces_and_trumps():
    game = game_of(hand_sizes=[5])
    deal(game, 3, ["AS AD AH KH 2C", "2S 3S 4S 5S 6S", "2D 3D 4D 5D 6D", "3C 4C 5C 6C 7C"], "7H")
    assert heuristic_choice(game) in (bid_action(3), bid_action(4))


def test_heuristic_plays_second_hand_low_and_third_hand_high():
    game = game_of(hand_sizes=[3])
    # Seat 1 leads 2D; seat 2 (second hand) holds KD 3D: plays low.
    deal(game, 0, ["AD 5C 6C", "2D 7C 8C", "KD 3D 9C", "QD 4D TC"], top="7H")
    play(game, "1 pass pass pass 2D")
    assert heuristic_choice(game) == cards("3D")[0]
    play(game, "3D")
    assert heuristic_choice(game) == cards("QD")[0]  # seat 3, third hand: high


def test_heuristic_does_not_overtake_a_winning_partner_and_wins_cheaply_last():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["KS 4S", "2S 3C", "AS 4C", "QS 3S"], top="7H")
    play(game, "1 pass pass pass 2S AS")  # seat 1 leads 2S, seat 2 plays AS
    assert heuristic_choice(game) == cards("3S")[0]  # seat 3 cannot win: its cheapest card
    play(game, "3S")
    assert heuristic_choice(game) == cards("4S")[0]  # seat 0: partner's ace wins; keep KS


def test_heuristic_ruffs_when_void_and_draws_trumps_for_board():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["2H 9C", "AS 3C", "KS 4C", "QS 5C"], top="7H")
    play(game, "1 pass pass pass AS KS QS")
    assert heuristic_choice(game) == cards("2H")[0]  # seat 0 is void in spades: ruff
    board = game_of(hand_sizes=[3])
    deal(board, 3, ["BJ AH 2S", "3S 4S 5S", "6S 7S 8S", "9S TS JS"], top="7H")
    play(board, "board pass pass pass")
    assert heuristic_choice(board) == cards("BJ")[0]  # board bidder draws trumps from the top


def beginner_choice(game: Game) -> int:
    return choice_of(BeginnerBot(), game)


def test_beginner_counts_queens_and_high_trumps_and_hopes_for_board():
    game = game_of(hand_sizes=[4])
    # Seat 0: QS KD JH 2C with hearts trumps: three "tricks" of four cards, so board.
    deal(game, 3, ["QS KD JH 2C", "2S 3S 4S 5S", "QD 9H 2D 3C", "4C 5C 6C 7C"], top="7H")
    assert beginner_choice(game) == BOARD
    play(game, "board")
    assert beginner_choice(game) == PASS  # seat 1: nothing high
    play(game, "pass")
    assert beginner_choice(game) == bid_action(1)  # seat 2: the queen (a low trump is none)
    short = game_of(hand_sizes=[1])
    deal(short, 3, ["QC", "2S", "3S", "4S"], top="7H")
    assert beginner_choice(short) == BOARD  # one card, and it looks like a trick


def test_the_beginner_does_not_notice_its_partner():
    game = game_of(hand_sizes=[2])
    deal(game, 3, ["AS 2C", "2S 3S", "KD 4C", "5S 6S"], top="7H")
    play(game, "board pass")
    assert beginner_choice(game) == BOARD  # its partner's board, raised again (B4)
    assert heuristic_choice(game) == PASS  # where medium leaves it
