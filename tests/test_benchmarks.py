"""The benchmarks that measure players: what they compute holds, and they run as documented."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backalley.bots import make_bot
from backalley.engine import Game, Phase
from backalley.rules import Ruleset
from support import load_benchmark

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"

headroom = load_benchmark("headroom")


@pytest.mark.strength
@settings(max_examples=25, deadline=None)
@given(
    st.integers(0, 2**32),
    st.sampled_from([[3], [2], [1], [4]]),
    st.sampled_from(["easy", "medium"]),
)
def test_seeing_every_card_is_worth_at_least_playing_as_the_level(seed, sizes, level):
    """The omniscient side's value of a deal is a maximum over its own choices, which
    include the level's own: it never ends a deal further behind than the level would."""
    rules = Ruleset.preset("standard", hand_sizes=sizes, all_pass="play")
    game = Game(rules)
    game.deal_from(random.Random(seed))
    bot = make_bot(level)
    side = rules.side_of(game.to_move)
    bound = headroom.deal_value(game, 1, side, bot)
    played = game.copy()
    while played.phase in (Phase.BID, Phase.PLAY):
        played.apply(bot.act(played.view(played.to_move), random.Random(0)))
    points = played.deals[0].points
    assert bound >= points[side] - points[1 - side]
    chosen = headroom.omniscient_action(game, bot)
    assert chosen in game.legal_actions()


def run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "250"},
        check=True,
    )
    return done.stdout


def test_the_baselines_table_has_a_row_a_player_and_medium_is_its_zero():
    out = run("baselines.py", "--players", "random,medium", "--lengths", "short",
              "--games", "4", "--timing-games", "1", "--jobs", "1")  # fmt: skip
    rows = {line.split("│")[1].strip(): line for line in out.splitlines() if line.count("│") > 3}
    assert set(rows) == {"random", "medium"}
    # heuristic against itself, the same cards both ways round: exactly level
    assert "+0.0 ± 0.0" in rows["medium"]
    assert "one row: python benchmarks/baselines.py --players NAME --lengths short" in out


def test_the_headroom_table_has_its_three_rows():
    out = run("headroom.py", "--games", "4", "--jobs", "1")
    assert [part for part in headroom.PARTS if f"its {part} " in out] == list(headroom.PARTS)


def test_a_ladder_may_name_a_sampling_bot_at_budgets_of_its_own():
    strength = load_benchmark("strength")
    assert strength.ladder_pairs("expert:pimc:samples=40,seconds=1.2,hard:medium") == [
        ("expert", "pimc:samples=40,seconds=1.2"),
        ("hard", "medium"),
    ]
