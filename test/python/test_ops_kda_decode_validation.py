"""kdatile.ops.kda_decode / kda_decode_with_f_b: every bad input of docs/kda.md (docs/ops.md
has the table these tests follow) raises ValueError naming the argument before any launch, or is
handled as the table says (padding slots, duplicate slots on request, CUDA-graph capture).
test_ops_kda_decode.py has the numerics."""

import math

import numpy as np
import pytest

from kda_reference import make_decode_inputs
from kdatile import ops
from kdatile.ops import validation

from conftest import BAD_ARRAY_PROBLEMS, bad_array, fake_device, requires_lib

try:
    import torch
except ImportError:  # torch is optional
    torch = None

# ---------------------------------------------------------------------------------------------
# Bad inputs (docs/kda.md): each raises ValueError naming the argument before any launch.


def base_args(B=2, H=1, slots=5, fused=False):
    rng = np.random.default_rng(0)
    i = make_decode_inputs(rng, B, H, slots, fused=fused)
    args = dict(x=i["x"], conv_weight=i["conv_w"], conv_state=i["conv_state"],
                raw_g=i["raw_g"], raw_beta=i["raw_beta"], A_log=i["A_log"],
                dt_bias=i["dt_bias"], state=i["state"],
                state_indices=np.array([1, 3], np.int32)[:B], output_gate=i["output_gate"],
                norm_weight=i["norm_weight"])
    if fused:
        del args["raw_g"]
        args = dict(f_a=i["f_a"], f_b_weight=i["f_b_weight"], **args)
    return args


def call(args, fused=False, **kw):
    fn = ops.kda_decode_with_f_b if fused else ops.kda_decode
    return fn(**args, **kw)


@pytest.fixture
def no_launch(monkeypatch):
    """Fails the test if anything reaches the kernel: every rejection happens before it."""
    from kdatile.ops import decode

    def boom(*a, **k):
        raise AssertionError("the kernel was reached")

    monkeypatch.setattr(decode, "load_kernel", boom)


ARRAY_ARGS = ["x", "conv_weight", "conv_state", "raw_g", "raw_beta", "A_log", "dt_bias",
              "state", "state_indices", "output_gate", "norm_weight"]
# Both ops (kda_decode_with_f_b has f_a and f_b_weight instead of raw_g): the rows of docs/kda.md's
# "Bad inputs" hold for each of them.
BOTH = pytest.mark.parametrize("fused", [False, True], ids=["decode", "with_f_b"])


def for_both(names):
    """(name, fused) pairs of the arguments each op takes."""
    return [(n, f) for f in (False, True) for n in names if not (f and n == "raw_g")]


@pytest.mark.parametrize("name,fused", for_both(ARRAY_ARGS))
@pytest.mark.parametrize("problem", BAD_ARRAY_PROBLEMS)
def test_bad_array(no_launch, name, fused, problem):
    args = base_args(fused=fused)
    # ("size": state K != V, x's channel count off by one, ...)
    args[name] = bad_array(args[name], problem)
    with pytest.raises(ValueError, match=f"argument '{name}'"):
        call(args, fused=fused)


@pytest.mark.parametrize("name", ["x", "raw_beta", "output_gate"])
def test_fp16_activations_rejected(no_launch, name):
    """The decode step takes bf16 activations only (the FLA-named ops also take fp16)."""
    from kda_reference import bf16_to_f32

    args = base_args()
    args[name] = bf16_to_f32(args[name]).astype(np.float16)
    with pytest.raises(ValueError, match=f"argument '{name}': dtype must be bf16"):
        call(args)


@pytest.mark.parametrize("name", ["f_a", "f_b_weight"])
@pytest.mark.parametrize("problem", ["size", "dtype", "missing", "rank"])
def test_bad_f_b_arrays(no_launch, name, problem):
    args = base_args(fused=True)
    a = args[name]
    if problem == "size":
        args[name] = np.zeros(a.shape[:-1] + (a.shape[-1] * 2,), a.dtype)
    elif problem == "dtype":
        args[name] = a.astype(np.float32)
    elif problem == "rank":
        args[name] = a.reshape(-1)
    else:
        args[name] = None
    with pytest.raises(ValueError, match=f"argument '{name}'"):
        call(args, fused=True)


@pytest.mark.parametrize("name,fused", for_both(
    ["A_log", "dt_bias", "raw_g", "raw_beta", "x", "state", "conv_state", "state_indices",
     "output_gate", "norm_weight"]))
