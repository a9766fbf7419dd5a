"""The GPU checks' chunk_kda and fused-recurrent cases (test/gpu/ops_cases.py) run on the CPU
target against the same fp64 references and bounds, so that a wrong case (inputs, call or
reference) shows here, not first on the GPU machine."""

import os
import sys

import numpy as np
import pytest

from kda_reference import bf16_to_f32
from kdatile import ops

from conftest import requires_lib

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "gpu"))
import ops_cases  # noqa: E402

pytestmark = requires_lib

CASES = ([("prefill", c) for c in ops_cases.PREFILL_CASES]
         + [("fused", c) for c in ops_cases.FUSED_CASES])


def widen(x):
    return bf16_to_f32(x) if x.dtype == np.uint16 else np.asarray(x, np.float32)


@pytest.mark.parametrize("kind,case", CASES, ids=[c["id"] for _, c in CASES])
def test_case_on_cpu(kind, case):
    arrays, ref = ops_cases.build_case(kind, case)
    call = ops_cases.prefill_call if kind == "prefill" else ops_cases.fused_call
    name, args, kwargs = call(case, arrays)
    o, final = getattr(ops, name)(*args, **kwargs)
    assert ops_cases.with_final_failures(kind, case, ref, widen(o), widen(final)) == []
