"""The ``backalley`` command: ``verify``, ``simulate``, ``arena``, ``solve`` and ``rules``.

Every message a person reads goes through gettext (:mod:`backalley.i18n`). Bad input gets one
line on standard error and a non-zero exit, never a traceback.

One module per command (``verify.py``, ``serve.py``, …), the parser in ``parser.py``,
what they share in ``common.py`` and how they show results in ``present.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from backalley.cli.arena import cmd_arena
from backalley.cli.bot import cmd_bot
from backalley.cli.common import UsageError
from backalley.cli.parser import build_parser, language_flag
from backalley.cli.play import cmd_play, cmd_replay
from backalley.cli.ratings import cmd_ratings
from backalley.cli.review import cmd_hint, cmd_review
from backalley.cli.rules import cmd_rules
from backalley.cli.serve import cmd_serve
from backalley.cli.simulate import cmd_simulate
from backalley.cli.solve import cmd_solve
from backalley.cli.verify import cmd_verify
from backalley.i18n import LANGUAGES, _, use_language


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    wanted = language_flag(args_list)
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
            "bot": cmd_bot,
            "solve": cmd_solve,
            "review": cmd_review,
            "hint": cmd_hint,
            "play": cmd_play,
            "replay": cmd_replay,
            "serve": cmd_serve,
            "ratings": cmd_ratings,
        }
        return handler[args.command](args)
    except UsageError as error:
        print(_("backalley: error: {error}").format(error=error), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(_("backalley: interrupted"), file=sys.stderr)
        return 130


__all__ = ["UsageError", "build_parser", "main"]