def test_missing_required(no_launch, name, fused):
    """Gating is always on in decode: A_log / dt_bias given as None are rejected (docs/kda.md:
    gating on without its parameters)."""
    args = base_args(fused=fused)
    args[name] = None
    with pytest.raises(ValueError, match=f"argument '{name}'.*required"):
        call(args, fused=fused)


@BOTH
def test_head_dim_not_supported(no_launch, fused):
    args = base_args(fused=fused)
    args["state"] = np.zeros((5, 1, 96, 96), np.float32)
    with pytest.raises(ValueError, match="argument 'state'.*power of two"):
        call(args, fused=fused)


@BOTH
def test_state_not_contiguous(no_launch, fused):
    args = base_args(fused=fused)
    st = args["state"]
    args["state"] = np.zeros(st.shape[:-1] + (2 * st.shape[-1],), np.float32)[..., ::2]
    with pytest.raises(ValueError, match="argument 'state'.*contiguous"):
        call(args, fused=fused)
    args["state"] = st.transpose(0, 1, 3, 2)  # a [K, V] view is not a layout: state_layout is
    with pytest.raises(ValueError, match="argument 'state'.*contiguous"):
        call(args, fused=fused)


@BOTH
def test_state_bf16_accepted_fp16_rejected(no_launch, fused):
    args = base_args(fused=fused)
    args["state"] = args["state"].astype(np.float16)
    with pytest.raises(ValueError, match="argument 'state'.*dtype"):
        call(args, fused=fused)


@BOTH
@pytest.mark.parametrize("layout", ["VK", "auto", None, 1])
def test_state_layout_explicit(no_launch, layout, fused):
    with pytest.raises(ValueError, match="argument 'state_layout'"):
        call(base_args(fused=fused), fused=fused, state_layout=layout)


@pytest.mark.parametrize("name,value", [("lower_bound", float("nan")),
                                        ("lower_bound", "-5"), ("lower_bound", float("-inf")),
                                        ("norm_eps", -1e-5), ("norm_eps", float("inf")),
                                        ("norm_eps", None), ("norm_eps", True)])
@BOTH
def test_bad_float_parameters(no_launch, name, value, fused):
    with pytest.raises(ValueError, match=f"argument '{name}'"):
        call(base_args(fused=fused), fused=fused, **{name: value})


@pytest.mark.parametrize("name,value,why", [
    ("lower_bound", 1e39, "not finite in float32"), ("lower_bound", -1e39, "not finite"),
    ("lower_bound", 5.0, "must be < 0"), ("lower_bound", 0.0, "must be < 0"),
    ("lower_bound", 1e30, "must be < 0"), ("norm_eps", 1e39, "not finite in float32"),
    pytest.param("lower_bound", -10 ** 400, "401 digits is not finite", id="int-past-float64"),
    ("norm_eps", 1e-50, "is 0 in float32")])
@BOTH
def test_float_parameters_as_float32(no_launch, name, value, why, fused):
    """The kernel takes these as float32: values it would see as inf or 0 (a state turned to
    inf/NaN in place, an all-zero output), and gates that would not decay, are rejected."""
    with pytest.raises(ValueError, match=f"argument '{name}'.*{why}"):
        call(base_args(fused=fused), fused=fused, **{name: value})


@pytest.mark.parametrize("name", ["state", "conv_state", "out"])
@pytest.mark.parametrize("how", ["flag", "frombuffer", "mmap"])
@BOTH
def test_read_only_arrays_written_in_place(no_launch, name, how, fused, tmp_path):
    """An array the kernel writes must be writable: a read-only memory map would kill the
    process, a view of bytes would modify an immutable object."""
    args = base_args(fused=fused)
    if name == "out":
        args["out"] = np.zeros_like(args["output_gate"])
    arr = np.ascontiguousarray(args[name])
    if how == "flag":
        arr.flags.writeable = False
    elif how == "frombuffer":
        arr = np.frombuffer(arr.tobytes(), arr.dtype).reshape(arr.shape)
    else:
        np.save(tmp_path / "a.npy", arr)
        arr = np.load(tmp_path / "a.npy", mmap_mode="r")
    args[name] = arr
    with pytest.raises(ValueError, match=f"argument '{name}': is read-only"):
        call(args, fused=fused)


@pytest.mark.parametrize("target", ["bogus", "sm_80", "", 90])
def test_bad_target(no_launch, target):
    from kdatile.ops.decode import decode_launch
    from kdatile.ops.recurrent import recurrent_launch

    with pytest.raises(ValueError, match="argument 'target': unknown target"):
        decode_launch(target=target, **base_args())
    with pytest.raises(ValueError, match="argument 'target': unknown target"):
        recurrent_launch(np.zeros((1, 1, 1, 128), np.uint16), target=target)


