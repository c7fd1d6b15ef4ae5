"""The ``bab`` preset: bab-online's rules (docs/rules.md): the five worked examples of its
scoring with the points its spec gives, and each new rule and option value at work — the
lone joker (D8), the Big Blooper forcing only opponents (P4), the bid cap of 12 (B1), the
contract cap (B3), ten points a trick (S1), zero contracts (S2), doubling boards and their
13-card exception (S3), rainbows (S5), all-zero deals dealt again by the same dealer (D7),
and bab-online's board spellings in records."""

from __future__ import annotations

import random

import pytest

from backalley.cards import BIG_BLOOPER, LITTLE_BLOOPER, card_name, parse_card
from backalley.engine import Game, IllegalAction, Phase
from backalley.record import read_record, replay, verify, write_record
from backalley.rules import Ruleset

SUITS = "SHDC"
RANKS = "AKQJT98765432"


def cards(text: str) -> list[str]:
    return text.split()


def dealt(game: Game, dealer: int, hands: list[str], stock_top: str) -> None:
    """Deal ``hands`` (as text, one per seat); the stock is ``stock_top`` then every card
    left, in a fixed order."""
    held = [c for hand in hands for c in cards(hand)] + cards(stock_top)
    rest = [r + s for s in SUITS for r in RANKS] + ["BJ", "LJ"]
    stock = cards(stock_top) + [c for c in rest if c not in held]
    game.start_deal(dealer, [cards(h) for h in hands], stock)


def searched(
    rules: Ruleset, dealer: int, bids: list[str], tricks: list[int], seeds: int = 50_000
) -> Game:
    """The first game (by seed) of one deal under ``rules`` in which, after ``bids``, random
    legal play gives the sides ``tricks``, with no rainbow and a trump suit: a deal that
    fits an example's bids and tricks, whatever its cards."""
    for seed in range(seeds):
        rng = random.Random(seed)
        game = Game(rules)
        game.deal_from(rng, first_dealer=dealer)
        deal = game.deals[-1]
        if deal.trump is None:
            continue
        for bid in bids:
            game.apply(bid)
        while game.phase == Phase.PLAY:
            game.apply(rng.choice(game.legal_actions()))
        if deal.tricks == tricks and not deal.rainbows:
            return game
    raise AssertionError("no deal fits")


def bab(size: int, **options: object) -> Ruleset:
    return Ruleset.preset("bab", hand_sizes=[size], **options)


# ------------------------------------------------------------------ the worked examples


def test_example_1_overtricks_score_ten_a_contract_trick_and_one_each_over():
    game = searched(bab(8), 3, ["3", "0", "2", "1"], [6, 2])
    assert game.deals[-1].contracts == ["5", "1"]
    assert game.deals[-1].points == [51, 11]


def test_example_2_a_zero_contract_scores_its_tricks_and_standard_scores_nothing():
    game = searched(bab(6), 3, ["0", "3", "0", "2"], [2, 4])
    assert game.deals[-1].points == [2, -50]
    standard = searched(Ruleset.preset("standard", hand_sizes=[6]), 3, ["pass", "3", "0", "2"],
                        [2, 4])  # fmt: skip
    assert standard.deals[-1].points == [0, -25]


def test_example_3_an_escalated_board_and_a_rainbow_with_the_little_joker_as_a_heart():
    game = Game(bab(4))
    dealt(game, 3, ["LJ 9S 7D 3C", "BJ AH KH QH", "2S 3S 4S 5S", "JH TH 9H 8H"], "2H")
    for bid in ["1", "B", "0", "2B"]:
        game.apply(bid)
    deal = game.deals[-1]
    assert deal.trump == SUITS.index("H") and deal.leader == 3  # the last board leads
    assert deal.rainbows == (0,)
    for card in ["JH", "LJ", "BJ", "2S", "AH", "3S", "TH", "9S", "KH", "4S", "9H", "7D",
                 "QH", "5S", "8H", "3C"]:  # fmt: skip
        game.apply(card)
    assert deal.tricks == [0, 4]
    assert deal.points == [0, 160]  # −10 + a rainbow's 10; 10 · 4 · 2² for side 1


