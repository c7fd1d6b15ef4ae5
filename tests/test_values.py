"""Readable values: cards, sets of cards, bids, games, deals and views name what they hold."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley import Bid, Card, CardError, CardSet, Game, Ruleset
from backalley.cards import DISPLAY_ORDER, FULL_DECK, NUM_CARDS, card_name, mask_cards
from backalley.rules import BOARD, PASS, BidError
from support import deal, game_of, play
from test_properties import rulesets

CARD_NAME = re.compile(r"\b(?:[AKQJT98765432][SHDC]|BJ|LJ)\b")


@given(st.integers(0, FULL_DECK))
def test_a_card_set_is_its_mask_and_reads_back_from_its_repr(mask):
    cards = CardSet(mask)
    assert cards == mask and len(cards) == mask.bit_count()
    assert sorted(cards) == mask_cards(mask)
    assert eval(repr(cards)) == cards
    assert str(cards).split() == [card_name(c) for c in DISPLAY_ORDER if mask >> c & 1]
    assert all(card in cards and str(card) in cards for card in cards)


def test_cards_are_shown_spades_to_clubs_high_to_low_then_the_bloopers():
    assert str(CardSet("lj 7h as bj ks 2c td")) == "AS KS 7H TD 2C BJ LJ"
    assert [str(c) for c in CardSet("2c as")] == ["AS", "2C"]


@pytest.mark.parametrize("card", range(NUM_CARDS))
def test_every_card_reads_back_from_its_repr_and_is_its_number(card):
    named = Card(card)
    assert named == card and eval(repr(named)) == named
    assert str(named) == card_name(card) and Card(str(named)) == card


@pytest.mark.parametrize("junk", [54, -1, "zz", "1S", True, 2.0, None])
def test_a_card_that_is_none_is_refused_as_C2(junk):
    with pytest.raises(CardError) as caught:
        Card(junk)
    assert caught.value.rule == "C2"


def test_a_mask_beyond_the_54_cards_is_no_card_set():
    with pytest.raises(CardError, match="beyond the 54"):
        CardSet(1 << NUM_CARDS)


@pytest.mark.parametrize("action", range(PASS, BOARD + 1))
def test_every_bid_reads_back_from_its_repr(action):
    bid = Bid(action)
    assert bid == action and eval(repr(bid)) == bid
    assert Bid(str(bid)) == bid
    assert bid.tricks == (None if action == BOARD else action - PASS)


@pytest.mark.parametrize("junk", [PASS - 1, BOARD + 1, "14", "all", True])
def test_a_bid_that_is_none_is_refused_as_B1(junk):
    with pytest.raises(BidError) as caught:
        Bid(junk)
    assert caught.value.rule == "B1"


def test_views_name_their_cards_and_bids():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    play(game, "1 pass pass")
    view = game.view(0)
    assert view.legal_actions == (Bid("pass"), Bid("1"), Bid("board"))
    assert [type(a) for a in view.legal_actions] == [Bid] * 3
    assert view.bids == ((1, Bid("1")), (2, Bid("pass")), (3, Bid("pass")))
    assert view.hand == CardSet("AS KS") and repr(view.hand) == "CardSet('AS KS')"
    assert view.turned_up == (Card("2H"),)
    play(game, "pass QS")
    view = game.view(2)
    assert view.trick == ((1, Card("QS")),) and type(view.trick[0][1]) is Card
    assert view.legal_actions == (Card("9S"), Card("TS"))  # ascending, as the engine lists
    assert view.played == CardSet("QS")


def test_a_card_or_bid_from_a_view_is_accepted_as_an_action():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    for _ in range(4):
        game.apply(game.view(game.to_move).legal_actions[1])  # a bid of 1 each
    card = game.view(game.to_move).legal_actions[0]
    game.apply(card)
    assert isinstance(card, Card) and game.current_deal.play == [int(card)]
    assert type(game.current_deal.play[0]) is int  # the engine keeps plain ints


def test_game_repr_and_str_show_the_state_and_every_hand():
    game = game_of(hand_sizes=[2])
    deal(game, 3, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    play(game, "1 pass pass board 8S")
    assert repr(game) == "<Game standard, deal 1 (2 cards), play, seat 0 to move, scores 0 / 0>"
    text = str(game)
    for hand in ("AS KS", "QS JS", "TS 9S", "7S"):
        assert hand in text
    assert "trick  seat 0 8S" not in text and "trick  seat 3 8S" in text
    assert "contracts  side 0 (seats 0 & 2) 1 (0 taken) · side 1 (seats 1 & 3) board" in text


def test_deal_repr_and_str_show_the_deal_trick_by_trick():
    game = game_of(hand_sizes=[2, 1])
    deal(game, 3, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    play(game, "1 pass pass board 8S AS QS TS KS JS 9S 7S")
    first = game.deals[0]
    assert repr(first) == (
        "<Deal dealer 3, 2 cards, trump ♥, bids 1 pass pass board, 8 of 8 cards played>"
    )
    text = str(first)
    assert "trick 1  seat 3 8S · seat 0 AS · seat 1 QS · seat 2 TS" in text
    assert "trick 2  seat 0 KS · seat 1 JS · seat 2 9S · seat 3 7S" in text
    assert "points  6 / -20" in text


@settings(max_examples=60, deadline=None)
@given(rulesets(), st.integers(0, 2**32), st.integers(0, 40))
def test_a_views_repr_and_str_name_no_card_the_seat_may_not_see(rules, seed, steps):
    game = Game(rules, seed=seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(game.legal_actions()[seed % len(game.legal_actions())])
    if game.current_deal is None:
        return
    for seat in [*range(rules.num_players), None]:
        view = game.view(seat) if seat is not None else game.public_view()
        seen = set(CardSet(view.hand | view.played)) | set(view.turned_up)
        if view.joker_shown is not None:
            seen.add(view.joker_shown[1])
        if view.drawn is not None:
            seen.add(view.drawn)
        shown = set(CARD_NAME.findall(repr(view) + str(view)))
        assert shown <= {str(card) for card in seen}


def test_ruleset_repr_is_the_call_that_makes_it():
    rules = Ruleset.preset("classic", hand_sizes=[3, 2, 1], blooper_forces=True)
    assert repr(rules) == "Ruleset.preset('classic', hand_sizes=[3, 2, 1], blooper_forces=True)"
    assert eval(repr(rules)) == rules
    assert repr(Ruleset.preset("standard")) == "Ruleset.preset('standard')"