@pytest.mark.parametrize("value", [0, -78, 78.0, True, "78"])
def test_bad_multiprocessors(no_launch, value):
    """decode_launch's multiprocessors (the GPU a launch is exported for) is a positive int."""
    from kdatile.ops.decode import decode_launch

    with pytest.raises(ValueError, match="argument 'multiprocessors'"):
        decode_launch(target="sm_90a", multiprocessors=value, **base_args())


def test_multiprocessors_numpy_int():
    """A NumPy integer is a count too (what a device query may return)."""
    from kdatile.ops.decode import decode_launch

    _, launch = decode_launch(target="sm_90a", multiprocessors=np.int64(78), **base_args())
    assert launch.num_warps == 4


@BOTH
def test_conv_state_layouts_and_strides(no_launch, fused):
    args = base_args(fused=fused)
    cs = args["conv_state"]
    args["conv_state"] = np.zeros((4,) + cs.shape[1:], np.uint16)  # slots != state's
    with pytest.raises(ValueError, match="argument 'conv_state'.*slots=5"):
        call(args, fused=fused)
    args["conv_state"] = cs[:, :, ::-1]  # negative tap stride
    with pytest.raises(ValueError, match="argument 'conv_state'.*positive"):
        call(args, fused=fused)
    args["conv_state"] = np.lib.stride_tricks.as_strided(cs, cs.shape, (0, 6, 2))  # slot 0 x5
    with pytest.raises(ValueError, match="argument 'conv_state'.*positive"):
        call(args, fused=fused)
    # Channels and taps interleaved so that elements alias (channel stride 2 < 3 taps x 1).
    args["conv_state"] = np.lib.stride_tricks.as_strided(cs, cs.shape,
                                                         (cs.strides[0], 4, 2))
    with pytest.raises(ValueError, match="argument 'conv_state'.*share memory"):
        call(args, fused=fused)


@BOTH
def test_bad_out(no_launch, fused):
    args = base_args(fused=fused)
    B, H, D = 2, 1, 128
    for out, what in [(np.zeros((B, H, D), np.float32), "dtype"),
                      (np.zeros((B, H, D + 1), np.uint16), "shape"),
                      (np.zeros((B, H, 2 * D), np.uint16)[..., ::2], "contiguous"),
                      (np.zeros((B, H * D), np.uint16), "3-D")]:
        with pytest.raises(ValueError, match=f"argument 'out'.*{what}"):
            call(args, fused=fused, out=out)


@pytest.mark.parametrize("victim,fused", for_both(
    ["x", "raw_g", "output_gate", "state", "conv_state"]) + [("f_a", True), ("f_b_weight", True)])
def test_out_overlapping(no_launch, victim, fused):
    args = base_args(fused=fused)
    B, H, D = 2, 1, 128
    # The victim lives at the start of a larger buffer; out starts 64 elements into it.
    a = args[victim]
    bits = a.view(np.uint16).reshape(-1)
    buf = np.zeros(bits.size + B * H * D + 64, np.uint16)
    buf[:bits.size] = bits
    args[victim] = buf[:bits.size].view(a.dtype).reshape(a.shape)
    out = buf[64:64 + B * H * D].reshape(B, H, D)
    with pytest.raises(ValueError, match=f"argument 'out'.*overlaps.*'{victim}'"):
        call(args, fused=fused, out=out)


@BOTH
def test_cache_aliasing_an_input(no_launch, fused):
    """x read from the conv cache's memory (written by the same launch) is rejected."""
    args = base_args(fused=fused)
    cs = args["conv_state"]
    args["x"] = cs.reshape(-1)[:2 * 384].reshape(2, 384)
    with pytest.raises(ValueError, match="argument 'conv_state'.*overlaps.*'x'"):
        call(args, fused=fused)


@BOTH
def test_state_indices_rank_and_dtype(no_launch, fused):
    """A 2-D index table is rejected (never read with a wrong stride); so are int16 and
    float indices."""
    args = base_args(fused=fused)
    args["state_indices"] = np.array([[1], [3]], np.int32)
    with pytest.raises(ValueError, match="argument 'state_indices'.*1-D"):
        call(args, fused=fused)
    for dt in (np.int16, np.float32, np.uint32):
        args["state_indices"] = np.array([1, 3], dt)
        with pytest.raises(ValueError, match="argument 'state_indices'"):
            call(args, fused=fused)


