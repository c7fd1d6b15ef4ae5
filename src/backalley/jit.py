"""numba as every compiled kernel of the project uses it — the solver's search
(:mod:`backalley.solver.search`) and the research environment's rules
(:mod:`backalley.env.kernel`) — and the bit helpers they share: one home, which both import.

Typed for numba, not for mypy: the intrinsics are written in numba's own terms (LLVM code
generation), which mypy cannot follow; pyproject.toml leaves this module, and the kernels,
outside ``mypy --strict`` for that reason.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

SUIT = 0x1FFF  #: the thirteen cards of a suit, from its lowest


def compiled(**options: object) -> Any:
    """numba's ``njit`` as the kernels use it: cached on disk, numpy's error model, and no
    reference counting of arrays (numba's NRT). The search allocates nothing, and with
    counting on, every call between its functions counted its array arguments in and out:
    measured, a quarter of the whole search time went to that (interleaved A/B on 16
    ten-card deals: 29 % less time without it, the same nodes).

    numba passes each array as some seven machine words, so a call with four or five of
    them costs more than many small functions' bodies: the functions every node runs
    (:func:`open_node`, :func:`generate`, :func:`play` and the like, the table's
    :func:`probe`, and :func:`cashable` for the quick tricks) are inlined into the search
    loop (``inline="always"``). Measured by interleaved A/B, same nodes: 0.70 of the time
    at 10 cards, 0.63 at 13. numba inlines by copying its own code of the function, which is
    slow: the first compilation takes about 50 s instead of 30."""
    return njit(cache=True, error_model="numpy", _nrt=False, **options)


def needs_compiling(kernel: Any) -> bool:
    """Will the first call of ``kernel`` in this process compile it (seconds to a minute,
    once per machine) rather than load it from numba's cache (under a second)? Worth telling
    someone who waits. numba's cache is private to it: when it cannot be read, this says
    False rather than guess."""
    if kernel.signatures:
        return False  # compiled or loaded in this process already
    try:
        return not kernel._cache._cache_file._load_index()
    except Exception:
        return False


@intrinsic
def _ctpop(typingctx, x):
    """The CPU's population count (LLVM's ctpop)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


@intrinsic
def _ctlz(typingctx, x):
    """The CPU's count of leading zero bits (LLVM's ctlz; 64 for zero)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.int64), codegen


@compiled(inline="always")
def popcount(x: int) -> int:
    """How many bits are set. (An earlier hand-written count summed its bytes by a
    multiplication that overflows an int64, and LLVM, told signed arithmetic never overflows,
    folded comparisons of the count wrongly.)"""
    return _ctpop(x)


@compiled(inline="always")
def bit_length(x: int) -> int:
    """Bits needed for ``x`` >= 0: one more than the index of its highest set bit."""
    return 64 - _ctlz(x)


@compiled(inline="always")
def group_of(card: int, trumps: int) -> int:
    """The cards ranked against ``card``: its suit, or every trump.

    A compiled copy of :func:`backalley.engine.follow_mask`, which numba cannot call;
    ``tests/test_solver.py`` checks that the two agree on every card and trump suit."""
    if (trumps >> card) & 1:
        return trumps
    return SUIT << (13 * (card // 13))


__all__ = ["SUIT", "bit_length", "compiled", "group_of", "popcount"]
