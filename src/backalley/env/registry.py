"""The research environment's ids in Gymnasium's registry, so that ``gymnasium.make`` and
``gymnasium.make_vec`` find them once ``backalley.env`` is imported (docs/env.md).

``backalley/Seat…-v0`` are :class:`~backalley.env.seat.SeatEnv` for seat 0 against
``heuristic``, the mask in the observation; ``backalley/Batched-v0`` is the compiled fast
path, :class:`~backalley.env.vector.BatchedVectorEnv`, for ``gymnasium.make_vec``. A change
to an id's observation or reward comes under a new version.
"""

from __future__ import annotations

from typing import Any

#: The seat environments: (id, preset, options, episode).
IDS: tuple[tuple[str, str, dict[str, Any], str], ...] = (
    ("backalley/Seat-v0", "standard", {}, "game"),
    ("backalley/SeatShort-v0", "standard", {"hand_sizes": [3, 2, 1]}, "game"),
    ("backalley/SeatDeal-v0", "standard", {}, "deal"),
    ("backalley/SeatClassic-v0", "classic", {}, "game"),
    ("backalley/SeatClassic3-v0", "classic3", {}, "game"),
    ("backalley/SeatBab-v0", "bab", {}, "game"),
)
BATCHED = "backalley/Batched-v0"  #: the vector environment's id


def register() -> None:
    """Put :data:`IDS` and :data:`BATCHED` in Gymnasium's registry (if Gymnasium is there)."""
    try:
        import gymnasium
    except ImportError:
        return
    for name, preset, options, episode in IDS:
        if name not in gymnasium.registry:
            kwargs = {"rules": preset, "options": options, "episode": episode}
            gymnasium.register(
                name,
                entry_point="backalley.env.seat:SeatEnv",
                kwargs=kwargs | {"observation": "dict"},
            )
    if BATCHED not in gymnasium.registry:
        gymnasium.register(BATCHED, vector_entry_point="backalley.env.vector:BatchedVectorEnv")
