"""What a table gives out of its game besides views: the record (redacted for the reader
until the game is over), a deal's double-dummy review, and a finished game's replay frames;
each read from the table's state, the reviews and the replay made once and kept."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from backalley.cards import N_, format_cards
from backalley.engine import Game
from backalley.record import write_record
from backalley.rules import Phase
from backalley.server import protocol
from backalley.server.bots import BotPool
from backalley.server.players import seat_stats
from backalley.server.settings import TableError
from backalley.server.store import Store
from backalley.server.table.events import seen_of_deal
from backalley.server.table.state import TableState, TableStatus

if TYPE_CHECKING:
    from backalley.server.table.service import Table

log = logging.getLogger("backalley.server")


class Records:
    """The record, the reviews and the replay of one table's game."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        #: finished deals' reviews, each asked of the pool once (under way, or done)
        self.reviews: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.replayed: dict[str, Any] | None = None  #: the finished game's replay

    def forget(self) -> None:
        """The names shown changed (an account deleted): the replay is made anew."""
        self.replayed = None

    def record(
        self, state: TableState, seat: int | None, names: list[str | None]
    ) -> dict[str, Any]:
        """The game's ``backalley/1`` record as stored, with every hand and the stock once the
        game is over; before that, the hands ``seat`` may not see and every stock are
        ``null``.

        :raises TableError: before the game starts.
        """
        if state.game is None:
            raise TableError("not_started", N_("the game starts when every seat is filled"))
        record = full_record(state, names)
        if state.status == TableStatus.FINISHED:
            return record
        for deal in record["deals"]:
            deal.update(seen_of_deal(deal, seat))
        return record

    def review(
        self,
        state: TableState,
        deal: int,
        names: list[str | None],
        pool: BotPool,
        may_start: Callable[[], None] | None = None,
    ) -> asyncio.Future[dict[str, Any]]:
        """The double-dummy review of deal ``deal``, once all of its cards are played (its
        hands are then public: every card was shown), to be awaited; reviewed once and kept.
        Before a review is started (not when it is kept or under way), ``may_start()`` may
        refuse it.

        :raises TableError: no such deal, or one not over yet; or ``may_start``'s refusal.
        """
        game = state.game
        if game is None or not 0 <= deal < len(game.deals):
            raise TableError("no_deal", N_("there is no deal {deal} at this table"), deal=deal)
        if (
            deal == len(game.deals) - 1
            and game.current_deal is not None
            and game.phase in (Phase.BID, Phase.PLAY)
        ):
            raise TableError("deal_running", N_("deal {deal} is not over yet"), deal=deal)
        cached = self.reviews.get(deal)
        if cached is None:  # one review a deal, however many ask at once
            if may_start is not None:
                may_start()
            record = full_record(state, names)
            record["deals"] = record["deals"][: deal + 1]
            cached = self.reviews[deal] = asyncio.ensure_future(
                pool.review(record, deal, self.table_id)
            )
            cached.add_done_callback(lambda done: self._forget_failed(deal, done))
        return cached

    def _forget_failed(self, deal: int, done: asyncio.Future[dict[str, Any]]) -> None:
        if (done.cancelled() or done.exception() is not None) and self.reviews.get(deal) is done:
            del self.reviews[deal]  # asked again next time

    def replay(self, state: TableState, names: list[str | None]) -> dict[str, Any]:
        """A finished game card by card, every hand open: for each deal its bids and, before
        and after each card, the hands, the trick and the tricks won — all from the engine's
        views, so that a page can step through it without knowing a rule.

        :raises TableError: while the game is not over.
        """
        if state.game is None or state.status != TableStatus.FINISHED:
            raise TableError("not_finished", N_("a game can be replayed once it is over"))
        if self.replayed is not None:  # a finished game does not change
            return self.replayed
        record = full_record(state, names)
        rules = state.rules
        game = Game(rules)
        deals = []
        for number, deal in enumerate(record["deals"]):
            game.start_deal(deal["dealer"], deal["hands"], deal["stock"])
            for bid in deal["bids"]:
                game.apply(bid)
            bids = [[seat, str(bid)] for seat, bid in game.public_view().bids]
            frames = [_frame(game)]
            for card in deal["play"]:
                game.apply(card)
                frames.append(_frame(game))
            played = game.deals[number]
            deals.append(
                {
                    "deal": number,
                    "dealer": deal["dealer"],
                    "bids": bids,
                    "frames": frames,
                    "points": None if played.points is None else list(played.points),
                    "thrown_in": played.thrown_in,
                }
            )
        sides = [list(rules.seats_of(side)) for side in range(rules.num_sides)]
        self.replayed = {"players": record["players"], "sides": sides, "record": record,
                         "deals": deals, "scores": list(game.scores),
                         "winner": game.winner}  # fmt: skip
        return self.replayed


def _frame(game: Game) -> dict[str, Any]:
    """One step of a replay: every seat's hand (the game is over: all are shown) and the
    public rest."""
    public = protocol.view_json(game.public_view())
    return {
        "hands": [format_cards(game.hand(s)) for s in range(game.num_players)],
        "trick": public["trick"],
        "tricks": public["tricks"],
        "trick_winners": public["trick_winners"],
        "tricks_won": public["tricks_won"],
        "trump": public["trump"],
        "turned_up": public["turned_up"],
        "contracts": public["contracts"],
        "to_move": public["to_move"],
    }


def full_record(state: TableState, names: list[str | None]) -> dict[str, Any]:
    """The game's record with every hand: for the server's own use (and a finished game).
    Members of the server's own, which ``verify`` ignores (docs/record.md): how many
    take-backs the game as played went through, who left when, and each seat's moves made
    below its bot's level while the solver was being prepared."""
    assert state.game is not None
    record = write_record(state.game, players=[name or "" for name in names])
    if state.takebacks:
        record["takebacks"] = state.takebacks
    if state.departures:
        record["left"] = [d.to_json() for d in state.departures]
    if any(state.below_level):
        record["below_level"] = list(state.below_level)
    return record


async def count_given_away(table: Table) -> None:
    """Once a game with an account at it is over: its deals reviewed double dummy (when
    the bots' workers have time), and the tricks each seat gave away kept with the seat's
    figures, for its profile."""
    state = table.state
    assert state.game is not None
    n = len(state.seats)
    given, reviewed = [0] * n, 0
    try:
        for deal in range(len(state.game.deals)):
            entry = await table.review(deal)
            if entry.get("reviewed"):
                reviewed += 1
                given = [a + b for a, b in zip(given, entry["given_away"], strict=True)]
        rows: Any = []
        for seat in range(n):
            stats = seat_stats(state.game, seat) | {
                "reviewed": reviewed, "given_away": given[seat]
            }  # fmt: skip
            rows += Store.stats(table.id, seat, stats)
        await table.store.write(rows)
    except Exception:
        log.exception("table %s: its deals could not be reviewed for the profiles", table.id)


__all__ = ["Records", "count_given_away", "full_record"]
