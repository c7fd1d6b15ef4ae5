"""The research environment's players, which it adds to the bots (the entry points of
``backalley.bots`` in pyproject.toml): OpenSpiel's ISMCTS and MCTS, playing from the seat's
view with the hidden cards dealt at random consistently with it (``bench`` extra), and
``policy:FILE``, a numpy policy such as the self-play example trains."""

from __future__ import annotations

from backalley.bots import Bot, MissingExtra


def _openspiel(kind: str) -> Bot:
    try:
        from backalley.env.openspiel import OpenSpielPlayer
    except ImportError:
        raise MissingExtra(f"openspiel-{kind}", "bench") from None
    return OpenSpielPlayer(kind)


def ismcts(argument: str | None = None) -> Bot:
    """``openspiel-ismcts``: OpenSpiel's information-set MCTS."""
    return _openspiel("ismcts")


def mcts(argument: str | None = None) -> Bot:
    """``openspiel-mcts``: OpenSpiel's MCTS, on hidden cards dealt at random."""
    return _openspiel("mcts")


def policy(argument: str | None = None) -> Bot:
    """``policy:FILE``: the numpy policy saved in ``FILE``.

    :raises ValueError: no file given.
    """
    if not argument:
        raise ValueError("policy:FILE names the policy's file")
    from backalley.env.policy import PolicyBot

    return PolicyBot.from_file(argument)


__all__ = ["ismcts", "mcts", "policy"]
