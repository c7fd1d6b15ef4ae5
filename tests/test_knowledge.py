"""A seat's view from what it knows (backalley.knowledge): the engine's own view, exactly,
from the seat's knowledge alone; and what contradicts itself refused with its rule."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backalley.cards import Card, CardSet
from backalley.engine import Game, IllegalAction, Phase, SeatError
from backalley.knowledge import Knowledge
from backalley.rules import Ruleset
from support import deal, game_of, play
from test_properties import random_game, rulesets


def without_history(view):
    return dataclasses.replace(view, history=())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rulesets(), seed=st.integers(0, 2**32), pick=st.integers(0, 2**32))
def test_the_view_built_from_a_seats_knowledge_is_the_engines_view(rules, seed, pick):
    """At random moments of random games under random rules, every seat's knowledge gives
    back that seat's view, derived fields and legal actions included (its history aside:
    earlier deals are not replayed); so does the same knowledge through JSON."""
    rng = random.Random(pick)
    checked = 0
    for game in random_game(rules, seed, limit=400):
        if game.phase not in (Phase.BID, Phase.PLAY) or (checked and rng.random() > 0.3):
            continue
        for seat in range(rules.num_players):
            view = game.view(seat)
            known = Knowledge.of(view)
            assert known.view() == without_history(view)
            again = Knowledge.from_json(json.loads(json.dumps(known.to_json())))
            assert again == known
            checked += 1
    assert checked


def test_a_view_of_the_last_deals_of_a_long_game_needs_none_of_the_others():
    """A standard game taken up at its 20th deal with scores and a dealer: the view is the
    engine's, and its seat's bot makes the same choice as in the whole game."""
    from backalley.bots import make_bot

    rules = Ruleset.preset("standard")
    game = Game(rules, seed=11)
    bots = [make_bot("heuristic") for _ in range(4)]
    while game.counted_deals < 20 or game.phase != Phase.PLAY or len(game.trick) < 2:
        seat = game.to_move
        game.apply(bots[seat].act(game.view(seat), random.Random(0)))
    seat = game.to_move
    view = game.view(seat)
    known = Knowledge.of(view)
    assert known.deal == 20 and known.scores == tuple(game.scores)
    assert known.view() == without_history(view)
    assert bots[seat].act(known.view(), random.Random(0)) == bots[seat].act(view, random.Random(0))


def knowledge(**fields):
    base = dict(
        rules=Ruleset.preset("standard", hand_sizes=[3]),
        seat=2,
        dealer=1,
        hand="9S 9H LJ",
        turn_up=["2S"],
        bids=["pass", "1", "board", "2"],
        plays=["QS", "KS"],
    )
    return Knowledge(**(base | fields))


def refused(rule: str, **fields) -> str:
    with pytest.raises(IllegalAction) as caught:
        knowledge(**fields).view()
    assert caught.value.rule == rule, caught.value
    return caught.value.message


def test_a_card_seen_twice_is_refused_D3():
    assert "QS is seen twice" in refused("D3", hand="QS 9H LJ")
    assert "2S is seen twice" in refused("D3", plays=["QS", "2S"])


def test_a_hand_of_the_wrong_size_is_refused_D2():
    assert "holds 2 and played 0" in refused("D2", hand="9S 9H")
    assert "holds 4" in refused("D2", hand="9S 9H LJ 3D")


def test_bids_out_of_order_or_range_are_refused_B1_saying_which():
    message = refused("B1", bids=["pass", "3"])
    assert message.startswith("bid 2 ('3', seat 3)")
    assert "no card can be played while bids are still due" in refused("B1", bids=["pass"])


def test_a_suit_shown_void_and_then_played_is_refused_P2():
    """Seat 3 fails to follow hearts in trick 1, then plays a heart in trick 2: no deal fits,
    and the engine says where."""
    rules = Ruleset.preset("standard", hand_sizes=[3])
    known = Knowledge(
        rules, seat=0, dealer=3, hand="2C", turn_up=["2D"],
        bids=["2", "pass", "pass", "pass"],
        plays=["AH", "3H", "4H", "5C", "AC", "KC", "QC", "7H"],
    )  # fmt: skip
    with pytest.raises(IllegalAction) as caught:
        known.view()
    assert caught.value.rule == "P2"
    assert "card 4 played (5C, seat 3)" in caught.value.message


def test_the_seats_own_cards_are_checked_as_the_engine_checks_them_P3_P4():
    rules = Ruleset.preset("standard", hand_sizes=[3])
    bids = ["board", "pass", "pass", "pass"]  # seat 1 bid board and leads (P1)
    ruffed = Knowledge(
        rules, seat=1, dealer=0, hand="QH 3D", turn_up=["2S"], bids=bids,
        plays=["AH", "KS", "4H", "5H"],
    ).view()  # fmt: skip
    assert ruffed.to_move == 2 and ruffed.voids[2] == {1}  # seat 2 ruffed: no hearts
    with pytest.raises(IllegalAction) as caught:
        Knowledge(
            rules, seat=1, dealer=0, hand="QH 3D", turn_up=["2H"],
            bids=["1", "pass", "pass", "pass"], plays=["AH"],
        ).view()  # fmt: skip
    assert caught.value.rule == "P3"  # AH a trump led before trumps were broken
    with pytest.raises(IllegalAction) as caught:
        Knowledge(
            rules, seat=2, dealer=0, hand="5H 9S", turn_up=["2H"], bids=bids,
            plays=["BJ", "3H"],
        ).view()  # fmt: skip
    assert caught.value.rule == "P4"  # the Big Blooper forced 5H, the highest trump
    assert "card 2 played (3H, seat 2)" in caught.value.message


def test_an_answer_to_a_blooper_bounds_the_trumps_left_P4():
    """After the Big Blooper seat 2 played the 3H: it holds no higher trump, so the view is
    built (any deal that fits is as good), and its later 5H is refused."""
    rules = Ruleset.preset("standard", hand_sizes=[3])
    known = dict(
        rules=rules, seat=0, dealer=3, hand="4C 5C", turn_up=["2H"],
        bids=["board", "pass", "pass", "pass"],
    )  # fmt: skip
    view = Knowledge(**known, plays=["BJ", "7S", "3H", "8S"]).view()
    assert view.to_move == 0 and view.trick_winners == (0,)
    with pytest.raises(IllegalAction) as caught:
        Knowledge(
            **(known | {"hand": "5C"}), plays=["BJ", "7S", "3H", "8S", "4C", "6C", "5H"]
        ).view()
    assert caught.value.rule == "P4" and "seat 2" in caught.value.message


def test_a_deal_no_cards_fit_is_refused_naming_the_seat():
    """Seat 1 led a trump before trumps were broken, without a board: it held nothing but
    trumps (P3 b). This seat holds every other trump, so no deal fits."""
    rules = Ruleset.preset("standard", hand_sizes=[13])
    known = Knowledge(
        rules, seat=0, dealer=3, hand="AD KD QD JD TD 9D 8D 7D 6D 4D 3D BJ LJ",
        turn_up=["2D"], bids=["pass", "3", "pass", "pass"], plays=["5D"],
    )  # fmt: skip
    with pytest.raises(IllegalAction) as caught:
        known.view()
    assert caught.value.rule == "P3" and "seat 1" in caught.value.message
    led_low = dataclasses.replace(known, plays=("5S",))
    assert led_low.view().voids == (frozenset(),) * 4


def test_a_renig_hand_is_refused_D6():
    rules = Ruleset.preset("classic", hand_sizes=[7])
    with pytest.raises(IllegalAction) as caught:
        Knowledge(rules, seat=0, dealer=3, hand="2S 3S 4S 5H 6H 7D 8D", turn_up=["2C"]).view()
    assert caught.value.rule == "D6"


def test_every_other_hand_holds_an_honour_or_a_trump_where_a_renig_would_throw_it_in():
    """Under classic at 7 cards the view is built however little the others showed."""
    rules = Ruleset.preset("classic", hand_sizes=[7])
    view = Knowledge(rules, seat=0, dealer=3, hand="AS 3S 4S 5H 6H 7D 8D", turn_up=["2C"]).view()
    assert view.to_move == 0 and view.phase == Phase.BID


def test_the_joker_exchange_is_checked_D4():
    rules = Ruleset.preset("standard", hand_sizes=[3])
    fields = dict(rules=rules, seat=0, dealer=3, hand="9S 9H 3D", turn_up=["LJ"])
    view = Knowledge(**fields, joker_shown=(0, "BJ"), drawn="3D").view()
    assert view.joker_shown == (0, Card("BJ")) and view.drawn == Card("3D")
    assert view.trump is None
    Knowledge(**fields, joker_shown=(2, "BJ")).view()  # another seat drew: unknown here
    Knowledge(**fields).view()  # nobody showed it: it lies in the stock
    for bad in (
        dict(joker_shown=(0, "BJ")),  # the card drawn is not said
        dict(joker_shown=(2, "BJ"), drawn="3D"),  # another's card drawn
        dict(joker_shown=(0, "BJ"), drawn="AC"),  # drawn, but neither held nor played
        dict(hand="9S 9H BJ"),  # holding the joker that would have been shown
        dict(drawn="3D"),
    ):
        with pytest.raises(IllegalAction) as caught:
            Knowledge(**(fields | bad)).view()
        assert caught.value.rule == "D4", bad


def test_the_turn_up_is_checked_as_the_rules_turn_it_D3_D5():
    with pytest.raises(IllegalAction) as caught:
        knowledge(turn_up=["2S", "3S"]).view()
    assert caught.value.rule == "D3"
    classic = Ruleset.preset("classic", hand_sizes=[3])
    fields = dict(rules=classic, seat=0, dealer=3, hand="9S 9H 3D")
    assert Knowledge(**fields, turn_up=["BJ", "LJ", "4C"]).view().trump == 3
    with pytest.raises(IllegalAction) as caught:
        Knowledge(**fields, turn_up=["BJ"]).view()
    assert caught.value.rule == "D5"


def test_what_is_carried_from_earlier_deals_is_checked_for_type_and_range():
    rules = Ruleset.preset("standard", hand_sizes=[3, 2, 1])
    assert knowledge(rules=rules, deal=0, scores=(12, -30)).view().scores == (12, -30)
    for bad, rule in (
        (dict(deal=3), "D2"),
        (dict(deal="1"), "D2"),
        (dict(scores=(1, 2, 3)), "S4"),
        (dict(passes=-1), "D7"),
        (dict(dealer=4), "D1"),
        (dict(tie_breaker=(0, 1, 2, 3)), "E2"),
    ):
        with pytest.raises(IllegalAction) as caught:
            knowledge(rules=rules, **bad).view()
        assert caught.value.rule == rule, bad
    with pytest.raises(SeatError):
        knowledge(seat=5).view()


def test_the_all_pass_run_carried_decides_D7():
    """With all_pass_limit 2, a deal where all pass is thrown in after one such deal, and
    played after two."""
    rules = Ruleset.preset("standard", hand_sizes=[3], all_pass_limit=2)
    fields = dict(rules=rules, seat=0, dealer=3, hand="9S 9H 3D", turn_up=["2S"])
    passes = ["pass"] * 4
    assert Knowledge(**fields, bids=passes, passes=1).view().phase == Phase.DEAL
    played = Knowledge(**fields, bids=passes, passes=2).view()
    assert played.phase == Phase.PLAY and played.leader == 0


def test_a_tie_breaker_taken_up_E2():
    rules = Ruleset.preset("classic", hand_sizes=[1])
    hand = "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"
    view = Knowledge(
        rules, seat=0, dealer=3, hand=hand, turn_up=["2H"], tie_breaker=(0, 1, 2, 3),
        scores=(40, 40),
    ).view()  # fmt: skip
    assert view.deal_kind is not None and view.deal_kind.name == "TIE_BREAKER"
    assert view.to_move == 0 and len(view.legal_actions) == 13


def test_knowledge_from_json_names_what_is_wrong():
    with pytest.raises(ValueError, match='"seat" is missing'):
        Knowledge.from_json({"dealer": 0, "turn_up": ["2S"]})
    with pytest.raises(ValueError, match="C2"):
        Knowledge.from_json({"seat": 0, "dealer": 0, "turn_up": ["2S"], "hand": ["ZZ"]})
    known = Knowledge.from_json(
        {"rules": "standard", "options": {"hand_sizes": [3, 2, 1]}, "hand_size": 2,
         "seat": 1, "dealer": 0, "hand": "AS KS", "turn_up": "2H"}
    )  # fmt: skip
    assert known.deal == 1 and known.hand == CardSet("AS KS")
    with pytest.raises(IllegalAction) as caught:
        Knowledge.from_json({"hand_size": 5, "seat": 1, "dealer": 0, "turn_up": ["2H"],
                             "options": {"hand_sizes": [3]}})  # fmt: skip
    assert caught.value.rule == "D2"


def test_a_spectators_view_has_no_knowledge_to_give():
    game = game_of("standard", hand_sizes=[2])
    deal(game, 0, ["AS KS", "AH KH", "AD KD", "AC KC"], "2S")
    play(game, "1")
    with pytest.raises(ValueError):
        Knowledge.of(game.public_view())


def test_what_a_review_found_is_refused_with_its_rule():
    """A hand with a card written twice (D3); a hand one card too many that holds the card
    drawn (D2, not D4); more cards turned up than the stock holds (D5)."""
    with pytest.raises(IllegalAction) as caught:
        knowledge(hand=["9S", "9H", "LJ", "LJ"]).view()
    assert caught.value.rule == "D3" and "LJ is seen twice" in caught.value.message
    with pytest.raises(IllegalAction) as caught:
        Knowledge.from_json({"seat": 0, "dealer": 3, "hand": ["AS", "AS"], "turn_up": "2H"})
    assert caught.value.rule == "D3"
    rules = Ruleset.preset("standard", hand_sizes=[3])
    with pytest.raises(IllegalAction) as caught:
        Knowledge(
            rules, seat=1, dealer=0, hand="9S 9H 3D 4D", turn_up=["LJ"], joker_shown=(1, "BJ"),
            drawn="3D",
        ).view()  # fmt: skip
    assert caught.value.rule == "D2"
    classic = Ruleset.preset("classic", hand_sizes=[13])
    with pytest.raises(IllegalAction) as caught:
        Knowledge(
            classic, seat=0, dealer=3, hand="AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S",
            turn_up=["LJ", "BJ", "2H"],
        ).view()  # fmt: skip
    assert caught.value.rule == "D5"


def test_options_alone_change_the_askers_rules_and_rules_name_a_preset():
    classic = Ruleset.preset("classic", hand_sizes=[3, 2, 1])
    base = {"seat": 0, "dealer": 3, "turn_up": "2S", "hand": "AS KS QS"}
    known = Knowledge.from_json(base | {"options": {"all_pass_limit": 2}}, classic)
    assert known.rules == classic.with_options({"all_pass_limit": 2})
    assert Knowledge.from_json(base | {"options": None}, classic).rules == classic
    named = Knowledge.from_json(base | {"rules": "bab", "options": {"hand_sizes": [3]}}, classic)
    assert named.rules == Ruleset.preset("bab", hand_sizes=[3])


def test_a_view_between_deals_or_after_the_game_has_no_knowledge_to_give():
    """Its scores already hold the deal just finished: taken for knowledge, that deal would
    be counted twice."""
    game = game_of("standard", hand_sizes=[1, 1])
    deal(game, 0, ["AS", "KH", "QD", "JC"], "2S")
    play(game, "board pass pass pass KH QD JC AS")
    assert game.phase == Phase.DEAL
    with pytest.raises(ValueError, match="between deals"):
        Knowledge.of(game.view(0))
