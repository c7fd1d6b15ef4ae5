"""The package as a whole: one family of errors, documentation that survives compilation,
imports that point inward, and seat arithmetic stated once."""

from __future__ import annotations

import ast
import pydoc
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import backalley
from backalley import BackAlleyError, Game, IllegalAction, Ruleset, SeatError, cards, engine, rules
from backalley.bots import UnknownBot, make_bot
from backalley.cards import CardError, card_name, parse_card
from backalley.engine import legal_cards
from backalley.record import RecordError, read_record
from backalley.rules import BidError, RulesError, parse_bid
from backalley.solver import NotInPlay, OutOfBudget, Position
from support import deal, game_of, play

SRC = Path(backalley.__file__).parent


@pytest.mark.parametrize(
    "error", [IllegalAction, CardError, BidError, RulesError, RecordError, SeatError, UnknownBot]
)
def test_every_error_of_the_package_is_a_backalley_error(error):
    assert issubclass(error, BackAlleyError)
    assert issubclass(NotInPlay, BackAlleyError) and issubclass(OutOfBudget, BackAlleyError)


@pytest.mark.parametrize(
    ("call", "error", "rule"),
    [
        (lambda: card_name(54), CardError, "C2"),
        (lambda: card_name(-1), CardError, "C2"),
        (lambda: parse_card("zz"), CardError, "C2"),
        (lambda: parse_bid("all"), BidError, "B1"),
        (lambda: Game(Ruleset.preset("standard"), seed=1).view(4), SeatError, "C4"),
        (lambda: Game(Ruleset.preset("classic3"), seed=1).view(3), SeatError, "C4"),
        (lambda: Game(Ruleset.preset("standard"), seed=1).view("0"), SeatError, "C4"),
        (lambda: Ruleset.preset("bridge"), RulesError, None),
        (lambda: Ruleset.preset("standard", trumps=1), RulesError, None),
        (lambda: read_record("{"), RecordError, None),
        (lambda: make_bot("oracle"), UnknownBot, None),
        (lambda: Position.from_game(Game(Ruleset.preset("standard"), seed=1)), NotInPlay, None),
    ],
)
def test_bad_input_raises_a_named_error_with_its_rule(call, error, rule):
    with pytest.raises(error) as caught:
        call()
    assert caught.value.rule == rule and caught.value.message


def test_play_of_no_card_is_refused_as_C2_naming_the_input():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    play(game, "1 pass pass pass")
    with pytest.raises(IllegalAction) as caught:
        game.play("zz")
    assert caught.value.rule == "C2" and "'zz' is not a card" in caught.value.message


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.text(max_size=6),
    st.lists(st.integers(-3, 60), max_size=3),
    st.tuples(st.integers(), st.text(max_size=2)),
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["standard", "classic", "classic3"]), st.integers(0, 2**16), JUNK)
def test_the_public_api_answers_junk_with_its_own_errors_only(preset, seed, junk):
    game = Game(Ruleset.preset(preset, hand_sizes=[3, 2]), seed=seed)
    for _ in range(seed % 6):
        game.apply(game.legal_actions()[0])
    calls = [
        lambda: game.apply(junk),
        lambda: game.play(junk),
        lambda: game.bid(junk),
        lambda: game.view(junk),
        lambda: card_name(junk),
        lambda: parse_card(junk),
        lambda: parse_bid(junk),
        lambda: backalley.Card(junk),
        lambda: backalley.Bid(junk),
        lambda: backalley.CardSet(junk),
        lambda: Game(game.rules).start_deal(junk, [[]] * 4, []),
        lambda: Game(game.rules).start_deal(0, junk, []),
        lambda: Game(game.rules).start_deal(0, [junk] * game.num_players, junk),
    ]
    for call in calls:
        try:
            call()
        except BackAlleyError as error:
            assert error.message
        # anything else (IndexError, ValueError, TypeError…) fails the test


