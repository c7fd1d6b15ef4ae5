"""The ratings-accuracy benchmark's parts (benchmarks/ratings_accuracy.py), on a few games
of random and medium bots (two levels far enough apart for a few games to tell)."""

from __future__ import annotations

import json
import random
from types import SimpleNamespace

import pytest

from backalley import ratings
from backalley.ratings import NEWCOMER, Standing
from support import load_benchmark

bench = load_benchmark("ratings_accuracy")

TWO = {"random": 1.0, "medium": 1.0}


@pytest.fixture(scope="module")
def games() -> list:
    seeds = bench.seeds_of("calibration", 7, 80)
    return bench.play_all(seeds, "longer", TWO)


def test_brier_on_known_inputs() -> None:
    assert bench.brier([0.5] * 4, [1, 0, 1, 0]) == 0.25
    assert bench.brier([1.0, 0.0, 0.5], [1, 1, 0]) == pytest.approx((0 + 1 + 0.25) / 3)
    with pytest.raises(ValueError):
        bench.brier([0.5], [1, 0])


def test_calibration_bins() -> None:
    bins = bench.calibration_bins([0.05, 0.15, 0.12, 1.0], [0, 1, 0, 1], bins=10)
    assert [b.count for b in bins] == [1, 2, 0, 0, 0, 0, 0, 0, 0, 1]
    assert bins[1].predicted == pytest.approx(0.135) and bins[1].observed == 0.5


def test_seed_sets_are_disjoint_and_games_repeat() -> None:
    calibration = bench.seeds_of("calibration", 1, 100)
    others = [bench.seeds_of("accuracy", 1, 100), bench.seeds_of("calibration", 2, 100)]
    assert all(not set(calibration) & set(other) for other in others)
    once, twice = bench.play(calibration[3], "short", TWO), bench.play(calibration[3], "short", TWO)
    assert (once.levels, once.scores, once.winner) == (twice.levels, twice.scores, twice.winner)
    assert set(once.levels) <= set(TWO) and once.sides == (0, 1, 0, 1)


def test_win_rate_baseline() -> None:
    rates = bench.WinRates()
    assert rates.chance([["easy", "medium"], ["medium", "easy"]]) == 0.5
    lost = bench.Played(0, ("easy", "medium", "easy", "medium"), (0, 1, 0, 1), (-50, 90), 1)
    rates.add(lost)  # easy: 0 wins in 2 seats → 1/4; medium: 2 in 2 → 3/4
    assert rates.chance([["easy", "easy"], ["medium", "medium"]]) == pytest.approx(0.25)
    assert rates.chance([["easy", "medium"], ["medium", "medium"]]) == pytest.approx(0.5 / 1.25)


def test_a_level_seated_on_both_sides_is_one_player() -> None:
    mirror = bench.Played(0, ("medium", "medium", "easy", "easy"), (0, 1, 0, 1), (10, 10), None)
    after = bench.rate_game(dict.fromkeys(bench.ORDER, NEWCOMER), mirror)
    assert after["medium"].mu == pytest.approx(25) and after["medium"].games == 1
    assert after["medium"].sigma < NEWCOMER.sigma and after["hard"] == NEWCOMER


def test_medium_rates_above_random_and_beats_the_coin(games: list) -> None:
    standings = bench.calibrate(games, levels=list(TWO))
    assert bench.by_rating(standings) == ["random", "medium"]
    assert standings["medium"].mu > standings["random"].mu + 5
    result = bench.forecast(games, levels=list(TWO))
    assert bench.by_rating(result.standings) == bench.by_rating(standings)
    openskill = bench.brier(result.chances["openskill"], result.outcomes)
    assert openskill < bench.brier(result.chances["constant"], result.outcomes) == 0.25


def test_calibration_writes_what_ratings_reads(games: list, tmp_path, monkeypatch) -> None:
    standings = bench.calibrate(games, levels=list(TWO))
    bench.write_anchors(tmp_path / "anchors.json", standings, "a test")
    assert json.loads((tmp_path / "anchors.json").read_text())["note"] == "a test"
    monkeypatch.setattr(ratings, "resources", SimpleNamespace(files=lambda _package: tmp_path))
    ratings.anchors.cache_clear()
    try:
        read = ratings.anchors()
    finally:
        ratings.anchors.cache_clear()
    assert list(read) == ["random", "medium"]
    for level, s in standings.items():
        assert read[level] == Standing(round(s.mu, 4), round(s.sigma, 4), s.games)


def test_a_newcomer_leaves_provisional_against_anchors() -> None:
    fixed = {"medium": Standing(25, 1.0, 100)}
    played = bench.games_to_leave_provisional(fixed, random.Random(1), lambda _: ["medium"] * 3)
    assert 5 < played < 100


def test_the_calibration_finds_the_skills_games_were_played_at() -> None:
    """Games whose outcomes are drawn by the server's own model (win_chances) at known
    skills, levels seated at random: the fit gives those skills back (their differences,
    the mean kept at a newcomer's), each within a few of its standard errors."""
    truth = {"easy": Standing(22.0, 0.0, 0), "medium": Standing(24.5, 0.0, 0),
             "hard": Standing(25.5, 0.0, 0), "expert": Standing(28.0, 0.0, 0)}  # fmt: skip
    rng = random.Random(5)
    games = []
    for seed in range(6000):
        levels = tuple(rng.choice(list(truth)) for _ in range(4))
        sides = (0, 1, 0, 1)
        chance = ratings.win_chances([[truth[levels[0]], truth[levels[2]]],
                                      [truth[levels[1]], truth[levels[3]]]])[0]  # fmt: skip
        won = rng.random() < chance
        games.append(bench.Played(seed, levels, sides, (1, 0) if won else (0, 1), None))
    fitted = bench.calibrate(games)
    assert bench.by_rating(fitted) == ["easy", "medium", "hard", "expert"]
    assert sum(s.mu for s in fitted.values()) / 4 == pytest.approx(ratings.MU)
    for level, standing in fitted.items():
        assert abs(standing.mu - truth[level].mu) < 4 * standing.sigma + 0.05, level
        assert 0 < standing.sigma < 0.5 and standing.games > 3000
