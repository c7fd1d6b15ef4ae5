"""The ``backalley`` command: verify, simulate, rules — output, exit codes and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from backalley.cli import main
from backalley.engine import Game
from backalley.record import read_record, replay
from backalley.rules import Ruleset
from backalley.simulation import simulate

RECORDS = Path(__file__).parent / "records"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("name", "code"),
    [("double_board_standard", 0), ("error_p3_forbidden_trump_lead", 1), ("exit2_not_json", 2)],
)
def test_verify_exit_codes_and_json_output(capsys, name, code):
    status, out, _err = run(capsys, "verify", str(RECORDS / f"{name}.json"))
    assert status == code
    output = json.loads(out)
    assert output["ok"] is (code == 0)
    if code == 2:
        assert output["error"]["rule"] is None and set(output) == {"ok", "error"}


def test_verify_reads_standard_input(monkeypatch, capsys):
    import io

    text = (RECORDS / "double_board_standard.json").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))
    status, out, _ = run(capsys, "verify", "-")
    assert status == 0 and json.loads(out)["ok"] is True


def test_verify_of_a_missing_file_is_exit_2_with_the_error_object(capsys, tmp_path):
    status, out, _ = run(capsys, "verify", str(tmp_path / "nothing.json"))
    assert status == 2
    output = json.loads(out)
    assert output["ok"] is False and output["error"]["rule"] is None
    assert "nothing.json" in output["error"]["message"]


def test_simulated_records_verify_to_the_engines_own_scores(capsys, tmp_path):
    rules_args = ["--rules", "classic", "--option", "hand_sizes=4,3,2", "--games", "6"]
    status, out, _ = run(capsys, "simulate", *rules_args, "--seed", "5", "--out", str(tmp_path))
    assert status == 0 and "games per second" in out
    games: list[Game] = []
    simulate(Ruleset.preset("classic", hand_sizes=[4, 3, 2]), 6, 5, lambda i, g: games.append(g))
    files = sorted(tmp_path.glob("game-*.json"))
    assert len(files) == 6
    for path, game in zip(files, games, strict=True):
        status, out, _ = run(capsys, "verify", str(path))
        output = json.loads(out)
        assert status == 0 and output["ok"] is True
        assert output["scores"] == game.scores
        assert output["winner"] == game.winner and output["finished"] is True
        assert [d["points"] for d in output["deals"]] == [d.points or [0] * 2 for d in game.deals]
        again = replay(read_record(path.read_text()))
        assert again.scores == game.scores


def test_simulate_prints_the_summary_table(capsys):
    status, out, _err = run(
        capsys, "simulate", "--rules", "classic3", "--games", "4", "--seed", "1"
    )
    assert status == 0
    for row in ("games per second", "seat 2: mean score", "renig throw-ins", "tie-breaker"):
        assert row in out


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["simulate", "--rules", "bridge"], "unknown rule set 'bridge'"),
        (["simulate", "--option", "all_pass=sometimes"], "option all_pass must be one of"),
        (["simulate", "--option", "jokers=3"], "unknown option 'jokers'"),
        (["simulate", "--option", "hand_sizes=0,14"], "hand_sizes"),
        (["simulate", "--option", "blooper_forces"], "KEY=VALUE"),
        (["simulate", "--games", "-3"], "--games"),
        (["rules", "bridge"], "unknown rule set 'bridge'"),
        (["fly"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, args, fragment):
    status, out, err = run(capsys, *args)
    assert status == 2 and out == ""
    assert fragment in err and err.count("\n") == 1 and "Traceback" not in err


def test_rules_shows_every_option_of_a_preset(capsys):
    status, out, _ = run(capsys, "rules", "classic3")
    assert status == 0
    for option in Ruleset.preset("classic3").options():
        assert option in out
    assert "2-13,13-2" in out  # the hand sizes, as runs


def test_rules_without_a_preset_compares_all_three(capsys):
    status, out, _ = run(capsys, "rules")
    assert status == 0 and all(name in out for name in ("standard", "classic", "classic3"))


@pytest.mark.parametrize("command", [[], ["verify"], ["simulate"], ["rules"], ["arena"], ["solve"]])
def test_every_command_has_help(capsys, command):
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    assert "usage:" in capsys.readouterr().out


def test_messages_follow_the_language(capsys):
    status, _, err = run(capsys, "--lang", "es", "rules", "bridge")
    assert status == 2 and "conjunto de reglas desconocido 'bridge'" in err
    status, out, _ = run(
        capsys, "--lang", "nl", "simulate", "--games", "2", "--option", "hand_sizes=2"
    )
    assert "partijen per seconde" in out


def test_the_console_script_is_installed():
    done = subprocess.run(
        [Path(sys.executable).with_name("backalley"), "rules", "standard"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "joker_turnup" in done.stdout


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        ("simulate", ["(default: 100)", "(default: 0)", "(default: standard)"]),
        ("arena", ["(default: 100)", "(default: 1)", "(default: standard)"]),
    ],
)
def test_help_shows_the_defaults(capsys, command, shown):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for default in shown:
        assert default in out


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["simulate", "--games", "0"], "0 is not 1 or more"),
        (["simulate", "--games", "many"], "'many' is not a whole number"),
        (["arena", "random", "random", "--jobs", "-2"], "-2 is not 1 or more"),
        (["simulate", "--seed", "x"], "'x' is not a whole number"),
        (["play", "--pace", "soon"], "'soon' is not a number of seconds"),
        (["play", "--partner", "genius"], "unknown level 'genius'"),
    ],
)
def test_bad_numbers_are_refused_without_internal_names(capsys, args, fragment):
    status, _, err = run(capsys, *args)
    assert status == 2 and fragment in err
    assert "_positive" not in err and "_integer" not in err and "int value" not in err


def test_an_unknown_language_is_refused_with_the_languages_offered(capsys):
    status, out, err = run(capsys, "--lang", "xx", "rules")
    assert status == 2 and out == ""
    assert "unknown language 'xx': choose one of en, es, nl, ro, tr" in err


@pytest.mark.parametrize("rule", ["P3", "p3", "E3"])
def test_rules_explain_prints_one_rule(capsys, rule):
    from backalley.rulebook import RULES

    status, out, _ = run(capsys, "rules", "--explain", rule)
    text = RULES[rule.upper()]
    assert status == 0 and out.startswith(text.id)
    assert " ".join(text.text.split()) in " ".join(out.split())
    assert text.title in out


def test_rules_explain_list_names_every_rule_and_an_unknown_id_is_refused(capsys):
    from backalley.rulebook import RULES

    status, out, _ = run(capsys, "rules", "--explain", "list")
    assert status == 0 and all(rule in out for rule in RULES)
    status, _, err = run(capsys, "rules", "--explain", "Z9")
    assert status == 2 and "there is no rule 'Z9'" in err and "C1, C2" in err


def test_rules_explain_speaks_the_readers_language(capsys):
    from backalley.rulebook import RULES

    status, out, _ = run(capsys, "--lang", "es", "rules", "--explain", "P4")
    assert status == 0 and RULES["P4"].title not in out


@pytest.mark.parametrize("url", ["sqlite:///:memory:", "sqlite://"])
def test_serve_refuses_a_database_in_memory_in_one_line(capsys, url):
    # Each of the server's threads would have a database of its own ("no such table").
    status, out, err = run(capsys, "serve", "--db", url, "--port", "0")
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "memory" in err
