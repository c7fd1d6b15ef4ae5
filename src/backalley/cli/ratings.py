"""``backalley ratings``: the leaderboard of a server's database, rebuilt on request."""

from __future__ import annotations

import argparse

from backalley.i18n import _


def cmd_ratings(args: argparse.Namespace) -> int:
    """``backalley ratings [--rebuild]``: print the leaderboard (after a rebuild)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    from rich.table import Table

    from backalley.server import players, standings
    from backalley.server.store import default_url, open_engine

    console = Console()
    engine = open_engine(args.db or default_url())
    try:
        if args.rebuild:
            with Progress(
                TextColumn(_("rebuilding the ratings")), BarColumn(), MofNCompleteColumn(),
                console=console, transient=True,
            ) as bar:  # fmt: skip
                task = bar.add_task("", total=standings.finished_games(engine))
                rated = standings.rebuild(engine, lambda n: bar.advance(task, n))
            console.print(_("{count} games rated").format(count=rated))
        else:
            standings.catch_up(engine)
        with engine.connect() as connection:
            board = players.leaderboard(connection)
    finally:
        engine.dispose()
    for key, title in (("rated", _("Rated players")), ("provisional", _("Provisional"))):
        table = Table(title=title)
        for column in (_("place"), _("player"), _("rating"), _("games"), "μ", "σ"):
            table.add_column(column, justify="left" if column == _("player") else "right")
        for place, entry in enumerate(board[key], 1):
            table.add_row(
                str(place), entry["name"], str(entry["rating"]), str(entry["games"]),
                f"{entry['mu']:.2f}", f"{entry['sigma']:.2f}",
            )  # fmt: skip
        console.print(table)
    return 0
