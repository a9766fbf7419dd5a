"""Kernels using kt.cluster_sum (test_cluster_sum.py, test/Kernels/cluster_sum.py)."""
import kdatile as kt


@kt.jit
def normalize_rows(x_ptr, out_ptr, COLS: kt.constexpr, PARTS: kt.constexpr):
    """Row r of x [R, PARTS * COLS] is split over PARTS programs (grid (R, PARTS)); each
    writes its COLS columns divided by the row's L2 norm, which the programs of the row
    sum in a cluster of PARTS along axis 1."""
    row = kt.program_id(0)
    part = kt.program_id(1)
    offs = row * PARTS * COLS + part * COLS + kt.arange(0, COLS)
    x = kt.load(x_ptr + offs)
    total = kt.cluster_sum(kt.sum(x * x), 1, PARTS)
    kt.store(out_ptr + offs, x / kt.sqrt(total))


@kt.jit
def cluster_totals(x_ptr, out_ptr, flag_ptr, SIZE: kt.constexpr):
    """out[p] = the sum of x over program p's cluster of SIZE programs along axis 0, or -1
    where flag[p // SIZE] is 0: the whole cluster skips the sum."""
    pid = kt.program_id(0)
    x = kt.load(x_ptr + pid)
    result = -1.0
    if kt.load(flag_ptr + pid // SIZE) != 0:
        result = kt.cluster_sum(x, 0, SIZE)
    kt.store(out_ptr + pid, result)


@kt.jit
def uneven_sums(x_ptr, out_ptr):
    """Wrong on purpose: in each cluster of two programs only the even one sums."""
    pid = kt.program_id(0)
    result = kt.load(x_ptr + pid)
    if pid % 2 == 0:
        result = kt.cluster_sum(result, 0, 2)
    kt.store(out_ptr + pid, result)


@kt.jit
def two_sums(x_ptr, out_ptr, SIZE: kt.constexpr):
    """out[p] = the cluster's sum of x times the cluster's sum of x * x: two sums in a row
    (each program a second exchange buffer on sm_90a, the other slot row on the host)."""
    pid = kt.program_id(0)
    x = kt.load(x_ptr + pid)
    first = kt.cluster_sum(x, 0, SIZE)
    second = kt.cluster_sum(x * x, 0, SIZE)
    kt.store(out_ptr + pid, first * second)


@kt.jit
def different_sums(x_ptr, out_ptr):
    """Wrong on purpose: the programs of a cluster of two each make one sum, but not the
    same one."""
    pid = kt.program_id(0)
    x = kt.load(x_ptr + pid)
    if pid % 2 == 0:
        x = kt.cluster_sum(x, 0, 2)
    else:
        x = kt.cluster_sum(100.0 * x, 0, 2)
    kt.store(out_ptr + pid, x)
