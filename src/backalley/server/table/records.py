"""What a table gives out of its game besides views: the record (redacted for the reader
until the game is over), a deal's double-dummy review, and a finished game's replay frames.
A part of :class:`~backalley.server.tables.Table`, kept apart to be read at once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from backalley.cards import N_, format_cards
from backalley.engine import Game
from backalley.record import write_record
from backalley.rules import Phase, Ruleset
from backalley.server import protocol
from backalley.server.bots import BotPool
from backalley.server.events import seen_of_deal
from backalley.server.settings import TableError


class Records:
    """The record, the reviews and the replay of a table's game (mixed into its Table)."""

    # What these use of their table (a Table sets them all).
    id: str
    rules: Ruleset
    pool: BotPool
    lock: asyncio.Lock
    game: Game | None
    status: str
    names: list[str | None]
    takebacks: int
    departures: list[dict[str, Any]]
    _reviews: dict[int, asyncio.Future[dict[str, Any]]]
    _replayed: dict[str, Any] | None

    async def record(self, seat: int | None) -> dict[str, Any]:
        """The game's ``backalley/1`` record as stored, with every hand and the stock once the
        game is over; before that, the hands ``seat`` may not see and every stock are
        ``null``."""
        async with self.lock:
            return self._record(seat)

    async def review(
        self, deal: int, may_start: Callable[[], None] | None = None
    ) -> dict[str, Any]:
        """The double-dummy review of deal ``deal``, once all of its cards are played (its
        hands are then public: every card was shown); reviewed once and kept. Before a review
        is started (not when it is kept or under way), ``may_start()`` may refuse it.

        :raises TableError: no such deal, or one not over yet; or ``may_start``'s refusal.
        """
        async with self.lock:
            game = self.game
            if game is None or not 0 <= deal < len(game.deals):
                raise TableError("no_deal", N_("there is no deal {deal} at this table"), deal=deal)
            if (
                deal == len(game.deals) - 1
                and game.current_deal is not None
                and (game.phase in (Phase.BID, Phase.PLAY))
            ):
                raise TableError("deal_running", N_("deal {deal} is not over yet"), deal=deal)
            cached = self._reviews.get(deal)
            if cached is None:  # one review a deal, however many ask at once
                if may_start is not None:
                    may_start()
                record = self._full_record()
                record["deals"] = record["deals"][: deal + 1]
                cached = self._reviews[deal] = asyncio.ensure_future(
                    self.pool.review(record, deal, self.id)
                )
        try:
            return await asyncio.shield(cached)
        except Exception:
            if self._reviews.get(deal) is cached:
                del self._reviews[deal]  # asked again next time
            raise

    async def replay(self) -> dict[str, Any]:
        """A finished game card by card, every hand open: for each deal its bids and, before
        and after each card, the hands, the trick and the tricks won — all from the engine's
        views, so that a page can step through it without knowing a rule.

        :raises TableError: while the game is not over.
        """
        async with self.lock:
            if self.game is None or self.status != "finished":
                raise TableError("not_finished", N_("a game can be replayed once it is over"))
            if self._replayed is not None:  # a finished game does not change
                return self._replayed
            record = self._full_record()
        game = Game(self.rules)
        deals = []
        for number, deal in enumerate(record["deals"]):
            game.start_deal(deal["dealer"], deal["hands"], deal["stock"])
            for bid in deal["bids"]:
                game.apply(bid)
            bids = [[seat, str(bid)] for seat, bid in game.public_view().bids]
            frames = [self._frame(game)]
            for card in deal["play"]:
                game.apply(card)
                frames.append(self._frame(game))
            points = game.deals[number].points
            deals.append(
                {
                    "deal": number,
                    "dealer": deal["dealer"],
                    "bids": bids,
                    "frames": frames,
                    "points": None if points is None else list(points),
                }
            )
        sides = [list(self.rules.seats_of(side)) for side in range(self.rules.num_sides)]
        self._replayed = {"players": record["players"], "sides": sides, "record": record,
                          "deals": deals, "scores": list(game.scores),
                          "winner": game.winner}  # fmt: skip
        return self._replayed

    def _frame(self, game: Game) -> dict[str, Any]:
        """One step of a replay: every seat's hand (the game is over: all are shown) and the
        public rest."""
        public = protocol.view_json(game.public_view())
        return {
            "hands": [format_cards(game.hand(s)) for s in range(self.rules.num_players)],
            "trick": public["trick"],
            "tricks": public["tricks"],
            "trick_winners": public["trick_winners"],
            "tricks_won": public["tricks_won"],
            "trump": public["trump"],
            "turned_up": public["turned_up"],
            "contracts": public["contracts"],
            "to_move": public["to_move"],
        }

    def _full_record(self) -> dict[str, Any]:
        """The game's record with every hand: for the server's own use (and a finished game).
        Two members of the server's own, which ``verify`` ignores (docs/record.md): how many
        take-backs the game as played went through, and who left when."""
        assert self.game is not None
        record = write_record(self.game, players=[name or "" for name in self.names])
        if self.takebacks:
            record["takebacks"] = self.takebacks
        if self.departures:
            record["left"] = [dict(d) for d in self.departures]
        return record

    def _record(self, seat: int | None) -> dict[str, Any]:
        if self.game is None:
            raise TableError("not_started", N_("the game starts when every seat is filled"))
        record = self._full_record()
        if self.status == "finished":
            return record
        for deal in record["deals"]:
            deal.update(seen_of_deal(deal, seat))
        return record


__all__ = ["Records"]
