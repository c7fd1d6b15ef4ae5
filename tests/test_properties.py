"""Properties that hold in every game: checked with hypothesis over random rules and play."""

from __future__ import annotations

import itertools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backalley.cards import FULL_DECK, NUM_CARDS
from backalley.engine import BOARD, PASS, Game, IllegalAction, Phase
from backalley.record import read_record, replay, verify, write_record
from backalley.rules import Ruleset
from backalley.server.protocol import seat_json, view_json

RULE_IDS = {"B1", "C2", "D6", "D7", "E1", "E2", "E3", "P2", "P3", "P4", "P6"}


@st.composite
def rulesets(draw: st.DrawFn) -> Ruleset:
    """A preset with a short game and any mix of its options."""
    preset = draw(st.sampled_from(["standard", "classic", "classic3", "bab"]))
    options = {
        "hand_sizes": draw(st.lists(st.integers(1, 13), min_size=1, max_size=3)),
        "joker_turnup": draw(st.sampled_from(["no_trump", "turn_again", "lone_joker"])),
        "renig_min_hand": draw(st.sampled_from([None, 1, 5, 7])),
        "all_pass": draw(st.sampled_from(["redeal", "play", "redeal_same"])),
        "all_pass_limit": draw(st.sampled_from([None, 1, 3])),
        "max_bid": draw(st.sampled_from(["hand_minus_one", "hand", "hand_cap_12"])),
        "board_tie_leader": draw(st.sampled_from(["last", "first"])),
        "board_leads_trump": draw(st.sampled_from(["bidder", "side", "off"])),
        "blooper_forces": draw(st.sampled_from([True, False, "big_opponents"])),
        "board_multiplier": draw(st.sampled_from([True, False, "doubling"])),
        "tie_breaker": draw(st.booleans()),
        "contract_cap": draw(st.booleans()),
        "contract_points": draw(st.sampled_from([5, 10])),
        "zero_contract": draw(st.sampled_from(["nothing", "tricks"])),
        "rainbow_hand": draw(st.sampled_from([None, 1, 4, 13])),
    }
    if preset == "bab" and draw(st.booleans()):
        options = {"hand_sizes": options["hand_sizes"]}  # the preset as it is
    return Ruleset.preset(preset, **options)


def random_game(rules: Ruleset, seed: int, limit: int = 10_000):
    """Yield a game after each random legal action (bids leaning to pass, to keep it short)."""
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    yield game
    for _ in range(limit):
        if game.is_over:
            return
        legal = game.legal_actions()
        action = PASS if PASS in legal and rng.random() < 0.5 else rng.choice(legal)
        game.apply(action)
        yield game


def accounted(game: Game) -> None:
    """Every one of the 54 cards is in exactly one place: a hand, played, stock, or shown."""
    deal = game.current_deal
    assert deal is not None
    places = [game.hand(s) for s in range(game.num_players)]
    played = 0
    for card in deal.play:
        assert not played >> card & 1
        played |= 1 << card
    places.append(played)
    stock = 0
    for card in deal.stock:
        stock |= 1 << card
    if deal.exchange is not None:
        _seat, joker, drawn = deal.exchange
        stock &= ~(1 << drawn)
        places.append(1 << joker)
    places.append(stock)
    union = 0
    for place in places:
        assert union & place == 0, "a card is in two places"
        union |= place
    assert union == FULL_DECK
    assert sum(p.bit_count() for p in places) == NUM_CARDS


fast = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fast
@given(rulesets(), st.integers(0, 2**32))
def test_every_card_is_accounted_for_at_every_step(rules, seed):
    for game in random_game(rules, seed):
        accounted(game)


@fast
@given(rulesets(), st.integers(0, 2**32), st.integers(0, 2**32))
def test_legal_actions_are_accepted_and_others_refused_unchanged(rules, seed, probe_seed):
    probe = random.Random(probe_seed)
    for game in random_game(rules, seed):
        legal = game.legal_actions()
        if game.phase in (Phase.BID, Phase.PLAY):
            assert legal, "a player on turn always has an action"
        for action in probe.sample(legal, min(3, len(legal))):
            trial = game.copy()
            trial.apply(action)  # never refused
        others = [a for a in range(BOARD + 1) if a not in legal]
        for action in probe.sample(others, min(4, len(others))):
            before = write_record(game), game.legal_actions(), game.to_move
            try:
                game.apply(action)
            except IllegalAction as error:
                assert error.rule in RULE_IDS and error.message
            else:
                raise AssertionError(f"{action} was accepted but not listed as legal")
            assert (write_record(game), game.legal_actions(), game.to_move) == before


@fast
@given(rulesets(), st.integers(0, 2**32), st.integers(0, 400))
def test_a_record_replays_to_the_same_scores_and_round_trips(rules, seed, stop):
    steps = random_game(rules, seed)
    game = next(steps)
    for _ in itertools.islice(steps, stop):  # the same game object, advanced in place
        pass
    record = write_record(game)
    again = replay(read_record(record))
    assert again.scores == game.scores and again.winner == game.winner
    assert again.phase == game.phase and again.to_move == game.to_move
    assert again.legal_actions() == game.legal_actions()
    assert write_record(again) == record
    verdict = verify(record)
    assert verdict.exit_code == 0
    assert verdict.output["scores"] == game.scores
    assert verdict.output["finished"] == game.is_over
    assert verdict.output["winner"] == game.winner


@fast
@given(rulesets(), st.integers(0, 2**32))
def test_a_copy_is_independent_of_its_original(rules, seed):
    for game in random_game(rules, seed, limit=60):
        if game.is_over:
            break
        copy = game.copy()
        record = write_record(game)
        legal = copy.legal_actions()
        copy.apply(legal[-1])
        assert write_record(game) == record


@fast
@given(rulesets(), st.integers(0, 2**32))
def test_a_view_shows_its_own_hand_and_nothing_of_the_others(rules, seed):
    for game in random_game(rules, seed, limit=200):
        if game.current_deal is None:
            continue
        for seat in range(game.num_players):
            view = game.view(seat)
            assert view.hand == game.hand(seat)
            others = 0
            for other in range(game.num_players):
                if other != seat:
                    others |= game.hand(other)
            assert others & ~view.unseen == 0, "another seat's card is visible"
        assert game.public_view().hand == 0


@fast
@given(rulesets(), st.integers(0, 2**32))
def test_a_seats_view_is_the_public_view_and_its_own_fields(rules, seed):
    # The server converts the public view once a broadcast and adds each seat's own fields.
    for game in random_game(rules, seed, limit=200):
        public = view_json(game.public_view())
        for seat in range(game.num_players):
            view = game.view(seat)
            assert view_json(view) == {**public, **seat_json(view)}


def test_a_seat_outside_the_table_has_no_view():
    game = Game(Ruleset.preset("standard"), seed=2)
    for seat in (-1, 4, "0", True):
        try:
            game.view(seat)  # type: ignore[arg-type]
        except ValueError as error:
            assert "no seat" in str(error)
        else:
            raise AssertionError(f"view({seat!r}) was given")


@fast
@given(rulesets(), st.integers(0, 10_000))
def test_no_run_of_all_pass_throw_ins_is_longer_than_the_limit(rules, seed):
    # D7: after all_pass_limit all-pass throw-ins in a row, the next all-pass deal is played.
    *_, game = random_game(rules, seed)
    run = longest = 0
    for deal in game.deals:
        run = run + 1 if deal.thrown_in == "all_pass" else 0
        longest = max(longest, run)
    if rules.all_pass == "play":
        assert longest == 0
    elif rules.all_pass_limit is not None:
        assert longest <= rules.all_pass_limit
