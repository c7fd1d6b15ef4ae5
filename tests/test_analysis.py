"""Analysis: the review against brute force and DDS, claims against brute force, and advice
that reads nothing but the adviser's own view."""

from __future__ import annotations

import json
import random

import pytest

from backalley.analysis import (
    AnalysisError,
    Review,
    claim,
    claim_holds,
    hint,
    review,
)
from backalley.bots.pimc import deal_hidden, exclusions
from backalley.cards import BIG_BLOOPER, CARDS, LITTLE_BLOOPER, Card, mask_cards
from backalley.engine import Game, Phase
from backalley.record import read_record, replay, verify, write_record
from backalley.rules import Ruleset
from backalley.solver import Position
from support import deal, game_of, play
from test_solver import brute_force
from test_solver_dds import dds_values


def random_game(seed: int, sizes: range = range(1, 7)) -> Game:
    """A one-deal game of 1–6 cards a hand under a random preset and options, bid and played
    at random to its end (or, with ``stop``, part of the way)."""
    rng = random.Random(seed)
    preset = rng.choice(["standard", "classic", "classic3"])
    options = {
        "hand_sizes": [rng.choice(sizes)],
        "joker_turnup": rng.choice(["no_trump", "turn_again"]),
        "board_leads_trump": rng.choice(["bidder", "side", "off"]),
        "blooper_forces": rng.random() < 0.5,
        "all_pass": "play",
        "renig_min_hand": None,
        "tie_breaker": False,
    }
    game = Game(Ruleset.preset(preset, **options), seed=seed)
    while game.phase in (Phase.BID, Phase.PLAY):
        game.apply(rng.choice(game.legal_actions()))
    return game


def brute_values(game: Game, memo: dict[tuple, int] | None = None) -> dict[int, int]:
    """Each legal card's tricks for the mover's side from this trick on, by the engine;
    ``memo``, the brute force's, may be shared by positions of one deal."""
    side = game.rules.side_of(game.to_move)
    memo = {} if memo is None else memo
    number = len(game.deals) - 1
    before = game.current_deal.tricks[side]
    values = {}
    for card in game.legal_actions():
        child = game.copy()
        child.apply(card)
        gained = child.deals[number].tricks[side] - before
        still = child.phase == Phase.PLAY and len(child.deals) == number + 1
        values[card] = gained + (brute_force(child, side, memo) if still else 0)
    return values


def positions_of(game: Game):
    """The game replayed card by card: (the game before the card, the card's index)."""
    source = game.deals[-1]
    again = Game(game.rules)
    again.start_deal(source.dealer, [mask_cards(h) for h in source.hands], list(source.stock))
    for action in source.bids:
        again.apply(action)
    for index, card in enumerate(source.play):
        yield again, index
        again.apply(card)


def cheap(game: Game) -> bool:
    """Brute force answers in about a second at most here (six cards a hand for four
    players take it a minute)."""
    return game.num_players == 3 or game.hand(game.to_move).bit_count() <= 5


@pytest.mark.brute_force
@pytest.mark.parametrize("half", range(2))
def test_every_value_of_the_review_is_the_brute_force_value(half):
    # The same games for both halves (reviewing them is quick); each half brute-forces every
    # other cheap position, so that two test processes share the slow part.
    cheap_positions = 0
    seen_sizes = set()
    for seed in range(400):
        game = random_game(seed)
        reviewed = review(game).deals[0]
        assert len(reviewed.cards) == len(game.deals[0].play)
        memo: dict[tuple, int] = {}  # one deal: its positions share the brute force's work
        for (position, index), card in zip(positions_of(game), reviewed.cards, strict=True):
            assert card.index == index and card.seat == position.to_move
            if cheap(position):
                cheap_positions += 1
                if cheap_positions % 2 == half:
                    assert card.values == brute_values(position, memo)
                    seen_sizes.add(game.deals[0].hand_size)
        if cheap_positions >= 320:
            break
    assert cheap_positions >= 300 and len(seen_sizes) == 6


