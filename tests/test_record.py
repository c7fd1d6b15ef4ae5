"""Records (docs/record.md): written for any game, read back, resumed, refused when malformed."""

from __future__ import annotations

import json
import random

import pytest

from backalley.engine import Game, Phase
from backalley.record import RecordError, dumps, read_record, replay, resume, verify, write_record
from backalley.rules import Ruleset


def half_played(seed: int, actions: int) -> Game:
    game = Game(Ruleset.preset("classic", hand_sizes=[5, 4, 3]), seed=seed)
    rng = random.Random(seed)
    for _ in range(actions):
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_a_game_resumed_from_its_record_goes_on_to_the_end():
    game = half_played(3, 25)
    resumed = resume(read_record(dumps(game)), seed=9)
    assert resumed.scores == game.scores and resumed.to_move == game.to_move
    rng = random.Random(1)
    while not resumed.is_over:
        resumed.apply(rng.choice(resumed.legal_actions()))
    assert verify(write_record(resumed)).output["scores"] == resumed.scores


def test_a_resumed_game_without_a_generator_waits_for_the_next_deal():
    game = half_played(4, 0)
    deal = game.current_deal
    while game.current_deal is deal:
        game.apply(game.legal_actions()[-1])
    record = write_record(game)
    record["deals"].pop()  # the next deal has not been dealt yet
    resumed = resume(read_record(record))
    assert resumed.phase == Phase.DEAL and resumed.legal_actions() == []


def test_players_names_and_changed_options_are_written():
    game = half_played(5, 3)
    record = write_record(game, players=["Ana", "Bora", "Cas", "Dirk"])
    assert record["format"] == "backalley/1" and record["rules"] == "classic"
    assert record["options"] == {"hand_sizes": [5, 4, 3]}
    assert record["players"] == ["Ana", "Bora", "Cas", "Dirk"]
    assert read_record(json.dumps(record)).players == ["Ana", "Bora", "Cas", "Dirk"]


@pytest.mark.parametrize(
    "document",
    [
        b"\xff not json",
        "[]",
        '{"format": "backalley/2", "rules": "standard", "deals": []}',
        '{"format": "backalley/1", "rules": "bridge", "deals": []}',
        '{"format": "backalley/1", "rules": "standard", "options": [], "deals": []}',
        '{"format": "backalley/1", "rules": "standard", "options": {"jokers": 1}, "deals": []}',
        '{"format": "backalley/1", "rules": "standard", "options": {"max_bid": 5}, "deals": []}',
        '{"format": "backalley/1", "rules": "standard", "players": ["a"], "deals": []}',
        '{"format": "backalley/1", "rules": "standard", "deals": {}}',
        '{"format": "backalley/1", "rules": "standard", "deals": [{"dealer": 0, "hands": []}]}',
        '{"format": "backalley/1", "rules": "standard", "deals": [{"dealer": true, "hands": [],'
        ' "stock": []}]}',
        '{"format": "backalley/1", "rules": "standard", "deals": [{"dealer": 0, "hands": [[1]],'
        ' "stock": []}]}',
    ],
)
def test_documents_that_are_not_records_exit_2_and_name_the_problem(document):
    with pytest.raises(RecordError):
        read_record(document)
    verdict = verify(document)
    assert verdict.exit_code == 2
    assert verdict.output["ok"] is False and verdict.output["error"]["rule"] is None
    assert verdict.output["error"]["message"]


def test_null_members_are_the_same_as_missing_ones():
    game = half_played(6, 10)
    record = write_record(game)
    record["players"] = None
    record["options"]["max_bid"] = None  # left out: the preset's
    for deal in record["deals"]:
        if not deal["bids"]:
            deal["bids"] = None
    assert replay(read_record(record)).scores == game.scores


def test_a_replayed_record_stops_at_the_first_illegal_action_with_its_place():
    game = half_played(7, 12)
    record = write_record(game)
    record["deals"][0]["play"][1] = record["deals"][0]["play"][0]  # a card played twice
    verdict = verify(record)
    assert verdict.exit_code == 1
    error = verdict.output["error"]
    assert (error["deal"], error["phase"], error["index"], error["rule"]) == (0, "play", 1, "P2")


@pytest.mark.parametrize(
    "options",
    [{"name": "classic"}, {"cls": 1}, {"tie_breker": None}, {"joker_turnup": "\ud800"}],
)
def test_odd_options_are_refused_as_unreadable_not_crashes(options):
    verdict = verify(
        {"format": "backalley/1", "rules": "standard", "options": options, "deals": []}
    )
    assert verdict.exit_code == 2 and verdict.output["error"]["rule"] is None
    json.dumps(verdict.output)  # printable, even for a lone surrogate


def test_deeply_nested_json_is_not_a_record():
    assert verify("[" * 100_000).exit_code == 2