@BOTH
def test_duplicate_slots_opt_in(no_launch, fused):
    args = base_args(B=2, fused=fused)
    args["state_indices"] = np.array([3, 3], np.int32)
    with pytest.raises(ValueError, match="argument 'state_indices'.*live slot 3"):
        call(args, fused=fused, check_duplicate_slots=True)
    with pytest.raises(ValueError, match="argument 'check_duplicate_slots'"):
        call(args, fused=fused, check_duplicate_slots="yes")


@requires_lib
def test_duplicate_padding_is_fine_and_check_off_by_default():
    args = base_args(B=2)
    args["state_indices"] = np.array([-1, -1], np.int32)
    out = call(args, check_duplicate_slots=True)
    assert (out == 0).all()
    args["state_indices"] = np.array([7, 7], np.int32)  # out of range (5 slots): padding
    out = call(args, check_duplicate_slots=True)
    assert (out == 0).all()
    args["state_indices"] = np.array([2, 2], np.int32)
    call(args)  # undefined result, but no check unless asked for


@BOTH
def test_duplicate_check_skipped_while_capturing(no_launch, monkeypatch, fused):
    """Under CUDA-graph capture the host check (a device sync) is skipped."""
    from kdatile.ops import decode

    monkeypatch.setattr(decode.v, "is_capturing", lambda info: True)
    args = base_args(B=2, fused=fused)
    args["state_indices"] = np.array([3, 3], np.int32)
    with pytest.raises(AssertionError, match="kernel was reached"):
        call(args, fused=fused, check_duplicate_slots=True)


@BOTH
def test_more_than_2_31_elements(no_launch, fused):
    """Tensors other than the caches use 32-bit element offsets: larger ones are rejected
    (broadcast views: nothing is allocated)."""
    B = 2**31 // 384 + 1
    args = base_args(B=2, fused=fused)
    names = ("x", "raw_beta", "output_gate", "state_indices") + (("f_a",) if fused else
                                                                 ("raw_g",))
    for name in names:
        a = args[name]
        args[name] = np.broadcast_to(a[:1], (B,) + a.shape[1:])
    with pytest.raises(ValueError, match="argument 'x'.*2\\*\\*31"):
        call(args, fused=fused)


def test_devices(no_launch):
    """Every array on x's device (checked on the metadata; a mixed launch names the array)."""
    args = base_args()
    a = validation.ArrayInfo("raw_g", args["raw_g"])
    ref = validation.ArrayInfo("x", args["x"])
    validation.check_device(a, ref)
    a.device = "cuda:0"
    with pytest.raises(ValueError, match="argument 'raw_g'.*'cuda:0'.*'x'"):
        validation.check_device(a, ref)


@pytest.mark.parametrize("name,fused", for_both(
    ["conv_weight", "conv_state", "raw_g", "raw_beta", "A_log", "dt_bias", "state",
     "state_indices", "output_gate", "norm_weight", "conv_bias", "out"])
    + [("f_a", True), ("f_b_weight", True)])
def test_op_rejects_an_array_on_another_device(no_launch, monkeypatch, name, fused):
    """Through the op: one argument on another device (its metadata says cuda:0) is rejected
    naming it, before anything is launched."""
    fake_device(monkeypatch, [name])
    args = base_args(fused=fused)
    args["conv_bias"] = np.zeros(args["conv_weight"].shape[0], np.uint16)
    with pytest.raises(ValueError, match=f"argument '{name}'.*'cuda:0'"):
        call(args, fused=fused, out=np.zeros(args["output_gate"].shape, np.uint16))


@pytest.mark.skipif(torch is None, reason="torch is not installed")
def test_torch_mixed_with_numpy_and_dtypes(no_launch):
    args = base_args()
    args["raw_g"] = torch.from_numpy(args["raw_g"].view(np.int16)).view(torch.bfloat16).float()
    with pytest.raises(ValueError, match="argument 'raw_g'.*dtype"):
        call(args)


def test_validation_helpers():
    info = validation.ArrayInfo("a", np.zeros((3, 4, 5), np.float32))
    assert info.is_contiguous() and info.byte_range()[1] - info.byte_range()[0] == 240
    t = validation.ArrayInfo("t", np.zeros((3, 4, 5), np.float32).transpose(0, 2, 1))
    assert not t.is_contiguous() and t.contiguous().is_contiguous()
    validation.check_positive_strides(t, "[a, b, c]")
    assert math.isclose(validation.check_float("e", np.float32(0.5)), 0.5)
    # NumPy gives empty arrays zero strides: still contiguous.
    assert validation.ArrayInfo("z", np.empty((1, 0, 2, 4), np.float32)).is_contiguous()
    assert validation.check_flag("f", np.bool_(True)) is True
    with pytest.raises(ValueError, match="argument 'f'.*bool, got int"):
        validation.check_flag("f", 1)
