"""A table as a state machine, in small parts:

- :mod:`~.state` — the table's state, a value (seats, game, take-backs, rematch…);
- :mod:`~.events` — its log's events, a typed payload each, and what a receiver sees of one;
- :mod:`~.decide` — ``decide(state, command) -> events``, or the rule's or the protocol's
  refusal; no I/O;
- :mod:`~.evolve` — ``evolve(state, event) -> state``: the only code that changes a table,
  for live play, loading from the log and a node taking a table over alike;
- :mod:`~.service` — :class:`Table`: one lock a table, which decides, persists
  (:mod:`~.persist`), applies and publishes (:mod:`~.broadcast`); :mod:`~.making` makes
  one, or loads it from its log; :mod:`~.messages` carries out its clients' messages;
- :mod:`~.presence`, :mod:`~.driver`, :mod:`~.projections`, :mod:`~.records` — who is here,
  the task that moves bots and timers, what a table shows, and what it gives out.
"""

from backalley.server.table import making, messages
from backalley.server.table.service import MOVED, Client, Table

__all__ = ["MOVED", "Client", "Table", "making", "messages"]
