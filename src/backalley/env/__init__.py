"""The research environment: Back Alley for reinforcement learning, fast on a CPU.

- :class:`BatchedEnv` — many games stepped at once into preallocated numpy arrays, the rules
  compiled by numba (needs nothing beyond the core install);
- :func:`pettingzoo_env` — a PettingZoo AEC environment (``pip install 'backalley[rl]'``);
- :class:`SeatEnv` — a Gymnasium environment for one seat, our bots in the others.

Observations are documented field by field in docs/env.md (:mod:`backalley.env.encoding`).
"""

from __future__ import annotations

from typing import Any

from backalley.env.batched import Batch, BatchedEnv
from backalley.env.encoding import COMPACT, FULL, encode_view
from backalley.env.registry import register

register()

__all__ = ["COMPACT", "FULL", "Batch", "BatchedEnv", "SeatEnv", "encode_view", "pettingzoo_env"]


def pettingzoo_env(
    rules: str = "standard", options: dict[str, Any] | None = None, **kw: Any
) -> Any:
    """A PettingZoo AEC environment of Back Alley (:class:`backalley.env.aec.BackAlleyAEC`)."""
    from backalley.env.aec import BackAlleyAEC

    return BackAlleyAEC(rules=rules, options=options, **kw)


def __getattr__(name: str) -> Any:
    if name == "SeatEnv":
        from backalley.env.seat import SeatEnv

        return SeatEnv
    raise AttributeError(name)
