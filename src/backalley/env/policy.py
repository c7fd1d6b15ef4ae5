"""A numpy policy — a small multi-layer perceptron over an encoding — and the bot that plays it.

A policy file is an ``.npz`` holding ``W0, b0, W1, b1, …`` (ReLU between the layers; the
last layer gives one logit per action) and ``encoding`` (``"compact"`` or ``"full"``). The
bot reads its seat's view, encodes it (:func:`~backalley.env.encoding.encode_view`) and plays
the legal action of highest logit: ``backalley arena policy:FILE heuristic`` measures it.

>>> policy = Policy.random([531, 8, 69], seed=1)
>>> from backalley.engine import Game
>>> from backalley.rules import Ruleset
>>> game = Game(Ruleset.preset("standard", hand_sizes=[2]), seed=3)
>>> PolicyBot(policy).act(game.view(game.to_move), None) in game.legal_actions()
True
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from backalley.env.encoding import encode_view, size_of
from backalley.env.kernel import NUM_ACTIONS
from backalley.view import SeatView


class Policy:
    """Weights and biases of an MLP, ``encoding``'s vectors in, one logit per action out."""

    def __init__(self, weights: list[np.ndarray], biases: list[np.ndarray], encoding: str) -> None:
        if weights[0].shape[0] != size_of(encoding) or weights[-1].shape[1] != NUM_ACTIONS:
            raise ValueError(
                f"a policy maps {size_of(encoding)} floats ({encoding}) to {NUM_ACTIONS} logits"
            )
        self.weights, self.biases, self.encoding = weights, biases, encoding

    @classmethod
    def random(cls, sizes: list[int], seed: int = 0, encoding: str = "compact") -> Policy:
        """Small random weights (He's scaling) for layers of ``sizes``."""
        rng = np.random.default_rng(seed)
        weights = [
            (rng.standard_normal((a, b)) * np.sqrt(2 / a)).astype(np.float32)
            for a, b in itertools.pairwise(sizes)
        ]
        weights[-1] *= 0.01  # near-uniform choices to begin with
        biases = [np.zeros(b, dtype=np.float32) for b in sizes[1:]]
        return cls(weights, biases, encoding)

    @classmethod
    def from_layers(
        cls, layers: Sequence[tuple[np.ndarray, np.ndarray]], encoding: str = "compact"
    ) -> Policy:
        """A policy of linear layers given as PyTorch's ``nn.Linear`` keeps them, ``(weight
        [out, in], bias [out])``, with ReLU between them: how a network trained elsewhere (an
        SB3 actor, a CleanRL agent) becomes a file the arena and the server's tables play."""
        weights = [np.ascontiguousarray(np.asarray(w, dtype=np.float32).T) for w, _ in layers]
        biases = [np.asarray(b, dtype=np.float32).copy() for _, b in layers]
        for k, (w, b) in enumerate(zip(weights, biases, strict=True)):
            if b.shape != (w.shape[1],) or (k and w.shape[0] != weights[k - 1].shape[1]):
                raise ValueError(f"layer {k}: weight {w.T.shape} and bias {b.shape} do not chain")
        return cls(weights, biases, encoding)

    @classmethod
    def from_torch(
        cls, modules: Iterable[Any], encoding: str = "compact", hint: str = ""
    ) -> Policy:
        """A policy of a PyTorch network given as its modules in order, ``nn.Linear`` layers
        with ``nn.ReLU`` between them (an SB3 actor, an RLlib module); any other module is
        refused by name, ``hint`` saying how to train with ReLU instead.

        :raises ValueError: for a module that is neither.
        """
        import torch

        layers = []
        for module in modules:
            if isinstance(module, torch.nn.Linear):
                weight, bias = module.weight.detach().cpu(), module.bias.detach().cpu()
                layers.append((weight.numpy(), bias.numpy()))
            elif not isinstance(module, torch.nn.ReLU):
                raise ValueError(
                    f"a policy of linear layers and ReLU is exported, not "
                    f"{type(module).__name__}{hint}"
                )
        return cls.from_layers(layers, encoding)

    @classmethod
    def load(cls, path: str | Path) -> Policy:
        with np.load(path) as data:
            layers = sum(1 for key in data.files if key.startswith("W"))
            weights = [data[f"W{k}"] for k in range(layers)]
            biases = [data[f"b{k}"] for k in range(layers)]
            return cls(weights, biases, str(data["encoding"]))

    def save(self, path: str | Path) -> None:
        arrays = {f"W{k}": w for k, w in enumerate(self.weights)}
        arrays.update({f"b{k}": b for k, b in enumerate(self.biases)})
        np.savez(path, encoding=np.array(self.encoding), **arrays)  # type: ignore[arg-type]

    def copy(self) -> Policy:
        return Policy(
            [w.copy() for w in self.weights], [b.copy() for b in self.biases], self.encoding
        )

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """Logits for the rows of ``x``, and every layer's input (for a gradient)."""
        inputs = [x]
        for k, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            x = x @ w + b
            if k < len(self.weights) - 1:
                x = np.maximum(x, 0)
            inputs.append(x)
        return x, inputs

    def logits(self, x: np.ndarray) -> np.ndarray:
        return self.forward(x)[0]


def masked_softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Probabilities over each row's legal actions (``masks`` 0/1)."""
    shown = np.where(masks > 0, logits, -np.inf)
    shown -= shown.max(axis=1, keepdims=True)
    e = np.exp(shown)
    probabilities: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return probabilities


class PolicyBot:
    """A bot that plays a :class:`Policy`'s most likely legal action."""

    def __init__(self, policy: Policy, name: str = "policy") -> None:
        self.policy, self.name = policy, name

    @classmethod
    def from_file(cls, path: str) -> PolicyBot:
        return cls(Policy.load(path), name=f"policy:{Path(path).name}")

    def act(self, view: SeatView, rng: random.Random | None) -> int:
        legal = [int(a) for a in view.legal_actions]
        logits = self.policy.logits(encode_view(view, self.policy.encoding)[None, :])[0]
        return max(legal, key=lambda a: logits[a])
