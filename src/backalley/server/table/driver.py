"""A table's driver: one task per table that acts for whoever is not a person at the table
now — a bot, a stand-in for a player away, the turn timer run out — by asking the bots'
pool and making the move through the table like any other command, unless the game moved
on meanwhile (the table's ``moves`` changed, or who acts for the seat did)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from backalley.engine import IllegalAction
from backalley.record import write_record
from backalley.rules import action_name
from backalley.server.store import StoreError
from backalley.server.table.decide import Act
from backalley.server.table.state import Actor, TableStatus

if TYPE_CHECKING:
    from backalley.server.table.service import Table

log = logging.getLogger("backalley.server")


class Driver:
    """The task that moves a table's bots, stand-ins and timed-out turns."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.task is None and not self.table.state.status.over:
            self.task = asyncio.create_task(self._drive(), name=f"table {self.table.id}")

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.task = None

    def actor(self, seat: int) -> tuple[str, Actor, float] | None:
        """Who acts for ``seat`` without its person, how, and after how long: a bot seat and
        a stand-in at the table's pace, the turn timer when it runs out."""
        table = self.table
        settings = table.state.settings
        level = table.state.seats[seat].bot
        if level is not None:
            return level, Actor.BOT, settings.pace
        if table.presence.stand_in[seat]:
            return settings.level, Actor.STAND_IN, settings.pace
        if settings.turn_timer is not None:
            return settings.level, Actor.TIMER, settings.turn_timer
        return None

    async def _drive(self) -> None:
        """Whenever a bot, a stand-in or the timer is due to act, ask the pool and make the
        move — unless the game moved on meanwhile."""
        table = self.table
        while True:
            table.changed.clear()
            state = table.state
            game = state.game
            seat = None if game is None or state.status != TableStatus.PLAYING else game.to_move
            actor = None if seat is None else self.actor(seat)
            if actor is None or seat is None or game is None:
                await table.changed.wait()
                continue
            level, by, delay = actor
            plays = self.plays_as(level)
            moves = state.moves
            due = table.turn_started + delay
            thinking = None
            if by != Actor.TIMER:
                thinking = asyncio.ensure_future(
                    table.pool.decide(write_record(game), seat, plays, table.id, table.daily_seed)
                )
            try:
                while time.monotonic() < due and self._same(moves, seat, actor):
                    table.changed.clear()
                    try:
                        await asyncio.wait_for(table.changed.wait(), due - time.monotonic())
                    except TimeoutError:
                        break
                if not self._same(moves, seat, actor):
                    continue
                if thinking is None:
                    plays = self.plays_as(level)
                    thinking = asyncio.ensure_future(
                        table.pool.decide(
                            write_record(game), seat, plays, table.id, table.daily_seed
                        )
                    )
                action = await thinking
                thinking = None
            except asyncio.CancelledError:
                raise
            except Exception:  # a worker failed: try again at the next change or second
                await asyncio.sleep(1)
                continue
            finally:
                if thinking is not None and not thinking.done():
                    thinking.cancel()
            if table.released:  # another node's now
                return
            if not await self._move(seat, action, by, moves, actor, plays != level):
                with contextlib.suppress(TimeoutError):  # again at the next change or second
                    await asyncio.wait_for(table.changed.wait(), 1)

    def plays_as(self, level: str) -> str:
        """The level a bot plays at now: below its own while the solver is being prepared,
        except at the daily deals, where it waits for it (everyone meets the same bots)."""
        if self.table.state.settings.daily is not None:
            return level
        return self.table.pool.plays_as(level)

    def _same(self, moves: int, seat: int, actor: tuple[str, Actor, float]) -> bool:
        return self.table.state.moves == moves and self.actor(seat) == actor

    async def _move(
        self,
        seat: int,
        action: str,
        by: Actor,
        moves: int,
        actor: tuple[str, Actor, float],
        below_level: bool,
    ) -> bool:
        """Make the move, if the game is still where it was when it was asked for: whether
        it is done with (made, or moot). ``below_level``: the stand-in chose it, for a
        solver's bot (the solver not ready yet)."""
        table = self.table
        try:
            return await table.move(
                Act(seat, action, None, by, below_level), lambda: self._same(moves, seat, actor)
            )
        except IllegalAction as error:  # a bot's choice the engine refuses: a bug
            log.error("table %s: %s's %s refused (%s): its first legal action instead",
                      table.id, by, action, error)  # fmt: skip
            game = table.state.game
            assert game is not None
            first = action_name(game.legal_actions()[0])
            return await self._try(Act(seat, first, None, by, below_level), moves, seat, actor)
        except StoreError as error:
            log.warning("table %s: %s's move not stored (%s): again", table.id, by, error)
            return False
        except Exception:
            log.exception("table %s: %s's move could not be stored", table.id, by)
            return False

    async def _try(self, act: Act, moves: int, seat: int, actor: tuple[str, Actor, float]) -> bool:
        """A move that logs its failure: whether it was made."""
        try:
            return await self.table.move(act, lambda: self._same(moves, seat, actor))
        except Exception as error:
            log.warning("table %s: %s's move could not be made: %s", self.table.id, act.by,
                        error)  # fmt: skip
            return False


__all__ = ["Driver"]
