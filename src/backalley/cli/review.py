"""``backalley review`` and ``backalley hint``: a game's double-dummy review, and the best
cards of a position."""

from __future__ import annotations

import argparse
import json

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from backalley.cli.common import (
    UsageError,
    cannot_write,
    invalid_record,
    prepare_solver,
    read_game,
    read_record_file,
)
from backalley.cli.present import progress_columns
from backalley.i18n import _, explain


def cmd_review(args: argparse.Namespace) -> int:
    """``backalley review RECORD``: a table per deal, a summary; JSON or an HTML page."""
    from backalley.analysis import review
    from backalley.record import ReplayError
    from backalley.report import (
        bids_table,
        deal_outcome,
        deal_table,
        deal_title,
        html_page,
        summary_table,
    )

    record = read_record_file(args.file)
    prepare_solver()
    with Progress(*progress_columns(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(_("Reviewing"), total=None)

        def on_step(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        try:
            result = review(record, bids=args.bids, seed=args.seed, on_step=on_step)
        except ReplayError as error:
            raise UsageError(invalid_record(error)) from None
    if args.out is not None:
        try:
            args.out.write_text(html_page(result), encoding="utf-8")
        except OSError as error:
            raise UsageError(cannot_write(args.out, error)) from None
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
        return 0
    console = Console()
    for deal in result.deals:
        console.print(deal_title(deal, result.players), style="bold")
        if deal.cards:
            console.print(deal_table(deal, result.rules, result.players))
        for line in deal_outcome(deal, result.rules):
            console.print("  " + line, highlight=False)
        console.print()
        if deal.bids:
            console.print(bids_table(deal, result.players))
    console.print(summary_table(result))
    if args.out is not None:
        console.print(_("Wrote the review to {file}").format(file=args.out), soft_wrap=True)
    return 0


def cmd_hint(args: argparse.Namespace) -> int:
    """``backalley hint RECORD``: the expert bot's choice for the seat on turn, and why."""
    from backalley.analysis import AnalysisError, hint
    from backalley.rules import Bid

    game = read_game(args.file)
    seat = game.to_move if args.seat is None else args.seat
    if seat is None:
        raise UsageError(_("the record does not end with a bid or card due: no hint"))
    prepare_solver()
    try:
        advice = hint(game, seat, seed=args.seed)
    except AnalysisError as error:
        raise UsageError(explain(error)) from None
    ranked = sorted(advice.expected.items(), key=lambda item: -item[1])
    if args.json:
        output = {
            "seat": seat,
            "action": str(advice.action),
            "expected": {str(action): round(value, 3) for action, value in ranked},
            "samples": advice.samples,
            "fell_back": advice.fell_back,
        }
        print(json.dumps(output))
        return 0
    console = Console()
    if isinstance(advice.action, Bid):
        said = _("Seat {seat}: the expert bot would bid {action} ({samples} deals solved)")
    else:
        said = _("Seat {seat}: the expert bot would play {action} ({samples} deals solved)")
    console.print(said.format(seat=seat, action=advice.action, samples=advice.samples))
    if advice.fell_back:
        console.print(_("It could solve no deal in time and chose as the heuristic player does."))
    if ranked:
        table = Table()
        table.add_column(_("candidate"))
        table.add_column(_("expected points"), justify="right")
        for action, value in ranked:
            style = "bold" if action == advice.action else ""
            table.add_row(str(action), f"{value:+.1f}", style=style)
        console.print(table)
    return 0