def no_trump_game(seed: int) -> Game:
    """A `standard` deal with a joker turned up and the other in the stock: no trump suit
    and no joker in play, so that it is bridge, and DDS can answer."""
    rng = random.Random(seed)
    size = rng.randint(2, 9)
    suit_cards = list(range(52))
    rng.shuffle(suit_cards)
    hands = [suit_cards[i * size : (i + 1) * size] for i in range(4)]
    stock = [BIG_BLOOPER, LITTLE_BLOOPER, *suit_cards[4 * size :]]
    game = Game(Ruleset.preset("standard", hand_sizes=[size], all_pass="play"))
    game.start_deal(rng.randrange(4), hands, stock)
    while game.phase in (Phase.BID, Phase.PLAY):
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_the_review_agrees_with_dds_at_every_trick_start_of_no_trump_deals():
    checked = 0
    for seed in range(60):
        game = no_trump_game(seed)
        reviewed = review(game).deals[0]
        for (position, _index), card in zip(positions_of(game), reviewed.cards, strict=True):
            if not position.trick:
                assert card.values == dds_values(Position.from_game(position))
                checked += 1
    assert checked >= 200


def test_a_lead_that_gives_a_trick_away_is_marked_with_the_better_card():
    game = game_of(hand_sizes=[2])
    # Spades are trump. Seat 2 leads; its partner holds the AH, the opponents the JC.
    deal(game, 1, ["AH 7H", "8D 5C", "QH 4C", "5H JC"], top="AS")
    play(game, "1 pass pass pass")
    play(game, "4C JC AH 5C")  # the 4C: seat 3's JC wins, and seat 0 throws its AH
    play(game, "5H 7H 8D QH")
    result = review(game)
    lead = result.deals[0].cards[0]
    assert lead.seat == 2 and lead.card == Card("4C")
    assert lead.values == {Card("QH"): 2, Card("4C"): 1}
    assert lead.cost == 1 and lead.mistake and lead.better == (Card("QH"),)
    assert [c.cost for c in result.deals[0].cards[1:]] == [0] * 7
    assert result.mistakes(2) == 1 and result.given_away(2) == 1
    assert result.deals[0].double_dummy == (2, 0) and result.deals[0].taken == (1, 1)


def test_the_better_lead_is_no_mistake():
    game = game_of(hand_sizes=[2])
    deal(game, 1, ["AH 7H", "8D 5C", "QH 4C", "5H JC"], top="AS")
    play(game, "1 pass pass pass QH 5H AH 8D")
    assert all(not card.mistake for card in review(game).deals[0].cards)


def test_a_partial_record_is_reviewed_up_to_its_last_card():
    game = Game(Ruleset.preset("standard", hand_sizes=[5, 4]), seed=8)
    while len(game.deals) < 2 or len(game.current_deal.play) < 6:
        game.apply(game.legal_actions()[1 if game.phase == Phase.BID else 0])
    result = review(json.loads(json.dumps(write_record(game, ["A", "B", "C", "D"]))))
    assert [len(d.cards) for d in result.deals] == [20, 6]
    assert result.deals[0].complete and not result.deals[1].complete
    assert result.players == ("A", "B", "C", "D") and not result.finished


def test_classic3_has_three_sides_at_the_first_lead():
    three = Game(Ruleset.preset("classic3", hand_sizes=[4], renig_min_hand=None), seed=5)
    while three.phase in (Phase.BID, Phase.PLAY):
        three.apply(three.legal_actions()[-1])
    reviewed = review(three).deals[0]
    assert len(reviewed.double_dummy) == 3 and len(reviewed.taken) == 3
    first = Game(three.rules)
    source = three.deals[0]
    first.start_deal(source.dealer, [mask_cards(h) for h in source.hands], list(source.stock))
    for action in source.bids:
        first.apply(action)
    assert list(reviewed.double_dummy) == [brute_force(first, side) for side in range(3)]


