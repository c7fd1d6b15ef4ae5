"""A bot asked from outside: one message of a seat's knowledge in, one answer out.

This is the exchange behind ``backalley bot`` (JSON lines on standard input and output) and
the server's ``POST /api/bot`` (docs/bots.md). A message is a
:class:`~backalley.knowledge.Knowledge` as JSON, with an optional ``id`` that the answer
repeats; the answer names the action in the project's notation (``"QS"``, ``"pass"``,
``"2"``, ``"board"``), or says what was wrong with the message — the rule it breaks, when a
rule is at stake — and the asker may go on: no message ends the exchange.

>>> asker = Answerer(level="medium", seed=1)
>>> asker.answer({"id": 7, "rules": "standard", "options": {"hand_sizes": [3]},
...               "seat": 2, "dealer": 1, "hand": "9S 9H LJ", "turn_up": "2S",
...               "bids": ["pass", "1", "board", "2"], "plays": ["QS", "KS"]})
{'id': 7, 'seat': 2, 'action': 'LJ'}
>>> asker.answer({"id": 8, "seat": 2})["error"]
{'rule': None, 'message': '"dealer" is missing'}
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Mapping
from typing import Any

from backalley.bots import BOTS, LEVELS, Bot, make_bot
from backalley.cards import BackAlleyError
from backalley.knowledge import Knowledge
from backalley.rules import Phase, Ruleset, action_name

#: The longest message taken, in characters: a whole deal's knowledge is under 2,000.
MAX_MESSAGE = 64 * 1024


class Answerer:
    """Answers messages for one bot level, one generator per seat.

    With ``seed``, seat *s* draws its choices from ``random.Random(seed * 7919 + s)`` in the
    order its decisions come, as :func:`backalley.bots.play_game` seeds each seat, so that a
    game in which this answerer plays a seat goes as the same bot inside the engine would play
    it; ``repeatable`` keeps the solver's bots to their sample and node budgets, not the clock.
    ``seconds`` is the time budget of a decision for the bots that have one.
    """

    def __init__(
        self,
        level: str = "medium",
        rules: Ruleset | None = None,
        seed: int | None = None,
        seconds: float | None = None,
        repeatable: bool = False,
    ) -> None:
        self.level = level
        self.rules = rules or Ruleset.preset("standard")
        self.seed = secrets.randbits(32) if seed is None else seed
        self.bot: Bot = make_bot(level, repeatable=repeatable)
        if seconds is not None and not repeatable and hasattr(self.bot, "seconds"):
            self.bot.seconds = seconds
        self._rngs: dict[int, random.Random] = {}

    def answer(self, message: object) -> dict[str, Any]:
        """The answer to one message (see the module's docstring); never raises for a bad one."""
        ident = message.get("id") if isinstance(message, Mapping) else None
        try:
            if not isinstance(message, Mapping):
                raise ValueError("a message is a JSON object")
            known = Knowledge.from_json(message, self.rules)
            view = known.view()
            if view.to_move != known.seat:
                raise _not_to_move(known.seat, view.to_move, view.phase)
            rng = self._rngs.setdefault(known.seat, random.Random(self.seed * 7919 + known.seat))
            action = self.bot.act(view, rng)
        except BackAlleyError as error:
            return _error(ident, error.rule, error.message)
        except (ValueError, TypeError, KeyError) as error:
            return _error(ident, None, str(error))
        answer: dict[str, Any] = {} if ident is None else {"id": ident}
        answer |= {"seat": known.seat, "action": action_name(action)}
        return answer

    def answer_line(self, line: str) -> str:
        """The answer to one line of JSON, as one line of JSON."""
        if len(line) > MAX_MESSAGE:
            answer = _error(None, None, f"a message is at most {MAX_MESSAGE} characters")
        else:
            try:
                message = json.loads(line, parse_constant=_no_constant)
            except json.JSONDecodeError as error:
                answer = _error(None, None, f"not JSON: {error.msg} at character {error.pos}")
            except (ValueError, RecursionError) as error:  # NaN, a number of 5,000 digits …
                answer = _error(None, None, f"not JSON: {str(error)[:100]}")
            else:
                answer = self.answer(message)
        return json.dumps(answer)  # \u escapes: any id comes back as it came, lone surrogates too


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _not_to_move(seat: int, to_move: int | None, phase: Phase) -> BackAlleyError:
    rule = "B1" if phase == Phase.BID else "P2"
    if to_move is None:
        return BackAlleyError(rule, "no action is due from any seat now ({phase})",
                              phase=phase.name.lower())  # fmt: skip
    return BackAlleyError(rule, "it is seat {turn}'s turn, not seat {seat}'s", turn=to_move,
                          seat=seat)  # fmt: skip


def _error(ident: object, rule: str | None, message: str) -> dict[str, Any]:
    answer: dict[str, Any] = {} if ident is None else {"id": ident}
    answer["error"] = {"rule": rule, "message": message}
    return answer


#: The levels and bots ``backalley bot`` and ``POST /api/bot`` play.
ASKABLE = (*LEVELS, *BOTS)

__all__ = ["ASKABLE", "MAX_MESSAGE", "Answerer"]
