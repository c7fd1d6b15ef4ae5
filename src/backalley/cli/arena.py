"""``backalley arena``: a duplicate match between two bots, with its confidence interval."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

from backalley.cli.common import UsageError, make_folder, prepare_solver, ruleset_from_args
from backalley.cli.present import arena_table, plot_match, progress_columns
from backalley.i18n import _, explain, ngettext


def cmd_arena(args: argparse.Namespace) -> int:
    """``backalley arena``: a duplicate match, a progress bar, a table, records, a plot."""
    from backalley.arena import deal_sets, run_match, seatings
    from backalley.arena_ray import Played, RayError
    from backalley.bots import MissingExtra, UnknownBot, make_bot, needs_solver

    rules = ruleset_from_args(args.rules, args.option)
    if args.players:
        names = [name.strip() for name in args.players.split(",")]
        if len(names) != 2 or args.bot_a:
            raise UsageError(_("--players names two bots, A,B, and no BOT_A or BOT_B"))
        args.bot_a, args.bot_b = names
    if not args.bot_b:
        raise UsageError(_("name two bots: BOT_A BOT_B, or --players A,B"))
    try:
        make_bot(args.bot_a), make_bot(args.bot_b)
    except (UnknownBot, MissingExtra) as error:
        raise UsageError(explain(error)) from None
    # Ray's own variable names a cluster as --ray does.
    ray: str | None = args.ray or os.environ.get("RAY_ADDRESS") or None
    if ray is not None and args.jobs > 1:
        raise UsageError(_("--jobs and --ray: the games run in this machine's processes or on Ray"))
    out: Path | None = args.out
    if out is not None:
        make_folder(out)
    pairs = deal_sets(rules, args.games)
    each = len(seatings(rules.num_players))
    if pairs * each != args.games:
        print(
            _("Playing {games} games: {sets} deal sets, each played {each} times").format(
                games=pairs * each, sets=pairs, each=each
            ),
            file=sys.stderr,
        )
    if needs_solver(args.bot_a) or needs_solver(args.bot_b):
        prepare_solver()
    played = Played()
    with Progress(*progress_columns(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(_("Playing"), total=pairs)
        try:
            report = run_match(
                args.bot_a,
                args.bot_b,
                rules,
                args.games,
                args.seed,
                args.jobs,
                on_pair=lambda _pair: bar.advance(task),
                repeatable=args.repeatable,
                ray=ray,
                played=played,
            )
        except RayError as error:
            raise UsageError(explain(error)) from None
    console = Console()
    console.print(arena_table(report))
    if ray is not None:
        count = len(played.nodes)
        console.print(
            ngettext("Played on {count} Ray node", "Played on {count} Ray nodes", count).format(
                count=count
            )
        )
    if out is not None:
        for result in report.results:
            name = f"set-{result.pair + 1:05d}-game-{result.seating + 1}.json"
            (out / name).write_text(json.dumps(result.record, indent=1) + "\n", encoding="utf-8")
        console.print(_("Wrote {count} records to {folder}").format(count=report.games, folder=out))
    if args.plot is not None:
        plot_match(report, args.plot)
        console.print(_("Wrote the plot to {file}").format(file=args.plot))
    return 0
