"""The rule book: ``backalley.rulebook`` and ``docs/rules.md`` say the same thing.

The texts of ``rules --explain`` and the rule book a reader opens must never drift apart: every
rule's bullet in docs/rules.md is its ``Rule`` word for word, the option table gives each
preset's values as :class:`~backalley.rules.Ruleset` has them, and every worked scoring example
is what the engine scores.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from backalley.engine import deal_points
from backalley.rulebook import RULES, SECTIONS, Rule
from backalley.rules import OPTIONS, PRESETS, Ruleset

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"
RULE_BOOK = DOCS / "rules.md"
IDS = [
    *(f"C{i}" for i in range(1, 5)),
    *(f"D{i}" for i in range(1, 9)),
    *(f"B{i}" for i in range(1, 5)),
    *(f"P{i}" for i in range(1, 7)),
    *(f"S{i}" for i in range(1, 6)),
    *(f"E{i}" for i in range(1, 4)),
]


def collapsed(text: str) -> str:
    return " ".join(text.split())


def table(text: str, header: str) -> list[list[str]]:
    """The body rows of the markdown table whose header row starts with ``header``, as cells
    with surrounding spaces and backticks removed."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:  # past the header and its |---| line
        if not line.startswith("|"):
            break
        rows.append([cell.strip().strip("`") for cell in line.strip().strip("|").split("|")])
    return rows


def runs(text: str) -> list[int]:
    """Hand sizes written as runs, the way ``backalley rules`` shows them: ``13-1,2-13``, and
    ``12-2/2`` by twos."""
    sizes: list[int] = []
    for part in text.split(","):
        part, _, by = part.partition("/")
        first, _, last = part.partition("-")
        a, b, step = int(first), int(last or first), int(by or 1)
        sizes.extend(range(a, b + (1 if b >= a else -1), step if b >= a else -step))
    return sizes


def test_rules_are_every_id_in_rule_book_order():
    assert list(RULES) == IDS
    assert all(isinstance(rule, Rule) and key == rule.id for key, rule in RULES.items())


def test_sections_cover_each_rule_once_in_order():
    assert len(SECTIONS) == 6
    ids = [rule_id for _, section in SECTIONS for rule_id in section]
    assert ids == IDS
    for title, section in SECTIONS:
        assert title and {rule_id[0] for rule_id in section} == {section[0][0]}


@pytest.mark.parametrize("rule_id", IDS)
def test_each_text_is_plain_and_short(rule_id):
    rule = RULES[rule_id]
    assert rule.title and rule.text.endswith(".")
    for text in (rule.title, rule.text):
        assert "\n" not in text and "  " not in text and text == text.strip()
        assert not set(text) & set("{}`*<>#[]|")  # plain text, no format placeholders
    assert len(rule.text) <= 600
    assert "shared/" not in rule.text


def test_every_title_and_text_is_marked_for_translation_literally():
    """Babel extracts ``N_("…")`` calls with a literal argument, and nothing else."""
    tree = ast.parse((ROOT / "src" / "backalley" / "rulebook.py").read_text(encoding="utf-8"))
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Rule"
    ]
    assert len(calls) == len(IDS)
    for call in calls:
        for argument in call.args[1:]:
            assert isinstance(argument, ast.Call) and isinstance(argument.func, ast.Name)
            assert argument.func.id == "N_"
            assert len(argument.args) == 1 and isinstance(argument.args[0], ast.Constant)
            assert isinstance(argument.args[0].value, str)


@pytest.mark.parametrize("rule_id", IDS)
def test_docs_carry_each_rule_word_for_word(rule_id):
    rule = RULES[rule_id]
    bullet = f"- **{rule.id}** **{rule.title}.** {rule.text}"
    assert collapsed(bullet) in collapsed(RULE_BOOK.read_text(encoding="utf-8"))


def test_docs_list_the_rules_in_order_under_their_sections():
    text = RULE_BOOK.read_text(encoding="utf-8")
    found = re.findall(r"^- \*\*([CDBPSE]\d)\*\* \*\*", text, flags=re.M)
    assert found == IDS
    headings = re.findall(r"^## \d\. (.+)$", text, flags=re.M)
    assert headings[:6] == [title for title, _ in SECTIONS]


def test_option_table_gives_each_presets_values():
    rows = table(RULE_BOOK.read_text(encoding="utf-8"), "| option | values |")
    header = ["option", "values", *PRESETS, "rule"]
    by_name = {row[0]: dict(zip(header, row, strict=True)) for row in rows}
    assert list(by_name) == [option.name for option in OPTIONS]
    for option in OPTIONS:
        row = by_name[option.name]
        assert row["rule"] == option.rule
        for preset in PRESETS:
            expected = Ruleset.preset(preset).options()[option.name]
            cell = row[preset]
            written = runs(cell) if option.name == "hand_sizes" else json.loads(cell)
            assert written == expected and type(written) is type(expected), (option, preset)
        if option.choices is not None:
            shown = [json.loads(value.strip(" `")) for value in row["values"].split(",")]
            assert shown == list(option.choices)


def test_worked_scoring_examples_are_what_the_engine_scores():
    header = "| example | hand size | contract | board level | board_multiplier |"
    rows = table(RULE_BOOK.read_text(encoding="utf-8"), header)
    kinds = set()
    for name, size, contract_cell, level_cell, multiplier_cell, taken, points in rows:
        contract = json.loads(contract_cell)
        hand_size, tricks = int(size), int(taken)
        level = 1
        if contract == "board" and json.loads(multiplier_cell):
            level = int(level_cell)
        expected = int(points.replace("−", "-").replace("+", ""))
        assert deal_points(contract, tricks, hand_size, level) == expected, name
        if contract is None:
            kinds.add("no contract")
        elif contract == "board":
            made = "made" if tricks == hand_size else "failed"
            kinds.add(f"board level {level_cell} {made} multiplier {multiplier_cell}")
        else:
            kinds.add("overtricks" if tricks > int(contract) else "set" if expected < 0 else "made")
    assert {
        "no contract",
        "overtricks",
        "set",
        "board level 1 made multiplier true",
        "board level 2 made multiplier true",
        "board level 2 made multiplier false",
    } <= kinds
