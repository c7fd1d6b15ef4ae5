"""One test (at least) per rule id of the rule book (docs/rules.md), named after it.

Positions are dealt by hand (``support.deal``) so that each test shows exactly the rule it
names; hand sizes are kept small with the ``hand_sizes`` option.
"""

from __future__ import annotations

import pytest

from backalley.cards import (
    BIG_BLOOPER,
    FULL_DECK,
    HEARTS,
    LITTLE_BLOOPER,
    SPADES,
    CardError,
    card_name,
    parse_card,
)
from backalley.engine import BOARD, PASS, DealKind, Game, IllegalAction, Phase, bid_action
from backalley.rules import Ruleset
from support import cards, deal, game_of, mask, play

LOW_SPADES = "2S 3S 4S 5S 6S 7S 2C"
HIGH_SPADES = "AS KS QS JS TS 9S 8S"
HIGH_HEARTS = "AH KH QH JH TH 9H 8H"
HIGH_DIAMONDS = "AD KD QD JD TD 9D 8D"
HIGH_CLUBS = "AC KC QC JC TC 9C 8C"


def refused(rule: str, action, *args) -> IllegalAction:
    """Assert that ``action(*args)`` is refused citing ``rule``; return the error."""
    with pytest.raises(IllegalAction) as caught:
        action(*args)
    assert caught.value.rule == rule, caught.value
    assert caught.value.message
    return caught.value


def snapshot(game: Game) -> tuple:
    """Everything that could change, to prove a refusal changed nothing."""
    d = game.current_deal
    return (
        game.phase,
        game.to_move,
        tuple(game.scores),
        [game.hand(s) for s in range(game.num_players)],
        None if d is None else (list(d.bids), list(d.play), list(d.tricks), d.contracts[:]),
        game.trick,
        game.legal_actions(),
    )


# ---------------------------------------------------------------- C: cards and seats


def test_C1_pack_has_52_cards_and_two_distinct_jokers():
    assert FULL_DECK.bit_count() == 54
    names = {card_name(c) for c in range(54)}
    assert len(names) == 54 and {"BJ", "LJ", "AS", "2C"} <= names
    game = Game(Ruleset.preset("standard"), seed=3)
    d = game.current_deal
    dealt = [c for h in d.hands for c in range(54) if h >> c & 1] + list(d.stock)
    assert sorted(dealt) == list(range(54))


def test_C2_notation_accepts_10_and_any_case_and_writes_canonically():
    assert parse_card("10h") == parse_card("TH") == parse_card("th")
    assert card_name(parse_card("bj")) == "BJ" and card_name(parse_card("Lj")) == "LJ"
    for bad in ("1S", "AX", "", "TT", "11H", "J"):
        with pytest.raises(CardError):
            parse_card(bad)


def test_C2_malformed_card_is_refused_and_changes_nothing():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    play(game, "1 pass pass pass")
    before = snapshot(game)
    refused("C2", game.play, "ZZ")
    refused("C2", game.play, 99)
    assert snapshot(game) == before


def test_C3_jokers_are_the_top_trumps_big_over_little():
    game = game_of(hand_sizes=[2])
    # Trump hearts. Seat 1 leads a spade; seats 2, 3, 0 are void and trump in.
    deal(game, 0, ["BJ 2D", "AS 3D", "AH 4D", "LJ 5D"], top="7H")
    play(game, "1 pass pass pass")  # seat 1 bids 1 and leads
    play(game, "AS AH LJ BJ")
    assert game.current_deal.tricks == [1, 0]  # the Big Blooper (seat 0) won
    assert game.to_move == 0


def test_C3_joker_follows_a_trump_lead():
    game = game_of(hand_sizes=[2])
    # Trump hearts; seat 1 holds LJ and a club: when hearts are led it must play the joker.
    deal(game, 3, ["KH 2D", "LJ 2C", "3H 4D", "4H 5D"], top="7H")
    play(game, "pass pass board pass")  # seat 2 bids board and leads trump (P3 exception)
    play(game, "3H 4H KH")
    assert game.legal_actions() == [LITTLE_BLOOPER]
    refused("P2", game.play, "2C")


