"""``backalley review`` and ``backalley hint``: tables, JSON, the HTML page, bad input."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from backalley.analysis import review
from backalley.cli import main
from backalley.engine import Game
from backalley.record import write_record
from backalley.rules import Ruleset
from support import deal, game_of, play

EXAMPLE = Path(__file__).parent.parent / "docs" / "examples" / "six_cards_mid_deal.json"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def mistake_record(tmp_path) -> Path:
    """A two-card deal in which seat 2's lead of the 4C gives a trick away (QH was better)."""
    game = game_of(hand_sizes=[2, 1])
    deal(game, 1, ["AH 7H", "8D 5C", "QH 4C", "5H JC"], top="AS")
    play(game, "1 pass pass pass 4C JC AH 5C 5H 7H 8D QH")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(write_record(game, ["Ana", "Bora", "Cas", "Dirk"])))
    return path


def test_review_marks_the_mistake_with_the_better_card_and_sums_it_up(capsys, mistake_record):
    status, out, _ = run(capsys, "review", str(mistake_record))
    assert status == 0
    assert re.search(r"› 4C \?\s", out) and "better: QH" in out
    row = next(line for line in out.splitlines() if line.startswith("│ Cas (seat 2)"))
    assert [cell.strip() for cell in row.split("│")[2:5]] == ["2", "1", "1"]
    assert "side 0 (seats 0 & 2): contract 1, double dummy 2, took 1" in out


def test_review_json_is_the_librarys_review(capsys, mistake_record):
    status, out, _ = run(capsys, "review", str(mistake_record), "--json")
    assert status == 0
    data = json.loads(out)
    assert data == json.loads(json.dumps(review(mistake_record.read_text()).to_json()))
    lead = data["deals"][0]["cards"][0]
    assert lead == {
        "index": 0,
        "trick": 0,
        "seat": 2,
        "card": "4C",
        "values": {"QH": 2, "4C": 1},
        "best": 2,
        "cost": 1,
        "better": ["QH"],
    }
    assert data["players"] == ["Ana", "Bora", "Cas", "Dirk"]


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.fetches: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.fetches.append(value)

    def handle_data(self, data):
        self.text.append(data)


def test_review_writes_a_self_contained_html_page(capsys, mistake_record, tmp_path):
    page = tmp_path / "review.html"
    status, out, _ = run(capsys, "review", str(mistake_record), "--out", str(page))
    assert status == 0 and str(page) in out
    parser = Page()
    parser.feed(page.read_text(encoding="utf-8"))
    text = " ".join(parser.text)
    assert parser.fetches == []  # nothing to load: it opens offline
    assert "4C ?" in text and "better: QH" in text and "Cas (seat 2)" in text


def test_review_speaks_the_readers_language(capsys, mistake_record):
    status, out, _ = run(capsys, "--lang", "nl", "review", str(mistake_record))
    assert status == 0 and "better: QH" not in out and "QH" in out


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["review", "nothing.json"], "cannot read nothing.json"),
        (["hint", "nothing.json"], "cannot read nothing.json"),
    ],
)
def test_review_and_hint_refuse_bad_input_in_one_line(capsys, args, fragment):
    status, out, err = run(capsys, *args)
    assert status == 2 and out == "" and fragment in err and err.count("\n") == 1


def test_review_of_a_record_with_an_illegal_card_names_the_rule(capsys, tmp_path):
    record = json.loads(EXAMPLE.read_text())
    record["deals"][0]["play"].append("BJ")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    status, _, err = run(capsys, "review", str(path))
    assert status == 2 and "not a valid record" in err and "P2" in err


def test_hint_names_the_choice_and_each_candidates_expected_points(capsys):
    status, out, _ = run(capsys, "hint", str(EXAMPLE), "--json")
    assert status == 0
    data = json.loads(out)
    assert data["seat"] == 2 and data["action"] in data["expected"]
    assert data["expected"][data["action"]] == max(data["expected"].values())
    assert set(data["expected"]) <= {"2H", "QH"} and data["samples"] > 0
    status, text, _ = run(capsys, "hint", str(EXAMPLE))
    assert f"would play {data['action']}" in text


def test_hint_for_a_seat_not_on_turn_is_refused(capsys):
    status, _, err = run(capsys, "hint", str(EXAMPLE), "--seat", "0")
    assert status == 2 and "seat 0 is not to move" in err


def test_hint_during_the_bidding_names_a_bid(capsys, tmp_path):
    game = Game(Ruleset.preset("standard", hand_sizes=[3]), seed=4)
    path = tmp_path / "bidding.json"
    path.write_text(json.dumps(write_record(game)))
    status, out, _ = run(capsys, "hint", str(path))
    assert status == 0 and "would bid" in out
