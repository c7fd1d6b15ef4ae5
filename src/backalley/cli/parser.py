"""The command line: every command's arguments, their checks and their help (translated)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import NoReturn

from backalley import __version__
from backalley.cli.common import UsageError
from backalley.i18n import LANGUAGES, _
from backalley.rules import GAME_LENGTHS


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
    arena.add_argument(
        "bot_a", metavar="BOT_A", nargs="?", help=_("a bot or level: random, heuristic, …")
    )
    arena.add_argument("bot_b", metavar="BOT_B", nargs="?", help=_("the bot it plays against"))
    arena.add_argument(
        "--players", metavar="A,B", help=_("the two bots, as one argument: expert,openspiel-ismcts")
    )
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
    arena.add_argument(
        "--ray",
        metavar="ADDRESS",
        help=_(
            "play the games on the Ray cluster at ADDRESS (auto: the one ray start began on "
            "this machine; RAY_ADDRESS does the same); needs backalley[ray] on every node"
        ),
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

    bot = commands.add_parser(
        "bot",
        help=_("one of our bots for other programs: a seat's knowledge in, an action out"),
        description=_(
            "Read one JSON message a line on standard input, each a seat's knowledge at a "
            "decision (docs/bots.md), and answer each with one line on standard output: the "
            "bot's action, or what was wrong with the message. Runs until standard input ends."
        ),
    )
    bot.add_argument(
        "--level",
        default="medium",
        help=_with_default(_("the level or bot: easy, medium, hard, expert, random, …")),
    )
    _add_rules_arguments(bot)
    bot.add_argument(
        "--seed",
        type=_integer,
        default=None,
        help=_("seed: seat N draws from random.Random(SEED * 7919 + N), as games here do"),
    )
    bot.add_argument(
        "--seconds",
        type=_budget,
        default=None,
        help=_("time budget of a decision, for the levels that have one"),
    )
    bot.add_argument(
        "--repeatable",
        action="store_true",
        help=_("keep to sample and node budgets, not the clock: the same seed, the same answers"),
    )

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
        "--sign-ins-per-minute",
        type=_positive,
        default=10,
        metavar="N",
        help=_with_default(_("sign-ins one address may try at once, and then as many a minute")),
    )
    serve.add_argument(
        "--sign-ups-per-hour",
        type=_positive,
        default=10,
        metavar="N",
        help=_with_default(_("accounts one address may make at once, and then as many an hour")),
    )
    serve.add_argument(
        "--bot-api",
        type=_positive,
        nargs="?",
        const=60,
        default=None,
        metavar="N",
        help=_(
            "answer programs' questions to our bots at POST /api/bot (docs/bots.md), N "
            "decisions an address at once and then as many a minute (N: 60; default: off)"
        ),
    )
    serve.add_argument(
        "--connections-per-address",
        type=_positive,
        default=200,
        metavar="N",
        help=_with_default(_("connections one address may hold open at once")),
    )
    serve.add_argument(
        "--redis",
        metavar="URL",
        help=_(
            "run as one node of several: Redis carries requests and events between the nodes, "
            "which share one PostgreSQL database (--db postgresql://…), e.g. redis://host:6379/0"
        ),
    )
    serve.add_argument(
        "--node-id",
        metavar="NAME",
        help=_(
            "this node's name among the nodes, kept across its restarts so that it takes its "
            "tables back at once (default: the machine's name and the process's id)"
        ),
    )
    serve.add_argument(
        "--forwarded-allow-ips",
        metavar="ADDRESSES",
        default="127.0.0.1",
        help=_with_default(
            _(
                "the reverse proxies whose X-Forwarded-For and X-Forwarded-Proto headers are "
                "believed (comma-separated addresses, or *), so that limits count the clients' "
                "own addresses"
            )
        ),
    )

    rating = commands.add_parser(
        "ratings",
        help=_("the players' ratings: the leaderboard, or rebuilt from the stored games"),
        description=_(
            "Print the leaderboard of the server's database; with --rebuild, first forget "
            "every rating and take every finished game in again, in the order the games "
            "ended (the same ratings the server gave as they ended)."
        ),
    )
    rating.add_argument(
        "--db",
        metavar="URL",
        help=_("an SQLAlchemy database URL, e.g. postgresql://user@host/db (default: SQLite)"),
    )
    rating.add_argument(
        "--rebuild", action="store_true", help=_("recompute every rating from the stored games")
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


def _budget(text: str) -> float:
    """A time budget in seconds, more than 0 (0 would leave a bot no time to think)."""
    value = _seconds(text)
    if value == 0:
        raise argparse.ArgumentTypeError(
            _("{text} is not a time budget: give more than 0 seconds").format(text=repr(text))
        )
    return value


def _positive(text: str) -> int:
    """A whole number of at least 1 from the command line."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(_("{value} is not 1 or more").format(value=value))
    return value


def language_flag(argv: list[str]) -> str | None:
    for i, arg in enumerate(argv):
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
    return None
