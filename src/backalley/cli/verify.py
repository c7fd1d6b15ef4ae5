"""``backalley verify``: replay a record and report every deal, the scores and the first error."""

from __future__ import annotations

import argparse
import json
from typing import Any

from backalley.cli.common import cannot_read, read_input
from backalley.record import verify


def cmd_verify(args: argparse.Namespace) -> int:
    """``backalley verify FILE``: the output and exit codes of docs/record.md."""
    try:
        text = read_input(args.file)
    except OSError as error:
        message = cannot_read(args.file, error)
        verdict_output: dict[str, Any] = {"ok": False, "error": {"rule": None, "message": message}}
        print(json.dumps(verdict_output, indent=2))
        return 2
    verdict = verify(text)
    print(json.dumps(verdict.output, indent=2, ensure_ascii=False))
    return verdict.exit_code
