"""The keywords FLA's ops take through `**kwargs` (fla-core 0.6), checked in one place for the
FLA-named ops of kdatile.ops, so that a caller's FLA call runs unchanged:

- `transpose_state_layout`: FLA's former name of `state_v_first`; taken with a
  DeprecationWarning, as FLA does, and rejected beside `state_v_first=True`.
- `head_first`: FLA removed it; `False` (the `[B, T, H, ...]` layout every op takes) is
  accepted, `True` rejected (FLA's chunk_gated_delta_rule rejects even `False`; its other ops
  ignore the keyword).
- `chunk_size`: the chunk length FLA computes with, one of the values FLA accepts for the op.
  The kernels here take their own chunks (docs/kda.md); `chunk_kda`'s intermediate states
  follow it (one state before every `chunk_size` tokens, as FLA returns them).

Any other keyword is a TypeError, as for any Python function (FLA ignores unknown keywords,
which hides a misspelt one).
"""

from __future__ import annotations

import numbers
import os
import sys
import warnings

from . import validation as vd


def take_fla_keywords(op: str, options: dict, state_v_first, chunk_sizes: tuple = ()):
    """(state_v_first, chunk_size or None) of op `op` called with FLA's extra keywords
    `options`; chunk_sizes: the chunk lengths FLA accepts for the op (none: no chunk_size)."""
    options = dict(options)
    if "transpose_state_layout" in options:
        old = vd.check_flag("transpose_state_layout", options.pop("transpose_state_layout"))
        if vd.check_flag("state_v_first", state_v_first):
            vd.fail("transpose_state_layout", "is the former name of state_v_first: pass only "
                                              "state_v_first")
        warnings.warn(f"{op}: transpose_state_layout is deprecated, pass state_v_first",
                      DeprecationWarning, stacklevel=_caller_level())
        state_v_first = old
    if "head_first" in options and vd.check_flag("head_first", options.pop("head_first")):
        vd.fail("head_first", "head-first inputs are not taken (FLA removed them): pass [B, T, "
                              "H, ...] arrays")
    chunk_size = None
    if chunk_sizes and "chunk_size" in options:
        chunk_size = options.pop("chunk_size")
        # Any integer type (NumPy's too); not a bool or a float, which FLA lets through.
        if (not isinstance(chunk_size, numbers.Integral) or isinstance(chunk_size, bool)
                or int(chunk_size) not in chunk_sizes):
            vd.fail("chunk_size", f"must be one of {', '.join(map(str, chunk_sizes))} for "
                                  f"{op} (as in FLA), got {chunk_size!r}")
        chunk_size = int(chunk_size)
    if options:
        raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(options))}'")
    return state_v_first, chunk_size


def _caller_level() -> int:
    """warnings' stacklevel of the first frame outside kdatile.ops: the caller's line."""
    here = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.dirname(
            os.path.abspath(frame.f_code.co_filename)) == here:
        frame, level = frame.f_back, level + 1
    return level
