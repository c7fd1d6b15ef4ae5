"""A table's driver: one task per table that acts for whoever is not a person at the table
now — a bot, a stand-in for a player away, the turn timer run out — by asking the bots'
pool and applying the answer through the same path as a person's action, unless the game
moved on meanwhile. A part of :class:`~backalley.server.tables.Table`, kept apart."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from backalley.engine import Game, IllegalAction
from backalley.record import write_record
from backalley.rules import action_name
from backalley.server.bots import BotPool
from backalley.server.events import Event
from backalley.server.settings import Settings
from backalley.server.store import StoreError, Write

log = logging.getLogger("backalley.server")


class Driver:
    """The driver of a table's bots, stand-ins and timer (mixed into its Table)."""

    # What the driver uses of its table (a Table has them all).
    id: str
    settings: Settings
    pool: BotPool
    lock: asyncio.Lock
    game: Game | None
    status: str
    bots: list[str | None]
    stand_in: list[bool]
    moves: int
    turn_started: float
    recovering: bool
    released: bool
    _changed: asyncio.Event

    def _changing(self) -> contextlib.AbstractContextManager[None]:
        raise NotImplementedError

    def _apply(self, seat: int, action: str, key: str | None, by: str | None = None) -> list[Event]:
        raise NotImplementedError

    async def _commit(self, events: list[Event], extra: Write | None = None) -> None:
        raise NotImplementedError

    def _publish(self, events: list[Event]) -> None:
        raise NotImplementedError

    def _actor(self, seat: int) -> tuple[str, str, float] | None:
        """Who acts for ``seat`` without its person, how, and after how long: a bot seat and
        a stand-in at the table's pace, the turn timer when it runs out."""
        level = self.bots[seat]
        if level is not None:
            return level, "bot", self.settings.pace
        if self.stand_in[seat]:
            return self.settings.level, "stand_in", self.settings.pace
        if self.settings.turn_timer is not None:
            return self.settings.level, "timer", self.settings.turn_timer
        return None

    async def _drive(self) -> None:
        """The table's driver: whenever a bot, a stand-in or the timer is due to act, ask the
        pool and apply the answer — unless the game moved on meanwhile."""
        while True:
            self._changed.clear()
            game = self.game
            seat = None if game is None or self.status != "playing" else game.to_move
            actor = None if seat is None else self._actor(seat)
            if actor is None or seat is None or game is None:
                await self._changed.wait()
                continue
            level, by, delay = actor
            moves = self.moves
            due = self.turn_started + delay
            thinking = None
            if by != "timer":
                thinking = asyncio.ensure_future(
                    self.pool.decide(write_record(game), seat, level, self.id)
                )
            try:
                while time.monotonic() < due and self.moves == moves and self._actor(seat) == actor:
                    self._changed.clear()
                    try:
                        await asyncio.wait_for(self._changed.wait(), due - time.monotonic())
                    except TimeoutError:
                        break
                if self.moves != moves or self._actor(seat) != actor:
                    continue
                if thinking is None:
                    thinking = asyncio.ensure_future(
                        self.pool.decide(write_record(game), seat, level, self.id)
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
            failed = False
            async with self.lock:
                if self.released:  # another node's now
                    return
                if self.moves != moves or self._actor(seat) != actor or self.recovering:
                    continue
                try:
                    await self._move(seat, action, by)
                except IllegalAction as error:  # a bot's choice the engine refuses: a bug
                    log.error("table %s: %s's %s refused (%s): its first legal action instead",
                              self.id, by, action, error)  # fmt: skip
                    assert self.game is not None
                    failed = not await self._try_move(
                        seat, action_name(self.game.legal_actions()[0]), by
                    )
                except StoreError as error:
                    log.warning("table %s: %s's move not stored (%s): again", self.id, by, error)
                    failed = True
                except Exception:
                    log.exception("table %s: %s's move could not be stored", self.id, by)
                    failed = True
            if failed:  # again at the next change or second, the lock let go meanwhile
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), 1)

    async def _move(self, seat: int, action: str, by: str) -> None:
        """Apply, store and publish a move made for ``seat`` (under the lock)."""
        with self._changing():
            events = self._apply(seat, action, None, by=by)
            await self._commit(events)
        self._publish(events)

    async def _try_move(self, seat: int, action: str, by: str) -> bool:
        """:meth:`_move`, logging a failure: whether the move was made."""
        try:
            await self._move(seat, action, by)
        except StoreError as error:
            log.warning("table %s: %s's move not stored (%s)", self.id, by, error)
            return False
        except Exception:
            log.exception("table %s: %s's move could not be made", self.id, by)
            return False
        return True


__all__ = ["Driver"]