def test_example_4_a_numeric_overbid_is_cut_to_the_hand():
    game = searched(bab(12), 3, ["7", "0", "8", "0"], [11, 1])
    deal = game.deals[-1]
    assert deal.contracts == ["12", None] and deal.thrown_in is None  # side 0 bid: no redeal
    assert deal.points == [-120, 1]


THIRTEEN = ["BJ LJ AH KH QH JH TH 9H 8H 7H 6H 5H 4H", " ".join(r + "S" for r in RANKS),
            " ".join(r + "D" for r in RANKS), " ".join(r + "C" for r in RANKS)]  # fmt: skip


@pytest.mark.parametrize(
    ("partner", "points"),
    [("0", [130, -30]), ("1", [260, -30])],
    ids=["a lone B and a 0: S3's exception", "B and a number: m = 2"],
)
def test_example_5_a_single_board_on_thirteen_cards(partner: str, points: list[int]):
    game = Game(bab(13))
    dealt(game, 3, THIRTEEN, "3H 2H")
    for bid in ["B", "2", partner, "1"]:
        game.apply(bid)
    while game.phase == Phase.PLAY:  # seat 0 leads its trumps (only trumps: P3 b) and wins
        game.apply(game.legal_actions()[-1])
    assert game.deals[-1].tricks == [13, 0]
    assert game.deals[-1].points == points


def test_example_5_a_failed_single_board_on_twelve_cards_loses_240():
    game = searched(bab(12), 3, ["B", "0", "0", "0"], [10, 2])
    assert game.deals[-1].points == [-240, 2]


# ------------------------------------------------------------------ the rules at work


def lone_joker_deal() -> Game:
    """LJ turned up (D8): no trump suit, BJ the lone joker, in seat 1's hand."""
    game = Game(bab(3))
    dealt(game, 3, ["AS KD 2C", "BJ 3S 4D", "QS QD 3C", "KS JD 4C"], "LJ")
    return game


def test_D8_a_turned_up_joker_leaves_the_other_as_the_only_trump():
    game = lone_joker_deal()
    deal = game.deals[-1]
    assert deal.trump is None and deal.lone_joker == BIG_BLOOPER and deal.exchange is None
    assert game.view(1).trump_cards == 1 << BIG_BLOOPER
    for bid in ["1", "0", "0", "1"]:
        game.apply(bid)
    assert game.to_move == 0
    game.apply("AS")
    assert parse_card("BJ") not in game.legal_actions()  # seat 1 holds a spade: follows
    game.apply("3S")
    game.apply("QS")
    game.apply("KS")  # seat 0 wins; then leads KD
    game.apply("KD")
    assert game.view(1).legal_actions == (parse_card("4D"),)
    game.apply("4D")
    game.apply("QD")
    game.apply("JD")
    game.apply("2C")  # seat 1, void in clubs, may trump with its lone joker
    game.apply("BJ")
    game.apply("3C")
    game.apply("4C")
    assert deal.tricks == [2, 1]  # the lone joker took the last trick


def test_D8_P3_the_lone_joker_is_not_led_while_its_holder_has_other_cards():
    game = Game(bab(2))
    dealt(game, 0, ["AS 2C", "BJ 3S", "QS 3C", "KS 4C"], "LJ")
    for bid in ["1", "0", "0", "0"]:  # seat 1 bids first and leads
        game.apply(bid)
    assert game.to_move == 1 and game.legal_actions() == [parse_card("3S")]
    with pytest.raises(IllegalAction) as refused:
        game.apply("BJ")
    assert refused.value.rule == "P3"