def test_a_refusal_changes_nothing():
    game = game_of(hand_sizes=[2])
    deal(game, 0, ["AS KS", "QS JS", "TS 9S", "8S 7S"], top="2H")
    before = str(game), repr(game)
    for junk in ("zz", 54, -1, None, "board", "AS"):
        with pytest.raises(IllegalAction):
            game.play(junk)
    assert (str(game), repr(game)) == before


def test_help_shows_the_documentation_compiled_or_not():
    text = pydoc.render_doc(backalley.Game, renderer=pydoc.plaintext)
    assert "One game of Back Alley" in text
    assert "Take ``action``" in text  # a method's docstring
    assert "legal_actions" in text and "Every action the player on turn may take" in text
    assert "The cards of ``hand`` that may be played" in pydoc.render_doc(
        legal_cards, renderer=pydoc.plaintext
    )
    assert "One card" in pydoc.render_doc(backalley.Card, renderer=pydoc.plaintext)
    assert engine.__doc__ and cards.__doc__ and rules.__doc__


def imports_of(path: Path) -> set[str]:
    """The modules ``path`` imports, wherever the import statement is (functions and
    ``TYPE_CHECKING`` blocks included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


#: Each module and the package modules it may import: the rings of docs/architecture.md.
LAYERS = {
    "cards": set(),
    "rules": {"cards"},
    "view": {"cards", "rules"},
    "engine": {"cards", "rules", "view"},
    "record": {"cards", "rules", "view", "engine"},
}


@pytest.mark.parametrize("module", sorted(LAYERS))
def test_imports_point_inward_only(module):
    imported = {
        name.removeprefix("backalley.")
        for name in imports_of(SRC / f"{module}.py")
        if name.startswith("backalley.")
    }
    assert imported <= LAYERS[module], imported - LAYERS[module]


SEAT_ARITHMETIC = [
    (re.compile(r"%\s*4\b"), "seats taken modulo 4"),
    (re.compile(r"\+\s*2\)\s*%"), "a partner as (seat + 2) % n"),
    (re.compile(r"\+\s*1\)\s*%\s*(?:len|self\.num|num_players|view\.rules)"), "the next seat"),
    (re.compile(r"\.index\(seat\)\s*\+\s*1"), "the next seat among the seats dealt in"),
    (re.compile(r"seats\[\(.*\+ 1\) %"), "the next seat among the seats dealt in"),
]
CLIENTS = [
    "view.py",
    "record.py",
    "bots/heuristic.py",
    "bots/pimc.py",
    "solver/__init__.py",
    "analysis.py",
    "report.py",
    "arena.py",
    "simulation.py",
    "tui/app.py",
    "tui/table.py",
    "tui/texts.py",
    "tui/session.py",
    "tui/replay.py",
    "server/table/state.py",
    "server/table/decide.py",
    "server/table/evolve.py",
    "server/table/service.py",
    "server/table/records.py",
    "server/table/driver.py",
    "server/protocol.py",
    "server/app.py",
]


@pytest.mark.parametrize("client", CLIENTS)
def test_views_bots_and_the_solver_call_the_one_seat_arithmetic(client):
    text = (SRC / client).read_text(encoding="utf-8")
    for pattern, what in SEAT_ARITHMETIC:
        assert not pattern.search(text), f"{client} works out {what} itself"
    assert "def _beats" not in text or "winning_card" in text  # P5 comes from the engine


def test_rules_and_engine_state_each_seat_and_trick_rule_once():
    rules = (SRC / "rules.py").read_text(encoding="utf-8")
    engine = (SRC / "engine.py").read_text(encoding="utf-8")
    for name in ("side_of", "partner_of", "left_of", "next_seat"):
        assert len(re.findall(rf"def {name}\(", rules)) == 1
        assert f"def {name}(" not in engine
    for name in ("follow_mask", "winning_card", "trick_winner", "voids", "legal_cards"):
        assert len(re.findall(rf"def {name}\(", engine)) == 1