def test_thrown_in_deals_and_tie_breakers_are_listed_not_reviewed():
    game = Game(Ruleset.preset("standard", hand_sizes=[2]), seed=2)
    for _ in range(4):
        game.apply("pass")  # all pass: thrown in (D7), dealt again
    while game.phase in (Phase.BID, Phase.PLAY):
        game.apply(game.legal_actions()[-1])
    result = review(game)
    assert result.deals[0].thrown_in == "all_pass" and not result.deals[0].reviewed
    assert result.deals[0].cards == () and result.deals[1].reviewed


def test_the_json_review_holds_every_position():
    game = random_game(3)
    result = review(game)
    data = json.loads(json.dumps(result.to_json()))
    assert data["format"] == "backalley-review/1" and data["rules"] == game.rules.name
    cards = data["deals"][0]["cards"]
    assert len(cards) == len(game.deals[0].play)
    for entry, card in zip(cards, result.deals[0].cards, strict=True):
        assert entry["values"] == {str(c): v for c, v in card.values.items()}
        assert entry["cost"] == card.cost and entry["card"] == str(card.card)
    assert [s["given_away"] for s in data["summary"]] == [
        result.given_away(seat) for seat in range(game.num_players)
    ]


# ---------------------------------------------------------------------------- claims


def claim_positions():
    """Positions in play from random small games: (game, seat on turn)."""
    for seed in range(2000):
        rng = random.Random(seed)
        game = random_game(seed, sizes=range(1, 5))
        source = game.deals[0]
        stop = rng.randrange(len(source.play))
        for position, index in positions_of(game):
            if index == stop:
                yield position.copy()
                break


@pytest.mark.brute_force
def test_a_claim_holds_exactly_when_brute_force_gives_the_side_every_trick():
    outcomes = {True: 0, False: 0}
    for game in claim_positions():
        seat = game.to_move
        side = game.rules.side_of(seat)
        left = Position.from_game(game).tricks_left
        expected = brute_force(game, side) == left
        assert claim_holds(game) == expected
        before = str(game), write_record(game)
        number = len(game.deals) - 1
        taken = game.current_deal.tricks[side]
        settled = claim(game, seat)
        assert settled.accepted == expected and settled.tricks_left == left
        if expected:
            done = game.deals[number]
            assert done.tricks[side] == taken + left
            assert len(done.play) == done.hand_size * len(done.seats)
            assert verify(write_record(game)).exit_code == 0
        else:
            assert (str(game), write_record(game)) == before  # nothing changed
        outcomes[expected] += 1
        if sum(outcomes.values()) >= 320:
            break
    assert sum(outcomes.values()) >= 300 and min(outcomes.values()) >= 30


def test_only_the_player_on_turn_may_claim_or_ask_for_a_hint():
    game = Game(Ruleset.preset("standard", hand_sizes=[3]), seed=1)
    with pytest.raises(AnalysisError, match="nothing to claim"):
        claim(game, game.to_move)
    with pytest.raises(AnalysisError, match="no hint"):
        hint(game, (game.to_move + 1) % 4)
    while game.phase == Phase.BID:
        game.apply("pass" if game.to_move else "1")
    with pytest.raises(AnalysisError, match="only the player on turn"):
        claim(game, (game.to_move + 1) % 4)
    with pytest.raises(AnalysisError, match="cannot advise"):
        hint(game, game.to_move, adviser="medium")


# ---------------------------------------------------------------------------- advice


