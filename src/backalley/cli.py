"""The ``backalley`` command: ``verify``, ``simulate``, ``arena``, ``solve`` and ``rules``.

Every message a person reads goes through gettext (:mod:`backalley.i18n`). Bad input gets one
line on standard error and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from backalley import __version__
from backalley.cards import N_
from backalley.i18n import LANGUAGES, _, explain, side_name, use_language
from backalley.record import dumps, verify
from backalley.rules import GAME_LENGTHS, OPTIONS, PRESETS, RulesError, Ruleset, parse_option_value
from backalley.simulation import Stats, simulate


class UsageError(Exception):
    """A command line the program cannot act on: reported in one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line instead of usage plus error."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(_("{message} (see {prog} --help)").format(message=message, prog=self.prog))


def build_parser() -> argparse.ArgumentParser:
    """The command line: one sub-command per thing people do."""
    parser = _Parser(
        prog="backalley",
        description=_("Back Alley (Back Alley Bridge, Blooper): rules engine, records and tools."),
    )
    parser.add_argument("--version", action="version", version=f"backalley {__version__}")
    parser.add_argument(
        "--lang",
        metavar="LANG",
        help=_("language of messages: {languages} (default: from the environment)").format(
            languages=", ".join(LANGUAGES)
        ),
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    check = commands.add_parser(
        "verify",
        help=_("replay a game record and report every deal, the scores and the first error"),
        description=_(
            "Replay a backalley/1 record through the engine and print one JSON object. "
            "Exit 0 when every action is legal, 1 at the first illegal action, "
            "2 when the file is not a readable record."
        ),
    )
    check.add_argument("file", metavar="FILE", help=_("the record, or - for standard input"))

    sim = commands.add_parser(
        "simulate",
        help=_("play games between random legal players and summarise them"),
        description=_(
            "Play whole games between players who choose uniformly among the legal actions, "
            "and print a summary table."
        ),
    )
    _add_rules_arguments(sim)
    sim.add_argument(
        "--games", type=_positive, default=100, help=_with_default(_("number of games"))
    )
    sim.add_argument(
        "--seed",
        type=_integer,
        default=0,
        help=_with_default(_("seed for the deals and the players")),
    )
    sim.add_argument(
        "--out", type=Path, metavar="DIR", help=_("folder to write one record per game into")
    )

    arena = commands.add_parser(
        "arena",
        help=_("match two bots in duplicate format and report their strength"),
        description=_(
            "Play every deal sequence once per seating (twice, partnerships swapped; six "
            "times under classic3), so that the luck of the cards cancels, and report each "
            "bot's points per game with a confidence interval of 95 %, win rate and contract "
            "and board success."
        ),
    )
    arena.add_argument("bot_a", metavar="BOT_A", help=_("a bot or level: random, heuristic, …"))
    arena.add_argument("bot_b", metavar="BOT_B", help=_("the bot it plays against"))
    arena.add_argument(
        "--games",
        type=_positive,
        default=100,
        help=_with_default(_("number of games, rounded up to whole deal sets")),
    )
    arena.add_argument(
        "--seed", type=_integer, default=0, help=_with_default(_("seed for the deals and the bots"))
    )
    arena.add_argument(
        "--jobs", type=_positive, default=1, help=_with_default(_("processes to play in"))
    )
    _add_rules_arguments(arena)
    arena.add_argument(
        "--out", type=Path, metavar="DIR", help=_("write every game's record into this folder")
    )
    arena.add_argument(
        "--repeatable",
        action="store_true",
        help=_(
            "bots keep to their sample and node budgets but not to the clock, so the same "
            "seed plays the same games on any machine (slower)"
        ),
    )
    arena.add_argument(
        "--plot", type=Path, metavar="FILE", help=_("write a PNG of A − B by deal set")
    )

    solve = commands.add_parser(
        "solve",
        help=_("best play, double dummy, at the end of a record"),
        description=_(
            "For the position at the end of a record, with every hand known: each legal card "
            "of the player on turn and the tricks that player's side then takes from the "
            "current trick on, the current trick included, with best play by all."
        ),
    )
    solve.add_argument("file", metavar="RECORD", help=_("the record, or - for standard input"))
    solve.add_argument("--json", action="store_true", help=_("print JSON for other tools"))

    table = commands.add_parser(
        "play",
        help=_("play a game in the terminal, you and the bots"),
        description=_(
            "A full-screen game: you and three bots (two under classic3). Without options it "
            "asks for the rules, a short, longer or full game and the bots' levels, and first "
            "offers to resume an unfinished saved game. The game is saved after every action, "
            "and a new game keeps the saved ones; --resume goes on with a saved game."
        ),
    )
    _add_rules_arguments(table, asked=True)
    table.add_argument(
        "--length",
        choices=GAME_LENGTHS,
        help=_(
            "short (3, 2 and 1 cards), longer (up to 7 cards) or full (the preset's); in short "
            "and longer, after 3 all-pass redeals in a row an all-pass deal is played (D7)"
        ),
    )
    table.add_argument(
        "--seat", type=_integer, default=0, help=_with_default(_("the seat you take"))
    )
    table.add_argument(
        "--partner", metavar="LEVEL", help=_("your partner: easy, medium, hard or expert")
    )
    table.add_argument(
        "--opponents", metavar="LEVEL", help=_("the opponents: easy, medium, hard or expert")
    )
    table.add_argument("--seed", type=_integer, help=_("seed for the deals (default: random)"))
    table.add_argument(
        "--pace",
        type=_seconds,
        default=0.8,
        metavar="SECONDS",
        help=_with_default(_("the least time a bot takes over an action, so you can follow")),
    )
    table.add_argument(
        "--save",
        type=Path,
        metavar="FILE",
        help=_("where to save the game (default: in your data folder)"),
    )
    table.add_argument("--resume", type=Path, metavar="FILE", help=_("go on with a saved game"))

    serve = commands.add_parser(
        "serve",
        help=_("run the game server: tables for friends and bots over the web"),
        description=_(
            "An HTTP and WebSocket server that holds tables of Back Alley: the one authority "
            "over their games, kept in a database (SQLite in your data folder unless --db "
            "names another). Unfinished tables continue when it starts again."
        ),
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help=_with_default(_("the address to listen on"))
    )
    serve.add_argument("--port", type=_integer, default=8000, help=_with_default(_("the port")))
    serve.add_argument(
        "--db",
        metavar="URL",
        help=_("an SQLAlchemy database URL, e.g. postgresql://user@host/db (default: SQLite)"),
    )
    serve.add_argument(
        "--workers",
        type=_positive,
        metavar="N",
        help=_("processes that think for the bots (default: the cores but one, at least 2)"),
    )
    serve.add_argument(
        "--tables-per-minute",
        type=_positive,
        default=20,
        metavar="N",
        help=_with_default(_("tables one address may create at once, and then as many a minute")),
    )
    serve.add_argument(
        "--guesses-per-minute",
        type=_positive,
        default=30,
        metavar="N",
        help=_with_default(
            _(
                "wrong invites, tokens and watch codes one address may send at once, and then "
                "as many a minute"
            )
        ),
    )
    serve.add_argument(
        "--connections-per-address",
        type=_positive,
        default=200,
        metavar="N",
        help=_with_default(_("connections one address may hold open at once")),
    )

    again = commands.add_parser(
        "replay",
        help=_("step through a record in the terminal, hands open"),
        description=_(
            "Step through any record deal by deal and card by card, forwards and backwards, "
            "with every hand shown."
        ),
    )
    again.add_argument("file", metavar="RECORD", help=_("the record, or - for standard input"))

    check_play = commands.add_parser(
        "review",
        help=_("a double-dummy review of every card played, and of the bids on request"),
        description=_(
            "For every card played in a record, the tricks each legal card would have kept "
            "for the player's side, double dummy (every hand known, best play by all); a card "
            "that gave a trick away is marked ? (two or more: ??) with the better cards. "
            "A table per deal, trick by trick, and a summary per player."
        ),
    )
    check_play.add_argument("file", metavar="RECORD", help=_("the record, or - for standard input"))
    check_play.add_argument(
        "--bids",
        action="store_true",
        help=_("also ask the expert bot, from each bidder's view, what it would have bid (slow)"),
    )
    check_play.add_argument(
        "--seed", type=_integer, default=0, help=_with_default(_("seed for the expert's samples"))
    )
    check_play.add_argument("--json", action="store_true", help=_("print JSON for other tools"))
    check_play.add_argument(
        "--out", type=Path, metavar="FILE.html", help=_("also write the review as an HTML page")
    )

    advise = commands.add_parser(
        "hint",
        help=_("what the expert bot would do now, from the view of the seat on turn"),
        description=_(
            "For the position at the end of a record: the bid or card the expert bot would "
            "choose for the seat on turn, from that seat's view alone, with the expected "
            "points of each candidate over the deals it solved."
        ),
    )
    advise.add_argument("file", metavar="RECORD", help=_("the record, or - for standard input"))
    advise.add_argument(
        "--seat", type=_integer, help=_("the seat asking (default: the seat on turn)")
    )
    advise.add_argument(
        "--seed", type=_integer, default=0, help=_with_default(_("seed for the expert's samples"))
    )
    advise.add_argument("--json", action="store_true", help=_("print JSON for other tools"))

    show = commands.add_parser(
        "rules",
        help=_("show a preset's options as a table"),
        description=_("Show the options of one preset, or of all three side by side."),
    )
    show.add_argument(
        "preset",
        nargs="?",
        metavar="PRESET",
        help=_("standard, classic or classic3 (default: all three)"),
    )
    show.add_argument(
        "--explain",
        metavar="ID",
        help=_("print one rule of the rule book, such as P3 (see --explain list)"),
    )
    return parser


def _read_input(name: str) -> bytes:
    """The bytes of file ``name``, or of standard input for ``-``."""
    return sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()


def _add_rules_arguments(parser: argparse.ArgumentParser, asked: bool = False) -> None:
    """``--rules`` and ``--option``; ``asked``: no default preset (the start screen asks)."""
    preset = _("preset: standard, classic, classic3")
    parser.add_argument(
        "--rules",
        default=None if asked else "standard",
        metavar="PRESET",
        help=preset if asked else _with_default(preset),
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=_("override an option of the preset (repeatable), e.g. hand_sizes=7,6,5"),
    )


def _with_default(text: str) -> str:
    """An option's help that ends with its default (argparse fills in ``%(default)s``)."""
    return _("{help} (default: %(default)s)").format(help=text)


def _integer(text: str) -> int:
    """A whole number from the command line, refused in the reader's language."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("{text} is not a whole number").format(text=repr(text))
        ) from None


def _seconds(text: str) -> float:
    """A duration in seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(
            _("{text} is not a number of seconds").format(text=repr(text))
        )
    return value


def _positive(text: str) -> int:
    """A whole number of at least 1 from the command line."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(_("{value} is not 1 or more").format(value=value))
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    wanted = _language_flag(args_list)
    use_language(wanted)
    try:
        if wanted is not None and wanted.lower() not in LANGUAGES:
            raise UsageError(
                _("unknown language {lang}: choose one of {languages}").format(
                    lang=repr(wanted), languages=", ".join(LANGUAGES)
                )
            )
        args = build_parser().parse_args(args_list)
        handler = {
            "verify": cmd_verify,
            "simulate": cmd_simulate,
            "rules": cmd_rules,
            "arena": cmd_arena,
            "solve": cmd_solve,
            "review": cmd_review,
            "hint": cmd_hint,
            "play": cmd_play,
            "replay": cmd_replay,
            "serve": cmd_serve,
        }
        return handler[args.command](args)
    except UsageError as error:
        print(_("backalley: error: {error}").format(error=error), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(_("backalley: interrupted"), file=sys.stderr)
        return 130


def _language_flag(argv: list[str]) -> str | None:
    for i, arg in enumerate(argv):
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
    return None


# ---------------------------------------------------------------------------- verify


def cmd_verify(args: argparse.Namespace) -> int:
    """``backalley verify FILE``: the output and exit codes of docs/record.md."""
    try:
        text = _read_input(args.file)
    except OSError as error:
        message = _cannot_read(args.file, error)
        verdict_output: dict[str, Any] = {"ok": False, "error": {"rule": None, "message": message}}
        print(json.dumps(verdict_output, indent=2))
        return 2
    verdict = verify(text)
    print(json.dumps(verdict.output, indent=2, ensure_ascii=False))
    return verdict.exit_code


# ---------------------------------------------------------------------------- simulate


def ruleset_from_args(preset: str, options: list[str]) -> Ruleset:
    """The rule set named on the command line, with its ``KEY=VALUE`` overrides."""
    overrides: dict[str, Any] = {}
    for item in options:
        key, sep, value = item.partition("=")
        if not sep:
            raise UsageError(_("--option takes KEY=VALUE, not {item!r}").format(item=item))
        try:
            overrides[key.strip()] = parse_option_value(key.strip(), value.strip())
        except RulesError as error:
            raise UsageError(explain(error)) from None
    try:
        return Ruleset.preset(preset, **overrides)
    except RulesError as error:
        raise UsageError(explain(error)) from None


def cmd_simulate(args: argparse.Namespace) -> int:
    """``backalley simulate``: random games, a progress bar, then a summary table."""
    rules = ruleset_from_args(args.rules, args.option)
    out: Path | None = args.out
    if out is not None:
        _make_folder(out)
    console = Console()
    with Progress(*_progress_columns(), console=Console(stderr=True), transient=True) as progress:
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


def _progress_columns() -> tuple[Any, ...]:
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


# ---------------------------------------------------------------------------- arena


def cmd_arena(args: argparse.Namespace) -> int:
    """``backalley arena``: a duplicate match, a progress bar, a table, records, a plot."""
    from backalley.arena import deal_sets, run_match, seatings
    from backalley.bots import UnknownBot, make_bot, needs_solver

    rules = ruleset_from_args(args.rules, args.option)
    try:
        make_bot(args.bot_a), make_bot(args.bot_b)
    except UnknownBot as error:
        raise UsageError(explain(error)) from None
    out: Path | None = args.out
    if out is not None:
        _make_folder(out)
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
    with Progress(*_progress_columns(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(_("Playing"), total=pairs)
        report = run_match(
            args.bot_a,
            args.bot_b,
            rules,
            args.games,
            args.seed,
            args.jobs,
            on_pair=lambda _pair: bar.advance(task),
            repeatable=args.repeatable,
        )
    console = Console()
    console.print(arena_table(report))
    if out is not None:
        for result in report.results:
            name = f"set-{result.pair + 1:05d}-game-{result.seating + 1}.json"
            (out / name).write_text(json.dumps(result.record, indent=1) + "\n", encoding="utf-8")
        console.print(_("Wrote {count} records to {folder}").format(count=report.games, folder=out))
    if args.plot is not None:
        plot_match(report, args.plot)
        console.print(_("Wrote the plot to {file}").format(file=args.plot))
    return 0


def prepare_solver() -> None:
    """Compile the solver's search now, saying so, if this machine has not yet: about a
    minute, once; later processes load it from numba's cache."""
    from backalley.solver import compile_search, needs_compiling

    if needs_compiling():
        print(_("compiling the solver, once: about a minute"), file=sys.stderr)
        compile_search()


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(_cannot_write(folder, error)) from None


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


# ---------------------------------------------------------------------------- solve


def cmd_solve(args: argparse.Namespace) -> int:
    """``backalley solve RECORD``: every legal card's double-dummy value."""
    from backalley.cards import card_name
    from backalley.solver import NotInPlay, Position, card_values

    game = _read_game(args.file)
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


# ---------------------------------------------------------------------------- play, replay


def cmd_serve(args: argparse.Namespace) -> int:
    """``backalley serve``: the game server, until interrupted."""
    import uvicorn

    from backalley.server.app import create_app
    from backalley.server.connections import protocols
    from backalley.server.store import default_url, in_memory

    url = args.db or default_url()
    if in_memory(url):
        raise UsageError(
            _(
                "an SQLite database in memory cannot hold a server's tables (each of its "
                "threads would see a database of its own, and a restart would lose every "
                "game): give a file, --db sqlite:///backalley.db"
            )
        )
    try:  # bound before anything starts, so that a port in use is the first thing said
        listener = socket.create_server((args.host, args.port))
        # Each answer goes out at once: the connections accepted inherit TCP_NODELAY (asyncio
        # sets it only on sockets made with IPPROTO_TCP, which create_server's are not), else
        # a response's second write waits on the client's delayed ACK, 40 ms a request.
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError as error:
        raise UsageError(
            _("cannot listen on {host} port {port}: {reason}").format(
                host=args.host, port=args.port, reason=error.strerror
            )
        ) from None
    port = listener.getsockname()[1]
    host = "localhost" if args.host in ("127.0.0.1", "::1") else args.host
    address = f"http://{host}:{port}/"

    def _announce(resumed: int) -> None:
        print(_("backalley server at {address}").format(address=address), flush=True)
        print(
            _("database {url}; {count} unfinished tables resumed").format(
                url=_safe_url(url), count=resumed
            ),
            flush=True,
        )

    app = create_app(
        url,
        workers=args.workers,
        tables_per_minute=args.tables_per_minute,
        guesses_per_minute=args.guesses_per_minute,
        on_ready=_announce,
    )
    config = uvicorn.Config(
        app,
        log_level="warning",
        ws_max_size=64 * 1024,
        ws_per_message_deflate=False,  # uncompressed: compressing costs CPU on every frame sent
        lifespan="on",
        timeout_graceful_shutdown=5,
        **protocols(args.connections_per_address),
    )
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn stops cleanly, then passes it on
        uvicorn.Server(config).run(sockets=[listener])
    print(_("server stopped"), flush=True)
    return 0


def _safe_url(url: str) -> str:
    """A database URL without its password, to print."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def cmd_play(args: argparse.Namespace) -> int:
    """``backalley play``: the start screen, or straight to the table with the options given."""
    from backalley.bots import LEVELS
    from backalley.record import RecordError, ReplayError
    from backalley.tui.app import run_play
    from backalley.tui.saves import keep
    from backalley.tui.session import Session, default_save

    save = args.save or default_save()
    for level in (args.partner, args.opponents):
        if level is not None and level not in LEVELS:
            raise UsageError(
                _("unknown level {level}: choose one of {levels}").format(
                    level=repr(level), levels=", ".join(LEVELS)
                )
            )
    session = None
    new_game: dict[str, Any] = {"seat": args.seat, "seed": args.seed, "save_path": save}
    if args.resume is not None:
        try:
            session = Session.resume(args.resume, save_path=args.save)
        except OSError as error:
            raise UsageError(_cannot_read(args.resume, error)) from None
        except (RecordError, ReplayError) as error:
            raise UsageError(_invalid_record(error)) from None
        if args.save is not None and args.save.resolve() != args.resume.resolve():
            keep(args.save)  # another game saved there is kept, never written over
    elif args.rules or args.option or args.partner or args.opponents or args.length:
        rules = _play_rules(args)
        if not 0 <= args.seat < rules.num_players:
            raise UsageError(_("there is no seat {seat}").format(seat=args.seat))
        new_game["rules"] = rules
        new_game["partner"] = args.partner or "medium"
        new_game["opponents"] = args.opponents or "medium"
    prepare_solver()  # the review after each deal, hints and the strong bots solve deals
    played = run_play(session, new_game, args.pace)
    if played is not None and played.save_path is not None:
        with contextlib.suppress(OSError):  # the terminal may be gone
            print(
                _("The game is saved in {file}; backalley play --resume {file} goes on.").format(
                    file=played.save_path
                )
            )
    return 0


def _play_rules(args: argparse.Namespace) -> Ruleset:
    """The rules of the game the command line chose: the preset, its ``--length`` (short and
    longer stop redealing all-pass deals, D7) and the ``--option`` overrides on top."""
    from backalley.rules import game_rules

    preset = args.rules or "standard"
    chosen = ruleset_from_args(preset, args.option)  # the preset and options checked
    if args.length is None:
        return chosen
    given = {item.partition("=")[0].strip() for item in args.option}
    if "hand_sizes" in given:
        raise UsageError(_("--length and --option hand_sizes both set the hand sizes: give one"))
    options = {key: value for key, value in chosen.options().items() if key in given}
    return game_rules(preset, args.length, options)


def cmd_replay(args: argparse.Namespace) -> int:
    """``backalley replay RECORD``: step through it, hands open."""
    from backalley.tui.replay import run_replay

    run_replay(_read_game(args.file))
    return 0


# ---------------------------------------------------------------------------- review, hint


def _read_record(name: str) -> Any:
    """The record in file ``name`` (``-``: standard input), read and checked."""
    from backalley.record import RecordError, read_record

    try:
        return read_record(_read_input(name))
    except OSError as error:
        raise UsageError(_cannot_read(name, error)) from None
    except RecordError as error:
        raise UsageError(_invalid_record(error)) from None


def _read_game(name: str) -> Any:
    """The game of the record in file ``name``, replayed through the engine."""
    from backalley.record import ReplayError, replay

    try:
        return replay(_read_record(name))
    except ReplayError as error:
        raise UsageError(_invalid_record(error)) from None


def _cannot_read(name: object, error: OSError) -> str:
    reason = error.strerror or str(error)
    return _("cannot read {file}: {reason}").format(file=name, reason=reason)


def _cannot_write(path: object, error: OSError) -> str:
    return _("cannot write to {folder}: {reason}").format(folder=path, reason=error.strerror)


def _invalid_record(error: Any) -> str:
    return _("not a valid record: {problem}").format(problem=explain(error))


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

    record = _read_record(args.file)
    prepare_solver()
    with Progress(*_progress_columns(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(_("Reviewing"), total=None)

        def on_step(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        try:
            result = review(record, bids=args.bids, seed=args.seed, on_step=on_step)
        except ReplayError as error:
            raise UsageError(_invalid_record(error)) from None
    if args.out is not None:
        try:
            args.out.write_text(html_page(result), encoding="utf-8")
        except OSError as error:
            raise UsageError(_cannot_write(args.out, error)) from None
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

    game = _read_game(args.file)
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


# ---------------------------------------------------------------------------- rules


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
    for rules in presets:
        table.add_column(rules.name, no_wrap=True)
    table.add_column(_("rule"), no_wrap=True)
    described = len(presets) == 1  # three presets side by side leave no room for more
    if described:
        table.add_column(_("what it sets"))
    values = [rules.options() for rules in presets]
    rows = [
        (option.name, [_format_value(v[option.name]) for v in values], option.rule, option.help)
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


def _format_value(value: Any) -> str:
    if isinstance(value, list):
        return format_sizes(value)
    return json.dumps(value)


def format_sizes(sizes: Sequence[int]) -> str:
    """Hand sizes written as runs: ``[13, 12, …, 1, 2, …, 13]`` reads ``13-1,2-13``."""
    runs: list[list[int]] = []
    for size in sizes:
        run = runs[-1] if runs else None
        if run and (
            (len(run) == 1 and abs(size - run[-1]) == 1)
            or (len(run) > 1 and size - run[-1] == run[-1] - run[-2])
        ):
            run.append(size)
        else:
            runs.append([size])
    return ",".join(f"{r[0]}-{r[-1]}" if len(r) > 2 else ",".join(map(str, r)) for r in runs)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