def test_D8_a_joker_turned_up_in_the_stock_leaves_no_trump_at_all():
    game = Game(bab(1))
    dealt(game, 0, ["AS", "KS", "QS", "JS"], "BJ")  # LJ is in the stock
    assert game.deals[-1].lone_joker == LITTLE_BLOOPER
    assert all(not game.hand(s) & (1 << LITTLE_BLOOPER) for s in range(4))


def big_blooper_lead(blooper: object = "big_opponents") -> Game:
    """Seat 0 leads BJ (it holds only trumps); seat 1 (an opponent) holds KH and 3H, seat 2
    (the partner) AH and 2H, seat 3 nothing but spades."""
    game = Game(bab(2, blooper_forces=blooper))
    dealt(game, 3, ["BJ LJ", "KH 3H", "AH 2H", "AS KS"], "4H")
    for bid in ["1", "0", "0", "0"]:
        game.apply(bid)
    game.apply("BJ")
    return game


def test_P4_big_opponents_forces_the_opponents_highest_trump_and_leaves_the_partner_free():
    game = big_blooper_lead()
    assert game.legal_actions() == [parse_card("KH")]  # an opponent: the highest trump
    with pytest.raises(IllegalAction) as refused:
        game.apply("3H")
    assert refused.value.rule == "P4"
    game.apply("KH")
    assert sorted(map(card_name, game.legal_actions())) == ["2H", "AH"]  # the partner: any
    game.apply("2H")


def test_P4_big_opponents_the_little_blooper_forces_nothing_beyond_following_suit():
    game = Game(bab(2))
    dealt(game, 3, ["LJ BJ", "KH 3H", "AH 2H", "AS KS"], "4H")
    for bid in ["1", "0", "0", "0"]:
        game.apply(bid)
    game.apply("LJ")
    assert sorted(map(card_name, game.legal_actions())) == ["3H", "KH"]


def test_B1_thirteen_is_refused_on_thirteen_cards_and_twelve_is_the_top():
    game = Game(bab(13), seed=1)
    top = [action for action in game.legal_actions()]
    assert "12" in [str(game.view(game.to_move).legal_actions[-2])]
    with pytest.raises(IllegalAction) as refused:
        game.apply("13")
    assert refused.value.rule == "B1" and game.legal_actions() == top


def test_D7_an_all_zero_deal_is_dealt_again_by_the_same_dealer_at_the_same_size():
    game = Game(Ruleset.preset("bab", hand_sizes=[5, 3]), seed=4)
    dealer = game.deals[-1].dealer
    for _ in range(4):
        game.apply("0")
    assert game.deals[0].thrown_in == "all_pass"
    assert game.deals[1].dealer == dealer and game.deals[1].hand_size == 5
    record = write_record(game)
    assert record["deals"][0]["bids"] == ["0", "0", "0", "0"]  # bab writes 0 for a pass
    assert verify(record).exit_code == 0


def test_bab_board_spellings_are_read_by_level_and_written_as_board():
    game = Game(bab(4), seed=3)
    game.apply("1")
    with pytest.raises(IllegalAction) as refused:
        game.apply("2B")  # the first board of the deal is B, not 2B
    assert refused.value.rule == "B1"
    game.apply("b")
    game.apply("0")
    game.apply("2b")
    assert game.deals[-1].board_level == 2
    record = write_record(game)
    assert record["deals"][0]["bids"] == ["1", "board", "0", "board"]
    again = replay(read_record(record))
    assert again.deals[-1].bids == game.deals[-1].bids
    with pytest.raises(IllegalAction):
        Game(Ruleset.preset("standard", hand_sizes=[4]), seed=3).apply("B")  # bab's alone


def test_existing_presets_keep_their_scoring():
    for name in ("standard", "classic", "classic3"):
        rules = Ruleset.preset(name)
        assert (rules.contract_points, rules.zero_contract, rules.contract_cap) == (
            5, "nothing", False)  # fmt: skip
        assert rules.rainbow_hand is None and rules.joker_turnup != "lone_joker"
