"""``backalley bot`` as other programs drive it: whole games in which some seats are bot
processes, answering from each seat's knowledge alone, as the same bots inside the engine."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from backalley.bots import make_bot, play_game
from backalley.engine import Game
from backalley.knowledge import Knowledge
from backalley.record import write_record
from backalley.rules import Ruleset


class BotProcess:
    """``backalley bot`` in a subprocess, asked one line at a time."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "backalley", "bot", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, bufsize=1,
        )  # fmt: skip

    def ask(self, line: str) -> dict:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, "the bot process ended"
        return json.loads(answer)

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=60)


def drive(rules: Ruleset, deals: int, seed: int, seats: dict[int, BotProcess], local, noise=()):
    """A game dealt from ``deals`` in which ``seats`` are asked over their process (each
    message the seat's knowledge only) and the others are ``local`` bots seeded as
    :func:`play_game` seeds them; ``noise`` lines are sent before each decision."""
    game = Game(rules, seed=deals)
    rngs = [random.Random(seed * 7919 + seat) for seat in range(rules.num_players)]
    asked = 0
    while not game.is_over:
        seat = game.to_move
        view = game.view(seat)
        if seat in seats:
            for line in noise:
                assert "error" in seats[seat].ask(line)
            message = Knowledge.of(view).to_json() | {"id": asked}
            answer = seats[seat].ask(json.dumps(message))
            assert answer["id"] == asked and answer["seat"] == seat, answer
            assert answer["action"] in {str(a) for a in view.legal_actions}
            game.apply(answer["action"])
            asked += 1
        else:
            game.apply(local[seat].act(view, rngs[seat]))
    return game, asked


def same_actions(one: Game, other: Game) -> None:
    first, second = write_record(one), write_record(other)
    assert first["deals"] == second["deals"]
    assert one.scores == other.scores


@pytest.mark.parametrize(
    ("preset", "level", "options"),
    [
        ("standard", "hard", ["--option", "hand_sizes=4,3,2,1"]),
        ("bab", "medium", ["--option", "hand_sizes=5,3,1"]),
        ("classic", "easy", ["--option", "hand_sizes=1,2,3"]),
    ],
)
def test_a_game_with_bot_processes_plays_as_the_same_bots_inside_the_engine(preset, level, options):
    """Seats 1 and 3 are one ``backalley bot --repeatable`` process, seat 0 another: with one
    seed, every action is legal and the game is the one the same bots play in the engine."""
    sizes = [int(n) for n in options[1].split("=")[1].split(",")]
    rules = Ruleset.preset(preset, hand_sizes=sizes)
    seed = 5
    common = ["--rules", preset, *options, "--seed", str(seed), "--repeatable"]
    pair, single = BotProcess("--level", level, *common), BotProcess("--level", "medium", *common)
    local = [make_bot(level, repeatable=True) for _ in range(4)]
    local[0] = make_bot("medium")
    try:
        game, asked = drive(rules, 17, seed, {1: pair, 3: pair, 0: single}, local)
    finally:
        assert pair.close() == 0 and single.close() == 0
    assert game.is_over and asked > 0
    shared = make_bot(level, repeatable=True)  # one bot for seats 1 and 3, as the process
    inside = [make_bot("medium"), shared, make_bot(level, repeatable=True), shared]
    same_actions(game, play_game(Game(rules, seed=17), inside, seed=seed))


def test_malformed_messages_are_answered_and_the_process_goes_on():
    """Between real decisions, lines that are no JSON, no object, too long, missing fields,
    contradictory or asked of a seat not on turn: each answered with an error, the game
    played to its end by the same process."""
    rules = Ruleset.preset("standard", hand_sizes=[2, 1])
    knowledge = {"seat": 0, "dealer": 3, "hand": ["AS", "KS"], "turn_up": "2H",
                 "options": {"hand_sizes": [2, 1]}}  # fmt: skip
    noise = [
        "{not json",
        "[1, 2, 3]",
        "x" * 70_000,
        json.dumps({"id": "a", "seat": 0}),
        json.dumps(knowledge | {"hand": ["AS"]}),  # too few cards: D2
        json.dumps(knowledge | {"plays": ["AS"]}),  # a card seen twice: D3
        json.dumps(knowledge | {"seat": 1, "hand": ["QS", "JS"]}),  # not seat 1's turn: B1
        json.dumps(knowledge | {"seat": 9}),
        "\x00\xff",
        '{"seat": ' + "9" * 5000 + "}",  # a number Python will not read
        "[" * 5000,  # nested deeper than the parser goes
        '{"id": NaN, "seat": 0}',  # no JSON
        json.dumps(knowledge | {"id": "\ud800", "hand": ["AS", "AS"]}),  # a lone surrogate: D3
    ]
    bot = BotProcess("--level", "medium", "--rules", "standard", "--option", "hand_sizes=2,1")
    errors = [bot.ask(line) for line in noise]
    try:
        game, asked = drive(rules, 3, 0, {0: bot, 2: bot}, [make_bot("medium")] * 4, noise[:2])
    finally:
        assert bot.close() == 0
    assert game.is_over and asked >= 3
    assert [e["error"]["rule"] for e in errors[4:8]] == ["D2", "D3", "B1", "C4"]
    assert errors[-1]["id"] == "\ud800" and errors[-1]["error"]["rule"] == "D3"
    assert errors[3]["id"] == "a" and "missing" in errors[3]["error"]["message"]
    assert all("error" in e for e in errors)


def test_a_bot_process_refuses_an_unknown_level_at_once():
    done = subprocess.run(
        [sys.executable, "-m", "backalley", "bot", "--level", "grandmaster"],
        input="", capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "unknown bot 'grandmaster'" in done.stderr


@pytest.mark.parametrize("seconds", ["0", "-1", "soon"])
def test_a_bot_process_refuses_a_time_budget_that_is_none(seconds: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "backalley", "bot", "--level", "hard", "--seconds", seconds],
        input="", capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and repr(seconds) in done.stderr
    assert ("time budget" if seconds == "0" else "not a number of seconds") in done.stderr
