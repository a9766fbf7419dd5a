"""Validated Python APIs of the KDA kernels (see docs/ops.md).

    from kdatile.ops import chunk_kda, kda_decode, kda_decode_with_f_b, kda_recurrent
    from kdatile.ops import kda_recurrent_records
    from kdatile.ops import fused_recurrent_kda, fused_recurrent_gated_delta_rule
    from kdatile.ops import chunk_gdn, fused_recurrent_gdn  # FLA's short names of the above
    from kdatile.ops import chunk_gated_delta_rule, chunk_gla, fused_recurrent_gla
    from kdatile.ops import gdn_decode, gdn_recurrent

Inputs are torch tensors (CPU or CUDA) or NumPy arrays (bf16 as uint16 bit patterns); the
kernel runs where the arrays live. Bad arguments raise ValueError naming the argument before
anything is launched. The kernels themselves come from the source tree's kernels/ directory
($KDATILE_KERNELS overrides it). kdatile.ops.tuning (KDATILE_AUTOTUNE_OPS=1) times the launch
candidates of the ops that have several instead of taking their rules' choice.
"""

from . import tuning, validation
from ._kernels import kernels_dir, load_kernel
from .chunk import chunk_gated_delta_rule, chunk_gla, chunk_kda
from .decode import kda_decode, kda_decode_with_f_b
from .fused_recurrent import (
    fused_recurrent_gated_delta_rule,
    fused_recurrent_gla,
    fused_recurrent_kda,
)
from .gdn_decode import gdn_decode
from .recurrent import gdn_recurrent, kda_recurrent, kda_recurrent_records

# FLA's short names of the Gated DeltaNet ops.
chunk_gdn = chunk_gated_delta_rule
fused_recurrent_gdn = fused_recurrent_gated_delta_rule

__all__ = ["chunk_gated_delta_rule", "chunk_gdn", "chunk_gla", "chunk_kda",
           "fused_recurrent_gated_delta_rule", "fused_recurrent_gdn",
           "fused_recurrent_gla", "fused_recurrent_kda", "gdn_decode", "gdn_recurrent",
           "kda_decode", "kda_decode_with_f_b", "kda_recurrent", "kda_recurrent_records",
           "kernels_dir", "load_kernel", "tuning", "validation"]
