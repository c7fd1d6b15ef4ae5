"""The duplicate arena: same cards both ways, honest statistics, same results in parallel."""

from __future__ import annotations

import json

import pytest

from backalley.arena import interval, play_pair, run_match
from backalley.bots import UnknownBot
from backalley.cli import main
from backalley.rules import Ruleset

SHORT = Ruleset.preset("standard", hand_sizes=[4, 3, 2])


def test_both_games_of_a_pair_get_the_same_cards_with_the_bots_swapped():
    first, second = play_pair("heuristic", "random", SHORT, seed=3, pair=0)
    assert (first.a_side, second.a_side) == (0, 1)
    one, two = first.record["deals"][0], second.record["deals"][0]
    assert one["hands"] == two["hands"] and one["stock"] == two["stock"]
    assert one["dealer"] == two["dealer"]
    assert first.record["players"] == ["heuristic", "random"] * 2
    assert second.record["players"] == ["random", "heuristic"] * 2


def test_the_report_adds_up():
    report = run_match("heuristic", "random", SHORT, games=8, seed=2)
    a, b = report.bots
    assert report.games == 8 and len(a.points) == len(b.points) == 8
    assert len(report.differences) == 4
    by_pair: dict[int, float] = {}
    for r in report.results:
        edge = r.scores[r.a_side] - r.scores[1 - r.a_side]
        by_pair[r.pair] = by_pair.get(r.pair, 0) + edge / 2
    assert sorted(report.differences) == sorted(by_pair.values())
    mean, half = report.difference
    assert mean == pytest.approx(sum(by_pair.values()) / 4) and half == interval(report.differences)
    assert a.wins + b.wins + a.draws == 8 and a.draws == b.draws


def test_parallel_play_gives_the_same_results():
    one = run_match("heuristic", "random", SHORT, games=6, seed=9, jobs=1)
    two = run_match("heuristic", "random", SHORT, games=6, seed=9, jobs=2)
    assert [r.scores for r in one.results] == [r.scores for r in two.results]


def test_classic3_plays_each_bot_alone_in_every_seat_over_the_same_cards():
    rules = Ruleset.preset("classic3", hand_sizes=[3, 2])
    report = run_match("heuristic", "random", rules, games=6, seed=4)
    assert report.games == 6 and len(report.differences) == 1
    seats = [tuple(r.record["players"]) for r in report.results]
    assert len(set(seats)) == 6
    assert all(
        r.record["deals"][0]["hands"] == report.results[0].record["deals"][0]["hands"]
        for r in report.results
    )
    a, b = report.bots
    for r, points in zip(report.results, a.points, strict=True):
        mine = [r.scores[s] for s, name in enumerate(r.record["players"]) if name == "heuristic"]
        assert points == sum(mine) / len(mine)
    assert report.differences[0] == pytest.approx(
        sum(x - y for x, y in zip(a.points, b.points, strict=True)) / 6
    )


def test_the_arena_needs_known_bots():
    with pytest.raises(UnknownBot, match="unknown bot"):
        run_match("random", "grandmaster", SHORT, games=2, seed=1)


def test_arena_command_prints_the_table_writes_records_and_a_plot(capsys, tmp_path):
    plot = tmp_path / "match.png"
    args = ["arena", "heuristic", "random", "--games", "4", "--seed", "1", "--rules", "classic"]
    args += ["--option", "hand_sizes=3,2", "--out", str(tmp_path / "games"), "--plot", str(plot)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "± 95 %" in out and "heuristic − random" in out
    records = sorted((tmp_path / "games").glob("set-*-game-*.json"))
    assert len(records) == 4
    assert main(["verify", str(records[0])]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_arena_refuses_bad_input_in_one_line(capsys, tmp_path):
    assert main(["arena", "random", "oracle", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "unknown bot 'oracle'" in err and err.count("\n") == 1


def test_a_repeatable_match_keeps_the_bots_off_the_clock(monkeypatch):
    from backalley.bots import pimc

    def no_clock() -> float:
        raise AssertionError("a bot read the clock")

    monkeypatch.setattr(pimc.time, "perf_counter", no_clock)
    rules = Ruleset.preset("standard", hand_sizes=[3, 2])
    one = run_match("hard", "heuristic", rules, games=2, seed=6, repeatable=True)
    two = run_match("hard", "heuristic", rules, games=2, seed=6, repeatable=True)
    assert [r.record for r in one.results] == [r.record for r in two.results]
    with pytest.raises(AssertionError, match="read the clock"):
        run_match("hard", "heuristic", rules, games=2, seed=6)


def test_arena_writes_records_only_when_asked(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["arena", "heuristic", "random", "--games", "2", "--option", "hand_sizes=2,1"]
    assert main(args) == 0
    assert list(tmp_path.iterdir()) == []
    assert "Wrote" not in capsys.readouterr().out


def test_arena_says_how_many_games_whole_deal_sets_make(capsys):
    args = ["arena", "heuristic", "random", "--games", "7", "--rules", "classic3"]
    assert main([*args, "--option", "hand_sizes=2"]) == 0
    out, err = capsys.readouterr()
    assert "Playing 12 games: 2 deal sets, each played 6 times" in err
    assert "12 games in duplicate" in out
    assert main(["arena", "heuristic", "random", "--games", "4", "--option", "hand_sizes=2"]) == 0
    assert "Playing" not in capsys.readouterr().err  # 4 games are whole sets already


def test_arena_says_before_it_starts_that_the_solver_compiles_first(capsys, monkeypatch):
    from backalley import solver

    started: list[str] = []
    monkeypatch.setattr(solver, "needs_compiling", lambda: True)
    monkeypatch.setattr(solver, "compile_search", lambda: started.append("compiled"))
    monkeypatch.setattr(
        "backalley.arena.run_match",
        lambda *args, **kwargs: started.append("match") or run_match(*args, **kwargs),
    )
    args = ["arena", "hard", "random", "--games", "2", "--option", "hand_sizes=1"]
    assert main(args) == 0
    assert "compiling the solver, once" in capsys.readouterr().err
    assert started == ["compiled", "match"]


def test_arena_takes_its_two_players_as_one_argument(capsys, monkeypatch):
    args = ["arena", "--players", "openspiel-ismcts,random", "--games", "2"]
    assert main([*args, "--option", "hand_sizes=2,1"]) == 0
    assert "openspiel-ismcts − random" in capsys.readouterr().out
    assert main(["arena", "--players", "random"]) == 2
    assert "--players names two bots" in capsys.readouterr().err
    assert main(["arena", "random", "--players", "random,random"]) == 2
    assert main(["arena", "random"]) == 2
    assert "name two bots" in capsys.readouterr().err
    import backalley.bots as bots
    import backalley.env.players as players

    def missing(argument: str | None) -> None:
        raise bots.MissingExtra("openspiel-mcts", "bench")

    monkeypatch.setattr(players, "mcts", missing)
    assert main(["arena", "openspiel-mcts", "random"]) == 2
    assert "pip install 'backalley[bench]'" in capsys.readouterr().err
