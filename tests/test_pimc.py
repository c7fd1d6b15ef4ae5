"""The pimc bot: its samples agree with everything its seat has seen, it finds the card
that makes the contract, it keeps to its budget, and it stays legal under every rule."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley.bots import make_bot, pimc, play_game
from backalley.bots.pimc import PimcBot, deal_hidden, exclusions
from backalley.cards import SUIT_MASKS, trump_mask
from backalley.engine import BIG_BLOOPER, PASS, Game, Phase
from backalley.rules import Ruleset
from backalley.view import TRUMPS
from support import cards, deal, game_of, mask, play
from test_properties import random_game, rulesets


def quick() -> PimcBot:
    return PimcBot(samples=3, seconds=0.05, nodes=5_000)


@settings(max_examples=60, deadline=None)
@given(rulesets(), st.integers(0, 2**32), st.integers(0, 400))
def test_samples_agree_with_the_view(rules, seed, steps):
    game = None
    for game in random_game(rules, seed, limit=steps):  # noqa: B007
        pass
    assert game is not None
    if game.is_over or game.to_move is None or game.current_deal is None:
        return
    view = game.view(game.to_move)
    banned = exclusions(view)
    rng = random.Random(seed)
    for _ in range(5):
        hands = deal_hidden(view, rng, banned)
        assert hands is not None  # the true deal fits, so some deal does
        assert hands[view.seat] == view.hand
        for seat in range(rules.num_players):
            assert hands[seat].bit_count() == view.hand_counts[seat]
            if seat != view.seat:
                assert hands[seat] & ~view.unseen == 0  # nothing seen is dealt again
                assert hands[seat] & banned[seat] == 0
        assert sum(h.bit_count() for h in hands) == (sum(view.hand_counts))  # disjoint hands
        union = 0
        for hand in hands:
            union |= hand
        assert union.bit_count() == sum(view.hand_counts)
    # The true hands always satisfy the exclusions: the inferences are sound.
    for seat in range(rules.num_players):
        assert game.hand(seat) & banned[seat] == 0


def test_a_seat_that_showed_out_is_dealt_none_of_the_suit():
    game = game_of(hand_sizes=[3])
    deal(game, 3, ["AS KS QS", "2S 3H 4H", "3S 5H 6H", "2D 3D 4D"], top="7C")
    play(game, "1 pass pass pass")
    play(game, "AS 2S 3S 2D")  # seat 3 shows out of spades
    view = game.view(0)
    banned = exclusions(view)
    assert banned[3] & SUIT_MASKS[0] == SUIT_MASKS[0] & ~trump_mask(view.trump)
    assert 0 in view.voids[3]
    rng = random.Random(1)
    for _ in range(20):
        hands = deal_hidden(view, rng, banned)
        assert hands is not None and hands[3] & SUIT_MASKS[0] == 0


def test_a_big_blooper_answer_shows_no_higher_trump():
    game = game_of(hand_sizes=[3], blooper_forces=True, board_leads_trump="bidder")
    deal(game, 3, ["BJ 2C 3C", "5H 2S 3S", "9H 2D 3D", "4S 4D 5D"], top="7H")
    play(game, "board pass pass pass BJ 5H")  # seat 1 played its highest trump: 5H
    view = game.view(0)
    banned = exclusions(view)
    higher = trump_mask(view.trump) & ~((2 << cards("5H")[0]) - 1)
    assert banned[1] & higher == higher  # no trump above 5H, jokers included
    assert TRUMPS not in view.voids[1]
    assert game.hand(1) & banned[1] == 0


def test_pimc_finds_the_only_card_that_makes_the_contract():
    # Seat 0 bid 2 in no trump: it must cash its aces first; leading the two of spades
    # gives seat 1 the lead and all three spade tricks.
    game = game_of(hand_sizes=[3], joker_turnup="no_trump")
    deal(game, 3, ["AD AC 2S", "AS KS QS", "3D 4D 5D", "3C 4C 5C"], top="BJ")
    play(game, "2 pass pass pass")
    bot = PimcBot(samples=8, seconds=5.0)
    choice = bot.act(game.view(0), random.Random(0))
    assert choice in (cards("AD")[0], cards("AC")[0])
    assert bot.fallbacks == 0


def test_pimc_falls_back_to_the_heuristic_when_no_sample_fits_the_budget():
    game = Game(game_of().rules, seed=4)
    while game.legal_actions()[0] >= PASS:
        game.apply(game.legal_actions()[1])  # bid 1 each, so the deal is played
    bot = PimcBot(samples=4, seconds=1.0, nodes=1)
    view = game.view(game.to_move)
    choice = bot.act(view, random.Random(0))
    assert choice in view.legal_actions
    assert bot.fallbacks == 1
    assert choice == bot.fallback.act(view, random.Random(0))


def test_pimc_bids_board_when_it_holds_every_winner():
    game = game_of(hand_sizes=[2])
    deal(game, 3, ["BJ LJ", "2S 3S", "2D 3D", "2C 3C"], top="7H")
    assert PimcBot(samples=6).act(game.view(0), random.Random(0)) == 68  # board


@settings(max_examples=15, deadline=None)
@given(rulesets(), st.integers(0, 2**32))
def test_pimc_plays_whole_games_legally_under_any_rules(rules, seed):
    game = play_game(Game(rules, seed=seed), [quick()] * rules.num_players, seed=seed)
    assert game.is_over


def test_levels_hard_and_expert_are_pimc_with_growing_budgets():
    hard, expert = make_bot("hard"), make_bot("expert")
    assert isinstance(hard, PimcBot) and isinstance(expert, PimcBot)
    assert hard.samples < expert.samples and hard.seconds < expert.seconds
    assert hard.nodes < expert.nodes
    assert BIG_BLOOPER == 53 and mask("BJ") == 1 << 53


def test_later_samples_get_nodes_in_proportion_to_the_time_left(monkeypatch):
    game = Game(Ruleset.preset("standard", hand_sizes=[13]), seed=4)
    clock = iter([0.0, 0.0, 0.5, 0.95, 1.1])  # the deadline, then one reading a sample
    monkeypatch.setattr(pimc.time, "perf_counter", lambda: next(clock))
    bot = PimcBot(samples=10, seconds=1.0, nodes=1000)
    budgets = [budget for _, budget in bot._samples(game.view(game.to_move), random.Random(0))]
    assert budgets == [1000, 500, 100]  # full, half, then a tenth at least; then time is up


def test_a_solve_that_spent_its_budget_teaches_the_bot_its_speed(monkeypatch):
    game = Game(Ruleset.preset("standard", hand_sizes=[13]), seed=4)
    clock = iter([0.0, 0.0, 0.0, 0.5])  # the rate, the deadline, then one a sample
    monkeypatch.setattr(pimc.time, "perf_counter", lambda: next(clock))
    bot = PimcBot(samples=2, seconds=1.0, nodes=10**6)
    bot._learn_rate(3000, start=-2.0)  # 3,000 nodes in the two seconds up to the clock's 0.0
    assert bot.rate == 1500
    budgets = [budget for _, budget in bot._samples(game.view(game.to_move), random.Random(0))]
    assert budgets == [1500, 750]  # what the rate allows in the whole budget, then in half


def _no_clock() -> float:
    raise AssertionError("a repeatable bot read the clock")


def test_a_repeatable_bot_never_reads_the_clock_and_solves_every_sample(monkeypatch):
    game = Game(Ruleset.preset("standard", hand_sizes=[6]), seed=8)
    while game.phase == Phase.BID:
        game.apply(make_bot("heuristic").act(game.view(game.to_move), random.Random(0)))
    view = game.view(game.to_move)
    monkeypatch.setattr(pimc.time, "perf_counter", _no_clock)
    bot = make_bot("hard", repeatable=True)
    assert isinstance(bot, PimcBot) and bot.seconds is None
    assert bot.nodes == make_bot("hard").nodes  # the same counts, only the clock is gone
    budgets = [budget for _, budget in bot._samples(view, random.Random(0))]
    assert budgets == [bot.nodes] * bot.samples
    first = bot.act(view, random.Random(3))
    assert bot.last_solved == bot.samples
    again = make_bot("hard", repeatable=True).act(view, random.Random(3))
    assert first == again and first in view.legal_actions
    with pytest.raises(AssertionError, match="read the clock"):
        make_bot("hard").act(view, random.Random(3))  # the timed bot does read it


def test_a_settling_bot_stops_sampling_once_its_choice_is_clear_and_not_before():
    game = game_of(hand_sizes=[3], joker_turnup="no_trump")
    deal(game, 3, ["AD AC 2S", "AS KS QS", "3D 4D 5D", "3C 4C 5C"], top="BJ")
    play(game, "2 pass pass pass")
    view = game.view(0)
    full = PimcBot(samples=40, seconds=None)
    settling = PimcBot(samples=40, seconds=None, settle=2.0, settle_after=6)
    assert full.act(view, random.Random(1)) == settling.act(view, random.Random(1))
    assert full.last_solved == 40 and settling.last_solved == 6  # cashing is clear at once
    close = PimcBot(samples=40, seconds=None, settle=2.0, settle_after=6)
    close._settled([{1: 0.0, 2: 0.0}] * 5)  # too few deals: never settled
    assert not close._settled([{1: 1.0, 2: 0.0}] * 5)
    assert close._settled([{1: 1.0, 2: 0.0}] * 6)  # the same lead every time
    noisy = [{1: 10.0, 2: 0.0}, {1: -10.0, 2: 0.0}] * 4  # a mean lead, no confidence
    assert not close._settled(noisy)


def test_a_rolling_bot_bids_small_hands_by_rolling_deals_out():
    game = game_of(hand_sizes=[2])
    deal(game, 3, ["BJ LJ", "2S 3S", "2D 3D", "2C 3C"], top="7H")
    bot = PimcBot(samples=10, seconds=None, nodes=150_000, rollout_hands=3)
    decision = bot.decide(game.view(0), random.Random(0))
    assert decision.action == 68 and bot.last_solved == bot.rollout_samples  # board
    # board is always made: 20 and whatever the other side loses, less nothing
    assert decision.expected[68] == max(decision.expected.values()) >= 20.0
    play(game, "board")
    weak = bot.decide(game.view(1), random.Random(0))
    assert weak.action == PASS  # nothing: a number would fail
    big = Game(Ruleset.preset("standard", hand_sizes=[5]), seed=3)
    assert bot.decide(big.view(big.to_move), random.Random(0)).tricks  # solved, not rolled
