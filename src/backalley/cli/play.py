"""``backalley play`` and ``backalley replay``: the terminal game and the record viewer."""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

from backalley.cli.common import (
    UsageError,
    cannot_read,
    invalid_record,
    prepare_solver_aside,
    read_game,
    ruleset_from_args,
)
from backalley.i18n import _
from backalley.rules import Ruleset


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
            raise UsageError(cannot_read(args.resume, error)) from None
        except (RecordError, ReplayError) as error:
            raise UsageError(invalid_record(error)) from None
        if args.save is not None and args.save.resolve() != args.resume.resolve():
            keep(args.save)  # another game saved there is kept, never written over
    elif args.rules or args.option or args.partner or args.opponents or args.length:
        rules = _play_rules(args)
        if not 0 <= args.seat < rules.num_players:
            raise UsageError(_("there is no seat {seat}").format(seat=args.seat))
        new_game["rules"] = rules
        new_game["partner"] = args.partner or "medium"
        new_game["opponents"] = args.opponents or "medium"
    # The review after each deal, hints, claims and the strong bots solve deals: the solver
    # is compiled aside (the first time on a machine), the game starting at once.
    from backalley.tui import session as sessions

    sessions.solver_ready[0] = prepare_solver_aside()
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

    run_replay(read_game(args.file))
    return 0
