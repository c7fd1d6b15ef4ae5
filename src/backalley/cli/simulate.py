"""``backalley simulate``: many games played by bots, and what happened in them."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress

from backalley.cli.common import make_folder, ruleset_from_args
from backalley.cli.present import progress_columns, summary_table
from backalley.i18n import _
from backalley.record import dumps
from backalley.simulation import simulate


def cmd_simulate(args: argparse.Namespace) -> int:
    """``backalley simulate``: random games, a progress bar, then a summary table."""
    rules = ruleset_from_args(args.rules, args.option)
    out: Path | None = args.out
    if out is not None:
        make_folder(out)
    console = Console()
    with Progress(*progress_columns(), console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(_("Playing"), total=args.games)

        def on_game(index: int, game: Any) -> None:
            if out is not None:
                (out / f"game-{index + 1:05d}.json").write_text(dumps(game), encoding="utf-8")
            progress.advance(task)

        stats = simulate(rules, args.games, args.seed, on_game)
    console.print(summary_table(stats, args.seed))
    if out is not None:
        console.print(_("Wrote {count} records to {folder}").format(count=stats.games, folder=out))
    return 0