def test_C4_partners_sit_opposite_and_left_is_clockwise():
    rules = Ruleset.preset("standard")
    assert [rules.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    three = Ruleset.preset("classic3")
    assert [three.side_of(s) for s in range(3)] == [0, 1, 2] and three.num_sides == 3
    game = game_of(hand_sizes=[2])
    deal(game, 3, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    assert game.to_move == 0  # left of dealer 3 is seat 0


# ---------------------------------------------------------------- D: the deals


def test_D1_first_dealer_is_random_then_passes_clockwise():
    firsts = {Game(Ruleset.preset("standard"), seed=s).current_deal.dealer for s in range(40)}
    assert firsts == {0, 1, 2, 3}
    game = game_of(hand_sizes=[1, 1, 1])
    deal(game, 2, ["AS", "KS", "QS", "JS"], top="2H")
    play(game, "pass pass board pass KS QS JS AS")
    assert game.expected_dealer() == 3
    before = snapshot(game)
    refused("D1", game.start_deal, 2, [["AS"], ["KS"], ["QS"], ["JS"]], [])
    assert snapshot(game) == before


def test_D1_dealer_passes_after_an_all_pass_throw_in_but_not_after_a_renig():
    game = game_of(hand_sizes=[2])
    deal(game, 1, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    play(game, "pass pass pass pass")
    assert game.expected_dealer() == 2
    classic = game_of("classic", hand_sizes=[7])
    deal(classic, 1, [LOW_SPADES, HIGH_SPADES, HIGH_HEARTS, HIGH_CLUBS], top="2D")
    assert classic.current_deal.thrown_in == "renig"
    assert classic.expected_dealer() == 1


def test_D2_preset_hand_sizes():
    assert Ruleset.preset("standard").hand_sizes == (*range(13, 0, -1), *range(2, 14))
    assert len(Ruleset.preset("standard").hand_sizes) == 25
    assert Ruleset.preset("classic").hand_sizes == (*range(1, 14), *range(13, 0, -1))
    assert len(Ruleset.preset("classic").hand_sizes) == 26
    assert Ruleset.preset("classic3").hand_sizes == (*range(2, 14), *range(13, 1, -1))
    assert len(Ruleset.preset("classic3").hand_sizes) == 24
    assert Ruleset.preset("standard", hand_sizes=[7, 6, 7]).hand_sizes == (7, 6, 7)


def test_D2_wrong_hand_size_or_count_is_refused():
    game = game_of(hand_sizes=[2])
    refused("D2", game.start_deal, 0, [["AS"], ["KS"], ["QS"], ["JS"]], [])
    refused("D2", game.start_deal, 0, [["AS", "KS"], ["QS", "JS"], ["TS", "9S"]], [])
    assert game.phase == Phase.DEAL and game.current_deal is None


def test_D2_thrown_in_deal_is_dealt_again_at_the_same_size():
    game = game_of(hand_sizes=[2, 1])
    deal(game, 0, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    play(game, "pass pass pass pass")
    assert game.next_deal()[1] == 2
    deal(game, 1, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    assert game.current_deal.hand_size == 2


def test_D3_stock_is_the_rest_and_its_top_is_turned_up():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="5D")
    d = game.current_deal
    assert len(d.stock) == 46 and d.turned == (parse_card("5D"),) and d.trump == 2
    assert game.public_view().turned_up == (parse_card("5D"),)


def test_D3_duplicate_or_missing_cards_are_refused():
    game = game_of(hand_sizes=[1])
    stock = [card_name(c) for c in range(54) if card_name(c) not in ("AS", "KS", "QS", "JS")]
    refused("D3", game.start_deal, 0, [["AS"], ["AS"], ["QS"], ["JS"]], stock)
    refused("D3", game.start_deal, 0, [["AS"], ["KS"], ["QS"], ["JS"]], stock[:-1])
    game.start_deal(0, [["AS"], ["KS"], ["QS"], ["JS"]], stock)
    assert game.phase == Phase.BID


def test_D4_turned_joker_means_no_trump_and_the_other_joker_is_exchanged():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS KS", "QS BJ", "TS 9S", "8S 7S"], top="LJ 4C")
    d = game.current_deal
    assert d.trump is None
    assert d.exchange == (1, BIG_BLOOPER, parse_card("4C"))
    assert game.hand(1) == mask("QS 4C")
    # Everyone sees the discarded joker; only seat 1 knows what it drew.
    assert game.view(1).drawn == parse_card("4C")
    assert game.view(0).drawn is None and game.public_view().drawn is None
    assert game.view(2).joker_shown == (1, BIG_BLOOPER)
    # Dealt hands are recorded before the exchange.
    assert d.hands[1] == mask("QS BJ")


def test_D4_no_trump_deal_places_no_restriction_on_leads():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AH KH", "QH JH", "TH 9H", "8H 7H"], top="BJ")
    play(game, "1 pass pass pass")
    assert set(game.legal_actions()) == set(cards("JH QH"))


def test_D5_turned_jokers_are_set_aside_until_a_suit_card():
    game = game_of("classic", hand_sizes=[2])
    deal(game, 0, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="BJ LJ 3D")
    d = game.current_deal
    assert d.turned == tuple(cards("BJ LJ 3D")) and d.trump == 2
    assert game.public_view().turned_up == tuple(cards("BJ LJ 3D"))


def test_D5_a_stock_of_only_jokers_means_no_trump():
    game = game_of("classic", hand_sizes=[13])
    suits = [" ".join(r + s for r in "AKQJT98765432") for s in "SHDC"]
    deal(game, 0, suits, top="LJ BJ")
    assert game.current_deal.trump is None
    assert game.current_deal.thrown_in is None  # every hand has honours (D6)


def test_D6_renig_throws_the_deal_in_and_refuses_bids_and_cards():
    game = game_of("classic", hand_sizes=[7])
    # Trump hearts (turn-up 2H); seat 2 holds no honour and no trump.
    deal(game, 0, [HIGH_SPADES, HIGH_DIAMONDS, LOW_SPADES, HIGH_CLUBS], top="2H")
    assert game.current_deal.thrown_in == "renig"
    before = snapshot(game)
    refused("D6", game.bid, "pass")
    refused("D6", game.play, "2S")
    assert snapshot(game) == before
    assert game.next_deal() == (DealKind.NORMAL, 7, (0, 1, 2, 3))


def test_D6_a_joker_counts_as_a_trump_and_small_hands_are_not_checked():
    game = game_of("classic", hand_sizes=[7])
    deal(game, 0, [HIGH_SPADES, HIGH_DIAMONDS, "2S 3S 4S 5S 6S 7S BJ", HIGH_CLUBS], top="2H")
    assert game.current_deal.thrown_in is None and game.phase == Phase.BID
    small = game_of("classic", hand_sizes=[6])
    deal(
        small,
        0,
        ["AS KS QS JS TS 9S", "AD KD QD JD TD 9D", "2S 3S 4S 5S 6S 7S", "AC KC QC JC TC 9C"],
        top="2H",
    )
    assert small.current_deal.thrown_in is None


def test_D7_all_pass_redeal_throws_in_and_refuses_cards():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    play(game, "pass pass pass 0")
    assert game.current_deal.thrown_in == "all_pass"
    before = snapshot(game)
    refused("D7", game.play, "AS")
    refused("B1", game.bid, "pass")
    assert snapshot(game) == before


def test_D7_all_pass_play_is_played_left_of_dealer_leading():
    game = game_of("classic", hand_sizes=[1])
    deal(game, 1, ["2S", "AS", "3S", "4S"], top="2H")
    play(game, "pass pass pass pass")
    assert game.phase == Phase.PLAY and game.to_move == 2
    play(game, "3S 4S 2S AS")
    assert game.current_deal.points == [0, 0]


def test_D7_all_pass_limit_plays_the_deal_after_k_throw_ins_in_a_row():
    game = game_of(hand_sizes=[1, 1], all_pass_limit=2)
    hands = ["2S", "AS", "3S", "4S"]
    for dealer in (0, 1):  # two all-pass deals in a row are thrown in, as without a limit
        deal(game, dealer, hands, top="2H")
        play(game, "pass pass pass pass")
        assert game.current_deal.thrown_in == "all_pass"
    deal(game, 2, hands, top="2H")
    play(game, "pass pass pass pass")  # the third is played: the left of the dealer leads
    assert game.current_deal.thrown_in is None
    assert game.phase == Phase.PLAY and game.to_move == 3
    play(game, "4S 2S AS 3S")
    assert game.current_deal.points == [0, 0] and game.counted_deals == 1
    # The played deal ended the run: the next all-pass deal is thrown in again.
    deal(game, 3, hands, top="2H")
    play(game, "pass pass pass pass")
    assert game.current_deal.thrown_in == "all_pass"


def test_D7_all_pass_limit_run_is_ended_by_a_renig():
    game = game_of("classic", hand_sizes=[2], all_pass="redeal", all_pass_limit=1, renig_min_hand=2)
    hands = ["AS KS", "QS JS", "JC 9S", "AH KH"]
    deal(game, 0, hands, top="2H")
    play(game, "pass pass pass pass")
    assert game.current_deal.thrown_in == "all_pass"
    # A renig (seat 2 holds no honour and no trump) ends the run: the same dealer (D6) deals
    # again, and an all-pass deal after it is thrown in once more.
    deal(game, 1, ["AS KS", "QS JS", "3C 4C", "AH KH"], top="2H")
    assert game.current_deal.thrown_in == "renig"
    deal(game, 1, hands, top="2H")
    play(game, "pass pass pass pass")
    assert game.current_deal.thrown_in == "all_pass"


@pytest.mark.parametrize("value", [0, -1, 1.5, "2", True])
def test_D7_all_pass_limit_must_be_a_whole_number_of_one_or_more(value):
    with pytest.raises(Exception, match="all_pass_limit"):
        Ruleset.preset("standard", all_pass_limit=value)


# ---------------------------------------------------------------- B: bidding


def test_B1_each_player_bids_once_from_left_of_dealer_within_the_limit():
    game = game_of(hand_sizes=[3])
    deal(game, 1, ["AS KS QS", "JS TS 9S", "8S 7S 6S", "5S 4S 3S"], top="2H")
    assert game.to_move == 2
    assert game.legal_actions() == [PASS, bid_action(1), bid_action(2), BOARD]
    before = snapshot(game)
    refused("B1", game.bid, "3")  # n - 1 = 2 is the limit under standard
    refused("B1", game.bid, "many")
    refused("B1", game.bid, "pass", 3)  # out of turn
    refused("B1", game.play, "8S")  # a card while bids are due
    assert snapshot(game) == before
    play(game, "2 pass 1 pass")
    refused("B1", game.bid, "1")  # a second bid
    classic = game_of("classic", hand_sizes=[3])
    deal(classic, 1, ["AS KS QS", "JS TS 9S", "8S 7S 6S", "5S 4S 3S"], top="2H")
    assert bid_action(3) in classic.legal_actions()


def test_B1_with_one_card_only_pass_or_board_remain():
    game = game_of(hand_sizes=[1])
    deal(game, 0, ["AS", "KS", "QS", "JS"], top="2H")
    assert game.legal_actions() == [PASS, BOARD]
    refused("B1", game.bid, "1")


def test_B2_bids_need_not_rise_and_every_bid_is_seen():
    game = game_of(hand_sizes=[3])
    deal(game, 0, ["AS KS QS", "JS TS 9S", "8S 7S 6S", "5S 4S 3S"], top="2H")
    play(game, "2 1 1")
    view = game.view(0)
    assert view.bids == ((1, bid_action(2)), (2, bid_action(1)), (3, bid_action(1)))
    assert game.public_view().bids == view.bids


def test_B3_contract_is_the_sum_and_board_overrides_the_partners_number():
    game = game_of(hand_sizes=[3])
    deal(game, 0, ["AS KS QS", "JS TS 9S", "8S 7S 6S", "5S 4S 3S"], top="2H")
    play(game, "2 1 1")
    assert game.current_deal.contracts == ["1", "3"]
    play(game, "board")
    assert game.current_deal.contracts == ["board", "3"]


def test_B4_each_board_bid_raises_the_board_level():
    game = game_of(hand_sizes=[3])
    deal(game, 0, ["AS KS QS", "JS TS 9S", "8S 7S 6S", "5S 4S 3S"], top="2H")
    play(game, "board board pass board")
    assert game.current_deal.board_level == 3


# ---------------------------------------------------------------- P: play


def test_P1_highest_bid_leads_and_first_of_a_tied_number():
    game = game_of(hand_sizes=[3])
    deal(game, 0, ["AS KS QS", "JS TS 9S", "8S 7S 6S", "5S 4S 3S"], top="2H")
    play(game, "1 2 2 1")
    assert game.to_move == 2 and game.current_deal.leader == 2


@pytest.mark.parametrize(("preset", "leader"), [("standard", 3), ("classic", 1)])
def test_P1_board_tie_leader_last_or_first(preset, leader):
    game = game_of(preset, hand_sizes=[3])
    deal(game, 0, ["AS KS QS", "JS TS 9S", "8S 7S 6S", "5S 4S 3S"], top="2H")
    play(game, "board 2 board pass")
    assert game.current_deal.leader == leader


def test_P2_must_follow_suit_when_able():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS 2D", "KS 3D", "QD 4D", "JS 5D"], top="7H")
    play(game, "1 pass pass pass")  # seat 1 leads
    play(game, "KS")
    assert set(game.legal_actions()) == set(cards("QD 4D"))  # seat 2 has no spade: any card
    play(game, "QD")
    before = snapshot(game)
    refused("P2", game.play, "5D")  # seat 3 holds JS: revoke
    refused("P2", game.play, "AS")  # not in seat 3's hand
    refused("P2", game.play, "JS", 0)  # out of turn
    assert snapshot(game) == before


def test_P3_no_trump_lead_until_trumps_are_broken():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS 2H", "3H 3D", "KS 4H", "QS 4D"], top="7H")
    play(game, "pass 1 pass pass")  # seat 2 leads
    before = snapshot(game)
    refused("P3", game.play, "4H")
    assert snapshot(game) == before
    assert set(game.legal_actions()) == set(cards("KS"))
    play(game, "KS QS AS 3H")  # seat 1 cannot follow and trumps: trumps are broken
    assert game.trumps_broken
    assert game.to_move == 1 and set(game.legal_actions()) == set(
        cards("3D")
    )  # 3D only card anyway


def test_P3_trump_lead_allowed_after_trump_played_or_with_only_trumps():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS 2H", "3H 5H", "KS 4H", "QS 4D"], top="7H")
    play(game, "pass 1 pass pass")  # seat 2 leads KS
    play(game, "KS QS AS")
    # Seat 1 holds nothing but trumps: it may lead one (P3 b), here after ruffing.
    play(game, "3H")
    assert game.to_move == 1 and set(game.legal_actions()) == set(cards("5H"))
    only = game_of(hand_sizes=[2])
    deal(only, 0, ["AS 2D", "3H 5H", "KS 4D", "QS 5D"], top="7H")
    play(only, "1 pass pass pass")
    assert set(only.legal_actions()) == set(cards("3H 5H"))


@pytest.mark.parametrize(
    ("rule", "seat1_may", "seat3_may"),
    [("bidder", True, False), ("side", True, True), ("off", False, False)],
)
def test_P3_board_exception(rule, seat1_may, seat3_may):
    game = game_of(hand_sizes=[2], board_leads_trump=rule)
    deal(game, 0, ["2S 3S", "AH 2D", "4S 5S", "KH 3D"], top="7H")
    play(game, "board pass pass pass")
    assert game.free_trump_lead(1) is seat1_may and game.free_trump_lead(3) is seat3_may
    assert (parse_card("AH") in game.legal_actions()) is seat1_may
    if not seat1_may:
        refused("P3", game.play, "AH")


def test_P4_big_blooper_forces_highest_trump():
    game2 = game_of(hand_sizes=[3])
    deal(game2, 3, ["BJ AS 2S", "2H KH 3D", "4D 5D 6D", "3H 4H 5C"], top="7H")
    play(game2, "board pass pass pass")  # seat 0 bids board, may lead trump
    play(game2, "BJ")
    before = snapshot(game2)
    refused("P4", game2.play, "2H")  # seat 1 must play its highest trump, KH
    refused("P4", game2.play, "3D")  # breaks P4 and fails to follow: P4 is cited
    assert snapshot(game2) == before
    assert set(game2.legal_actions()) == set(cards("KH"))
    play(game2, "KH")
    assert set(game2.legal_actions()) == set(cards("4D 5D 6D"))  # seat 2: no trump, any card


def test_P4_little_blooper_forces_lowest_trump():
    game = game_of(hand_sizes=[3])
    deal(game, 3, ["LJ AS 2S", "2H KH 3D", "4D 5D 6D", "3H BJ 5C"], top="7H")
    play(game, "board pass pass pass")
    play(game, "LJ")
    assert set(game.legal_actions()) == set(cards("2H"))
    refused("P4", game.play, "KH")
    play(game, "2H 4D")
    assert set(game.legal_actions()) == set(cards("3H"))  # lowest trump, not the Big Blooper
    play(game, "3H")
    assert game.current_deal.tricks == [1, 0]


def test_P4_without_blooper_forces_any_trump_follows():
    game = game_of(hand_sizes=[3], blooper_forces=False)
    deal(game, 3, ["BJ AS 2S", "2H KH 3D", "4D 5D 6D", "3H 4H 5C"], top="7H")
    play(game, "board pass pass pass")
    play(game, "BJ")
    assert set(game.legal_actions()) == set(cards("2H KH"))


def test_P5_highest_trump_wins_else_highest_of_suit_led_and_winner_leads():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["2S 2C", "AD 3C", "KS 4C", "9D 5C"], top="7H")
    play(game, "1 pass pass pass")  # seat 1 leads
    play(game, "AD KS 9D 2S")  # nobody trumps, AD wins though KS is higher elsewhere
    assert game.to_move == 1 and game.current_deal.tricks == [0, 1]
    trumped = game_of(hand_sizes=[2])
    deal(trumped, 0, ["2H 2C", "AD 3C", "KS 4C", "9D 5C"], top="7H")
    play(trumped, "1 pass pass pass")
    play(trumped, "AD KS 9D 2H")  # seat 0 ruffs with the two of trumps
    assert trumped.to_move == 0 and trumped.current_deal.tricks == [1, 0]


def test_P6_deal_ends_when_hands_are_empty_and_further_cards_are_refused():
    game = game_of(hand_sizes=[1, 1])
    deal(game, 0, ["AS", "KS", "QS", "JS"], top="2H")
    play(game, "board pass pass pass")
    play(game, "KS QS JS AS")
    assert game.phase == Phase.DEAL and game.current_deal.tricks == [1, 0]
    before = snapshot(game)
    refused("P6", game.play, "AS")
    refused("B1", game.bid, "pass")
    assert snapshot(game) == before


# ---------------------------------------------------------------- S: scoring


def _three_card_game(bids: str, plays: str, **options: object) -> Game:
    game = game_of(hand_sizes=[3], **options)
    deal(game, 3, ["AS KS QS", "2S 3S 4S", "JS TS 9S", "5S 6S 7S"], top="2H")
    play(game, bids)
    play(game, plays)
    return game


def test_S1_made_contract_scores_five_per_trick_bid_plus_overtricks():
    # Side 0 (seats 0, 2) bids 1 + 1 = 2 and takes 3; side 1 bids 1 and takes 0.
    game = _three_card_game("1 1 1 pass", "AS 2S JS 5S KS 3S TS 6S QS 4S 9S 7S")
    assert game.current_deal.tricks == [3, 0]
    assert game.current_deal.points == [5 * 2 + 1, -5]


def test_S2_no_contract_scores_nothing_whatever_it_takes():
    game = _three_card_game("pass 1 pass pass", "2S JS 5S AS KS 3S TS 6S QS 4S 9S 7S")
    assert game.current_deal.tricks == [3, 0]
    assert game.current_deal.points == [0, -5]


def test_S3_board_scores_ten_per_card_times_board_level():
    made = _three_card_game("board pass pass pass", "AS 2S JS 5S KS 3S TS 6S QS 4S 9S 7S")
    assert made.current_deal.points == [30, 0]
    # Seat 1 (side 1) bids the second board and, as the last board bidder, leads (P1).
    double = _three_card_game("board board pass pass", "2S JS 5S AS KS 3S TS 6S QS 4S 9S 7S")
    assert double.current_deal.points == [60, -60]
    flat = _three_card_game(
        "board board pass pass", "2S JS 5S AS KS 3S TS 6S QS 4S 9S 7S", board_multiplier=False
    )
    assert flat.current_deal.points == [30, -30]


def test_S3_failed_single_board_on_five_cards_loses_fifty():
    game = game_of(hand_sizes=[5])
    deal(game, 3, ["AS KS QS JS 2D", "2S 3S 4S 5S AD", "TS 9S 8S 7S 3D", "6S 2C 3C 4C 5C"], "2H")
    play(game, "board pass pass pass")
    play(game, "AS 2S TS 6S KS 3S 9S 2C QS 4S 8S 3C JS 5S 7S 4C 2D AD 3D 5C")
    assert game.current_deal.tricks == [4, 1]
    assert game.current_deal.points == [-50, 0]


def test_S4_scores_accumulate_and_thrown_in_deals_score_nothing():
    game = game_of(hand_sizes=[1, 1])
    deal(game, 0, ["AS", "KS", "QS", "JS"], top="2H")
    play(game, "pass pass pass pass")  # thrown in: nothing scored, not counted
    assert game.scores == [0, 0] and game.counted_deals == 0
    deal(game, 1, ["AS", "KS", "QS", "JS"], top="2H")
    play(game, "pass board pass pass")  # seat 3 bids board, leads JS; seat 0 wins with AS
    play(game, "JS AS KS QS")
    assert game.scores == [0, -10]
    deal(game, 2, ["AS", "KS", "QS", "JS"], top="2H")
    play(game, "pass pass board pass")  # seat 1 bids board and fails again
    play(game, "KS QS JS AS")
    assert game.scores == [0, -20]


# ---------------------------------------------------------------- E: end of the game


def test_E1_most_points_wins_and_actions_after_the_end_are_refused():
    game = game_of(hand_sizes=[1])
    deal(game, 0, ["AS", "KS", "QS", "JS"], top="2H")
    play(game, "pass pass pass board AS KS QS JS")
    assert game.is_over and game.winner == 0 and game.scores == [10, 0]
    refused("E1", game.play, "AS")
    refused("E1", game.bid, "pass")
    refused("E1", game.start_deal, 1, [["AS"], ["KS"], ["QS"], ["JS"]], [])


def test_E1_a_tie_without_tie_breaker_is_a_draw():
    game = game_of("classic", hand_sizes=[1], tie_breaker=False)
    deal(game, 0, ["AS", "KS", "QS", "JS"], top="2H")
    play(game, "pass pass pass pass KS QS JS AS")
    assert game.is_over and game.winner is None and game.over_rule == "E1"


def _tied_classic() -> Game:
    """A classic game of one 1-card deal that everybody passes: 0 to 0, a tie-breaker."""
    game = game_of("classic", hand_sizes=[1])
    deal(game, 0, ["AS", "KS", "QS", "JS"], top="2H")
    play(game, "pass pass pass pass KS QS JS AS")
    return game


def test_E2_tie_breaker_deal_has_13_cards_no_bidding_and_ends_at_seven_tricks():
    game = _tied_classic()
    assert not game.is_over and game.next_deal() == (DealKind.TIE_BREAKER, 13, (0, 1, 2, 3))
    suits = [" ".join(r + s for r in "AKQJT98765432") for s in "SHDC"]
    deal(game, 1, suits, top="LJ BJ")  # classic: turn again; only jokers: no trump
    assert game.phase == Phase.PLAY and game.to_move == 2  # left of the dealer leads
    refused("E2", game.bid, "pass")
    # Seat 2 leads its diamonds and nobody can follow: it takes seven tricks and wins.
    for rank in "AKQJT98":
        play(game, f"{rank}D {rank}C {rank}S {rank}H")
    assert game.is_over and game.winner == 0 and game.over_rule == "E2"
    assert game.current_deal.tricks == [7, 0] and game.scores == [0, 0]
    refused("E2", game.play, "7D")


def test_E2_tie_breaker_trump_leads_follow_P3():
    game = _tied_classic()
    hands = [
        "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
        "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 2H BJ",
        "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2C",
        "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S",
    ]
    deal(game, 1, hands, top="3C")  # trump clubs; seat 2 leads and may not lead its 2C
    assert set(game.legal_actions()) == set(cards("AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H"))
    refused("P3", game.play, "2C")
    play(game, "AH 2S 2D")
    assert set(game.legal_actions()) == set(cards("2H"))


def test_E3_classic3_two_tied_players_play_heads_up_to_seven():
    game = game_of("classic3", hand_sizes=[2])
    deal(game, 2, ["AS KS", "QS JS", "TS 9S"], top="2H")
    play(game, "1 pass pass")  # seat 0 bids 1 ...
    play(game, "AS QS TS KS JS 9S")  # ... and takes both: seat 0 wins outright
    assert game.is_over and game.winner == 0
    tied = game_of("classic3", hand_sizes=[2])
    deal(tied, 2, ["2S 3S", "QS JS", "TS 9S"], top="2H")
    play(tied, "1 pass pass")  # seat 0 bids 1 and takes nothing: -5, seats 1 and 2 tie on 0
    play(tied, "2S QS TS JS 9S 3S")
    assert tied.scores == [-5, 0, 0]
    assert tied.next_deal() == (DealKind.TIE_BREAKER_TWO, 13, (1, 2))
    spades = "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"
    hearts = "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"
    refused("D2", tied.start_deal, 0, [cards(spades), cards(hearts), []], [])
    deal(tied, 0, ["", spades, hearts], top="2D")  # dealer 0 sits out and deals
    assert tied.to_move == 1 and tied.public_view().hand_counts == (0, 13, 13)
    refused("E3", tied.bid, "pass")
    for rank in "AKQJT98":
        play(tied, f"{rank}S {rank}H")  # two-card tricks; seat 1 takes seven
    assert tied.is_over and tied.winner == 1 and tied.over_rule == "E3"


def test_E3_classic3_three_tied_play_all_tricks_then_two_tied_play_on():
    game = game_of("classic3", hand_sizes=[2], joker_turnup="no_trump")
    deal(game, 1, ["AS KS", "QS JS", "TS 9S"], top="2H")
    play(game, "pass pass pass")  # classic3 plays an all-pass deal: 0, 0, 0
    play(game, "TS AS QS KS JS 9S")
    assert game.scores == [0, 0, 0]
    assert game.next_deal() == (DealKind.TIE_BREAKER_THREE, 13, (0, 1, 2))
    deal(
        game,
        2,
        [
            "AS KS QS JS TS 9S 8C 7C 6C 5C 4C 3C 2C",
            "AC AH KH QH JH TH 2D 3D 4D 5D 6D 7D 8D",
            "AD KD QD JD TD 9D 9H 8H 7H 6H 5H 4H 3H",
        ],
        top="BJ LJ",
    )
    assert game.current_deal.trump is None and game.to_move == 0
    play(game, "AS 8D 3H KS 7D 4H QS 6D 5H JS 5D 6H TS 4D 7H 9S 3D 8H")
    play(game, "8C AC 9H AH 9D 7C KH TD 6C QH JD 5C JH QD 4C TH KD 3C 2D AD 2C")
    assert game.current_deal.tricks == [6, 6, 1]
    assert not game.is_over
    assert game.next_deal() == (DealKind.TIE_BREAKER_TWO, 13, (0, 1))
    assert game.expected_dealer() == 0
    deal(
        game,
        0,
        ["AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S", "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H", ""],
        top="2D",
    )
    assert game.to_move == 1  # the dealer is tied: the other tied player leads
    for rank in "AKQJT98":
        play(game, f"{rank}H {rank}S")
    assert game.is_over and game.winner == 1


def test_hidden_hands_never_reach_another_seats_view():
    game = Game(Ruleset.preset("standard"), seed=11)
    for seat in range(4):
        view = game.view(seat)
        assert view.hand == game.hand(seat)
        assert view.legal_actions == (tuple(game.legal_actions()) if game.to_move == seat else ())
    assert game.public_view().hand == 0


def test_suits_and_joker_indices_are_as_documented():
    assert (SPADES, HEARTS) == (0, 1) and LITTLE_BLOOPER == 52 and BIG_BLOOPER == 53


@pytest.mark.parametrize("junk", [None, 1.5, True, -1, 54, "Aſ", "pass", ["AS"]])
def test_C2_anything_that_is_no_card_is_refused_as_C2(junk):
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    play(game, "1 pass pass pass")
    before = snapshot(game)
    refused("C2", game.play, junk)
    if junk not in ("pass", 54):  # both spell the action PASS: a bid, refused as B1
        refused("C2", game.apply, junk)
    assert snapshot(game) == before


@pytest.mark.parametrize("junk", [None, 1.5, True, "3.0", "-1", "14", "AS"])
def test_B1_anything_that_is_no_bid_is_refused_as_B1(junk):
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    before = snapshot(game)
    refused("B1", game.bid, junk)
    assert snapshot(game) == before


def test_actions_may_be_given_by_their_record_spelling():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    for action in ("1", "PASS", "0", "pass", "js"):
        game.apply(action)
    assert game.current_deal.play == cards("JS")