def same_view_other_hands(game: Game, seat: int, rng: random.Random) -> Game | None:
    """The game replayed with the other seats' hidden cards dealt again, consistently with
    everything ``seat`` has seen (voids, Blooper answers, its own hand, the turn-up); None
    when the new cards would not replay legally."""
    view = game.view(seat)
    hidden = deal_hidden(view, rng, exclusions(view))
    if hidden is None:
        return None
    source = game.current_deal
    played_by = {s: 0 for s in range(game.num_players)}
    for position, index in positions_of(game):
        played_by[position.to_move] |= 1 << source.play[index]
    hands = [hidden[s] | played_by[s] if s != seat else source.hands[s] for s in range(4)]
    used = 0
    for hand in hands:
        used |= hand
    turned = list(source.turned)
    rest = [c for c in range(54) if not used >> c & 1 and c not in turned]
    record = write_record(game)
    record["deals"][-1]["hands"] = [[str(CARDS[c]) for c in mask_cards(h)] for h in hands]
    record["deals"][-1]["stock"] = [str(CARDS[c]) for c in turned + rest]
    if verify(record).exit_code != 0:
        return None
    other = replay(read_record(record))
    return other if other.view(seat) == view else None


def games_in_play(count: int):
    """Standard games of 4 cards, bid and partly played by the heuristic bot, with no joker
    exchange (the drawn card would be another seat's secret to redeal)."""
    from backalley.bots import make_bot

    bot = make_bot("heuristic")
    found = 0
    for seed in range(200):
        game = Game(Ruleset.preset("standard", hand_sizes=[4]), seed=seed)
        if game.current_deal.exchange is not None:
            continue
        rng = random.Random(seed)
        for _ in range(4 + rng.randrange(12)):
            if game.phase != Phase.PLAY and game.phase != Phase.BID:
                break
            game.apply(bot.act(game.view(game.to_move), rng))
        if game.phase in (Phase.BID, Phase.PLAY):
            yield game
            found += 1
            if found == count:
                return


def test_a_hint_reads_the_seats_view_only():
    compared = 0
    for game in games_in_play(12):
        seat = game.to_move
        advice = hint(game, seat, adviser="hard", seed=3)
        assert advice.action in game.view(seat).legal_actions
        rng = random.Random(seat)
        for _ in range(4):
            other = same_view_other_hands(game, seat, rng)
            if other is None:
                continue
            assert any(other.hand(s) != game.hand(s) for s in range(4) if s != seat)
            assert hint(other, seat, adviser="hard", seed=3) == advice
            compared += 1
    assert compared >= 10


def test_the_bid_review_reads_each_bidders_view_only():
    compared = 0
    for seed in range(40):
        game = Game(Ruleset.preset("standard", hand_sizes=[3]), seed=seed)
        if game.current_deal.exchange is not None:
            continue
        for _ in range(3):
            game.apply("1")
        game.apply("pass")  # the last bid: bidding is complete, no card played
        mine = [b for b in review(game, bids=True, adviser="hard").deals[0].bids if b.seat == 0]
        last = game.copy()
        other = same_view_other_hands(last, 0, random.Random(seed))
        if other is None:
            continue
        theirs = [b for b in review(other, bids=True, adviser="hard").deals[0].bids if b.seat == 0]
        assert theirs == mine
        compared += 1
        if compared == 8:
            break
    assert compared >= 8


def test_an_expert_hint_names_its_candidates_and_expected_scores():
    game = Game(Ruleset.preset("standard", hand_sizes=[3]), seed=4)
    advice = hint(game, game.to_move)
    legal = set(game.view(game.to_move).legal_actions)
    assert advice.action in legal and set(advice.expected) <= legal
    assert advice.samples > 0 and advice.expected[advice.action] == max(advice.expected.values())
    assert hint(game, game.to_move) == advice  # repeatable


def test_review_with_bids_gives_advice_for_every_bid(capsys):
    game = Game(Ruleset.preset("standard", hand_sizes=[3, 2]), seed=6)
    while not game.is_over:
        game.apply(game.legal_actions()[1 if game.phase == Phase.BID else -1])
    result: Review = review(game, bids=True, adviser="hard", seed=1)
    for reviewed in result.deals:
        if reviewed.reviewed:
            assert len(reviewed.bids) == 4
            for bid in reviewed.bids:
                assert bid.advice in bid.expected or bid.fell_back or not bid.expected
                assert sum(bid.distribution.values()) == len(bid.tricks)
    again = review(game, bids=True, adviser="hard", seed=1)
    assert again == result
