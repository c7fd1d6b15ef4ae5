"""``backalley solve``: the double-dummy value of a position of a record."""

from __future__ import annotations

import argparse
import json

from rich.console import Console
from rich.table import Table

from backalley.cli.common import UsageError, prepare_solver, read_game
from backalley.i18n import _


def cmd_solve(args: argparse.Namespace) -> int:
    """``backalley solve RECORD``: every legal card's double-dummy value."""
    from backalley.cards import card_name
    from backalley.solver import NotInPlay, Position, card_values

    game = read_game(args.file)
    try:
        position = Position.from_game(game)
    except NotInPlay:
        raise UsageError(_("the record does not end with a card due: nothing to solve")) from None
    prepare_solver()
    values = card_values(position)
    seat = position.to_move
    if args.json:
        cards = {card_name(c): v for c, v in sorted(values.items(), key=lambda cv: -cv[1])}
        print(json.dumps({"seat": seat, "cards": cards}))
        return 0
    side = game.rules.side_of(seat)
    console = Console()
    console.print(
        _("Seat {seat} to play: tricks for side {side} from this trick on").format(
            seat=seat, side=side
        )
    )
    table = Table()
    table.add_column(_("card"))
    table.add_column(_("tricks"), justify="right")
    best = max(values.values())
    for card, value in sorted(values.items(), key=lambda cv: (-cv[1], cv[0])):
        table.add_row(card_name(card), str(value), style="bold" if value == best else "")
    console.print(table)
    return 0
