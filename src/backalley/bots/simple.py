"""The simplest player: any legal action, uniformly at random."""

from __future__ import annotations

import random

from backalley.view import SeatView


class RandomBot:
    """Chooses uniformly among the legal actions: the floor every other bot must beat."""

    name = "random"

    def act(self, view: SeatView, rng: random.Random) -> int:
        """A uniformly random legal action."""
        return rng.choice(view.legal_actions)
