"""``backalley rules``: a preset's options, or one rule of the rule book."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from backalley.cards import N_
from backalley.cli.common import UsageError
from backalley.cli.present import format_value
from backalley.i18n import _, explain
from backalley.rules import OPTIONS, PRESETS, RulesError, Ruleset


def cmd_rules(args: argparse.Namespace) -> int:
    """``backalley rules [PRESET]``: the options as a table; ``--explain ID``: one rule."""
    if args.explain is not None:
        return explain_rule(args.explain)
    names = [args.preset] if args.preset else list(PRESETS)
    try:
        presets = [Ruleset.preset(name) for name in names]
    except RulesError as error:
        raise UsageError(explain(error)) from None
    table = Table(title=_("Back Alley rule sets"), show_lines=False)
    table.add_column(_("option"), no_wrap=True)
    for rules in presets:  # a value may wrap (four presets side by side), a name not
        table.add_column(rules.name, min_width=len(rules.name), overflow="fold")
    described = len(presets) == 1  # the presets side by side leave no room for more
    table.add_column(_("rule"), no_wrap=described)
    if described:
        table.add_column(_("what it sets"))
    values = [rules.options() for rules in presets]
    rows = [
        (option.name, [_cell(v[option.name], described) for v in values], option.rule, option.help)
        for option in OPTIONS
    ]
    rows.append(
        (_("players"), [str(r.num_players) for r in presets], "C4", N_("seats at the table"))
    )
    rows.append((_("deals"), [str(len(r.hand_sizes)) for r in presets], "D2", N_("counted deals")))
    for name, cells, rule, help_text in rows:
        table.add_row(name, *cells, rule, *([_(help_text)] if described else []))
    console = Console()
    console.print(table)
    console.print(_("backalley rules --explain ID prints a rule, such as D4."))
    return 0


def _cell(value: object, alone: bool) -> str:
    """An option's value for the table: as in JSON for one preset; side by side, strings
    without their quotes, so that the columns fit."""
    text = format_value(value)
    return text if alone else text.strip('"')


def explain_rule(wanted: str) -> int:
    """Print one rule of the rule book in the reader's language, or (``list``) every id."""
    from backalley.rulebook import RULES, SECTIONS

    console = Console()
    if wanted.lower() == "list":
        table = Table(title=_("The rule book"))
        table.add_column(_("rule"), no_wrap=True)
        table.add_column(_("title"))
        for section, ids in SECTIONS:
            table.add_section()
            for rule_id in ids:
                table.add_row(rule_id, f"{_(RULES[rule_id].title)} ({_(section)})")
        console.print(table)
        return 0
    rule = RULES.get(wanted.upper())
    if rule is None:
        raise UsageError(
            _("there is no rule {id}: rules are {ids}").format(
                id=repr(wanted), ids=", ".join(RULES)
            )
        )
    console.print(f"[bold]{rule.id}[/bold]  [bold]{_(rule.title)}[/bold]", highlight=False)
    console.print(_(rule.text), highlight=False, markup=False)
    return 0
