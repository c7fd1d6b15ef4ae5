"""``backalley bot``: one of our bots as a process other programs drive, JSON lines in and out."""

from __future__ import annotations

import argparse
import sys

from backalley.cli.common import UsageError, prepare_solver, ruleset_from_args
from backalley.i18n import _


def cmd_bot(args: argparse.Namespace) -> int:
    """Answer each line of standard input (a seat's knowledge) with a line on standard output
    (the bot's action, or what was wrong), until standard input ends (docs/bots.md)."""
    from backalley.bots import MissingExtra, UnknownBot, needs_solver
    from backalley.bots.remote import Answerer

    rules = ruleset_from_args(args.rules, args.option)
    try:
        answerer = Answerer(args.level, rules, args.seed, args.seconds, args.repeatable)
    except (UnknownBot, MissingExtra) as error:
        raise UsageError(error.message) from None
    if needs_solver(args.level):
        prepare_solver()
    print(_("backalley bot: {level}, rules {rules}: one JSON message a line").format(
        level=args.level, rules=rules.name), file=sys.stderr)  # fmt: skip
    sys.stdin.reconfigure(errors="replace")  # type: ignore[union-attr]  # bad bytes: not JSON
    for line in sys.stdin:
        if not line.strip():
            continue
        sys.stdout.write(answerer.answer_line(line) + "\n")
        sys.stdout.flush()
    return 0
