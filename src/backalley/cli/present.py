"""How the commands show what they found: rich tables, a progress bar's columns, the
arena's plot."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
from rich.table import Table

from backalley.cli.common import UsageError
from backalley.i18n import _, side_name
from backalley.simulation import Stats


def progress_columns() -> tuple[Any, ...]:
    return (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )


def summary_table(stats: Stats, seed: int) -> Table:
    """The simulate summary: speed, scores per side, and how often the rare things happened."""
    rules = stats.rules
    title = _("{games} random games, rules {rules}, seed {seed}").format(
        games=stats.games, rules=rules.name, seed=seed
    )
    table = Table(title=title, show_header=True)
    table.add_column(_("measure"))
    table.add_column(_("value"), justify="right")
    seconds = max(stats.seconds, 1e-9)
    table.add_row(_("games per second"), f"{stats.games / seconds:,.1f}")
    table.add_row(_("actions per second"), f"{stats.actions / seconds:,.0f}")
    for side in range(rules.num_sides):
        name = side_name(rules, side)
        table.add_row(
            _("{side}: mean score ± sd").format(side=name),
            f"{stats.mean(side):,.1f} ± {stats.spread(side):,.1f}",
        )
        table.add_row(_("{side}: wins").format(side=name), _share(stats.wins[side], stats.games))
    table.add_row(_("draws"), _share(stats.draws, stats.games))
    played = max(stats.deals_played, 1)
    table.add_row(_("deals played"), f"{stats.deals_played:,}")
    table.add_row(_("deals with a board bid"), _share(stats.boards, played))
    table.add_row(_("deals with two or more boards"), _share(stats.multi_boards, played))
    table.add_row(_("all-pass deals"), f"{stats.all_passes:,}")
    table.add_row(_("renig throw-ins"), f"{stats.renigs:,}")
    table.add_row(_("games with a tie-breaker"), _share(stats.tie_breakers, stats.games))
    return table


def _percent(count: int, total: int) -> str:
    return f"{100 * count / total:.1f} %" if total else "—"


def _share(count: int, total: int) -> str:
    return f"{count:,} ({100 * count / max(total, 1):.1f} %)"


def arena_table(report: Any) -> Table:
    """Per bot: points per game ± 95 %, wins, contracts and boards made; then A − B."""
    a, b = report.bots
    title = _("{a} vs {b}: {games} games in duplicate, rules {rules}, seed {seed}").format(
        a=a.name, b=b.name, games=report.games, rules=report.rules.name, seed=report.seed
    )
    table = Table(title=title)
    table.add_column(_("bot"), no_wrap=True)
    for column in (
        _("points per game"),
        _("± 95 %"),
        _("wins"),
        _("contracts made"),
        _("boards made"),
    ):
        table.add_column(column, justify="right")
    for bot in report.bots:
        table.add_row(
            bot.name,
            f"{bot.mean:,.1f}",
            f"{bot.half_width:,.1f}",
            _percent(bot.wins, len(bot.points)),
            _percent(bot.contracts_made, bot.contracts_bid),
            _percent(bot.boards_made, bot.boards_bid),
        )
    mean, half = report.difference
    name = _("{a} − {b}").format(a=a.name, b=b.name)
    table.add_row(name, f"{mean:+,.1f}", f"{half:,.1f}", "", "", "", style="bold")
    return table


def plot_match(report: Any, path: Path) -> None:
    """A PNG: A − B for each deal set, and its running mean with the 95 % band."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        raise UsageError(_("--plot needs matplotlib: pip install 'backalley[plot]'")) from None
    from backalley.arena import interval

    diffs = report.differences
    xs = list(range(1, len(diffs) + 1))
    means, lows, highs = [], [], []
    for i in xs:
        part = diffs[:i]
        mean = sum(part) / i
        half = interval(part) if i > 1 else 0.0
        means.append(mean)
        lows.append(mean - half)
        highs.append(mean + half)
    a, b = report.bots
    figure, axes = plt.subplots(figsize=(8, 4.5), dpi=120)
    axes.scatter(xs, diffs, s=8, alpha=0.35, label=_("one deal set (two games)"))
    axes.plot(xs, means, linewidth=2, label=_("running mean"))
    axes.fill_between(xs, lows, highs, alpha=0.2, label=_("confidence interval (95 %)"))
    axes.axhline(0, color="black", linewidth=0.8)
    axes.set_xlabel(_("deal sets played"))
    axes.set_ylabel(_("{a} − {b}, points per game").format(a=a.name, b=b.name))
    axes.set_title(_("{a} vs {b}, duplicate").format(a=a.name, b=b.name))
    axes.legend(loc="best")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # whole deal sets
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def format_value(value: Any) -> str:
    if isinstance(value, list):
        return format_sizes(value)
    return json.dumps(value)


def format_sizes(sizes: Sequence[int]) -> str:
    """Hand sizes written as runs: ``[13, 12, …, 1, 2, …, 13]`` reads ``13-1,2-13``, and a
    run by twos ``12,10,…,2`` reads ``12-2/2``.

    >>> format_sizes([12, 10, 8, 6, 4, 2, 1, 3, 5, 7, 9, 11, 13])
    '12-2/2,1-13/2'
    """
    runs: list[list[int]] = []
    for size in sizes:
        run = runs[-1] if runs else None
        if run and (
            (len(run) == 1 and abs(size - run[-1]) in (1, 2))
            or (len(run) > 1 and size - run[-1] == run[-1] - run[-2])
        ):
            run.append(size)
        else:
            runs.append([size])
    parts = []
    for run in runs:
        if len(run) <= 2:
            parts.append(",".join(map(str, run)))
        else:
            step = abs(run[1] - run[0])
            parts.append(f"{run[0]}-{run[-1]}" + ("" if step == 1 else f"/{step}"))
    return ",".join(parts)
