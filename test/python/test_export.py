"""python3 -m kdatile.ops.export: the kda-compile jobs of the KDA launches the ops pick."""

import json
import os
import re
import shlex
import subprocess
import sys

import pytest

from kdatile import _lib
from kdatile.ops import export

from conftest import KDA_COMPILE, ROOT, requires_lib

GPU_TARGETS = ("gfx950", "gfx1250", "sm_90a")


def run_export(*args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run([sys.executable, "-m", "kdatile.ops.export", *args], env=env,
                          capture_output=True, text=True)


def by_name(target, **options):
    return {job.name: job for job in export.jobs([target], **options)}


@pytest.mark.parametrize("target", GPU_TARGETS)
def test_main_jobs_per_target(target):
    """The main job's launches: what the batches of export.py pick (if the ops' rules change,
    this says which compile of the main job changed)."""
    jobs = by_name(target)
    split = "kda_decode_cluster4" if target == "sm_90a" else "kda_decode_bv32"
    assert list(jobs) == ["kda_decode", "kda_decode_fb", split, "kda_recurrent",
                          "kda_recurrent_t1", "kda_chunk_prep", "kda_chunk_scan",
                          "kda_chunk_summary", "kda_segment_starts", "gdn_decode"]
    # One 8192-token sequence at 12 heads: four segments, transition tiles after the values.
    summary = jobs["kda_chunk_summary"].spec
    assert summary.constexprs["SUMMARY"] and summary.grid == (4, 12, 5)
    assert jobs["kda_segment_starts"].spec.grid == (8, 1, 12)
    for name in ("kda_decode", "kda_decode_fb"):
        # A whole head per program in steps of 32 value rows, in registers.
        c = jobs[name].spec.constexprs
        assert jobs[name].spec.kernel == "kda_decode_steps"
        assert (c["H"], c["D"], c["BLK"], c["STAGES"]) == (12, 128, 32, 0)
        assert c["FUSED_FB"] == (name == "kda_decode_fb") and not c["STATE_KV"]
        assert c["USE_LOWER_BOUND"] and not c["HAS_CONV_BIAS"] and c["stride_cs_w"] == 1
        assert jobs[name].spec.num_warps == 4 and jobs[name].spec.grid == (64, 12, 1)
    # A head over 4 programs of one step: the cluster's hand-laid kernel on sm_90a, tickets
    # elsewhere.
    c = jobs[split].spec.constexprs
    if target == "sm_90a":
        assert jobs[split].spec.kernel == "kda_decode_cluster" and c["BV"] == 32
    else:
        assert jobs[split].spec.kernel == "kda_decode_split"
        assert (c["BV"], c["BLK"], c["CLUSTER"]) == (32, 32, False)
    assert jobs[split].spec.grid == (1, 12, 4)
    # The workspace's tickets only where a split head meets through them.
    tickets = "ticket_ptr=*i32:16" if target != "sm_90a" else "ticket_ptr=*bf16:16"
    assert tickets in jobs[split].spec.signature
    spec = jobs["kda_recurrent"].spec
    c = spec.constexprs
    assert (c["H"], c["K"], c["V"], c["BV"], c["stride_si_t"]) == (12, 128, 128, 32, 1)
    assert c["USE_QK_L2NORM"] and c["USE_GATE"] and c["USE_LOWER_BOUND"]
    assert c["USE_BETA_SIGMOID"] and not c["IS_VARLEN"] and not c["HAS_NUM_ACCEPTED"]
    assert "T=i32," in spec.signature and "stride_si_n=i32," in spec.signature
    # Several tokens load the state directly; one token prefetches it through the copy engine
    # (TMA on sm_90a, buffer loads into LDS on gfx950, the Tensor Data Mover on gfx1250).
    assert not c["PREFETCH_STATE"]
    t1 = jobs["kda_recurrent_t1"].spec.constexprs
    assert t1["PREFETCH_STATE"] and not t1["ELEMENT_COPIES"]
    # The prefill: 8 x 1024 tokens in 16-token chunks (8 * 1024 / 16 + 8 slots), bf16
    # intermediates and products, the anchored pairs of the lower-bound gate; the prep on 2
    # warps, the scan on 4 over 64 value columns.
    prep, scan = jobs["kda_chunk_prep"].spec, jobs["kda_chunk_scan"].spec
    assert prep.grid == (520, 12, 1) and scan.grid == (2, 12, 8)
    assert prep.num_warps == 2 and scan.num_warps == 4
    assert prep.constexprs["ANCHORED"] and prep.constexprs["C"] == 16
    assert prep.constexprs["DOT"] == scan.constexprs["DOT"] == "bf16"
    assert "w_ptr=*bf16:16" in prep.signature and "w_ptr=*bf16:16" in scan.signature
    assert scan.constexprs["BV"] == 64 and scan.constexprs["HAS_INITIAL"]
    # Gated DeltaNet at Qwen3-Next's heads: one 8-warp program per row and q/k head.
    spec = jobs["gdn_decode"].spec
    c = spec.constexprs
    assert (c["H"], c["HV"], c["K"], c["V"], c["STATE_KV"]) == (16, 32, 128, 128, False)
    assert spec.grid == (64, 16, 1) and spec.num_warps == 8
    for job in jobs.values():
        assert job.spec.target == target


def test_check_jobs():
    jobs = by_name("sm_90a", checks=True)
    tickets = jobs["kda_decode_tickets"].spec
    assert tickets.kernel == "kda_decode_split"
    assert not tickets.constexprs["CLUSTER"] and tickets.constexprs["BV"] == 32
    assert "ticket_ptr=*i32:16,partial_ptr=*f32:16" in tickets.signature
    kv = jobs["kda_recurrent_bf16_kv"].spec
    assert kv.constexprs["STATE_KV"] and "state_ptr=*bf16:16" in kv.signature
    head = jobs["kda_decode_head"].spec
    assert head.kernel == "kda_decode" and head.grid == (1, 12, 1) and head.num_warps == 4
    # On AMD targets the forced tickets' split is kda_decode_bv32: listed once.
    assert "kda_decode_tickets" not in by_name("gfx950", checks=True)


def test_cpu_jobs_are_listed_once():
    jobs = export.jobs(["cpu"])
    assert [job.name for job in jobs] == ["kda_decode", "kda_decode_fb", "kda_recurrent",
                                          "kda_recurrent_t1", "kda_chunk_prep",
                                          "kda_chunk_scan", "gdn_decode"]
    assert all(job.spec.num_warps is None for job in jobs)
    # The CPU runs a whole head in one step (kernels/kda_decode.py).
    assert jobs[0].spec.kernel == "kda_decode"
    assert "BLK" not in jobs[0].spec.constexprs


def test_job_command_output_and_flags():
    (job,) = [j for j in export.jobs(["gfx950"]) if j.name == "kda_decode"]
    argv = export.job_command(job, out_dir="build/kernels", kda_compile="kc",
                              flags=["--stats", "--fail-on-spill"])
    assert argv[0] == "kc" and argv[-2:] == ["--stats", "--fail-on-spill"]
    assert argv[argv.index("-o") + 1] == "build/kernels/kda_decode.gfx950.hsaco"
    assert argv == job.spec.compile_command(
        output="build/kernels/kda_decode.gfx950.hsaco", kda_compile="kc") + [
        "--stats", "--fail-on-spill"]
    ptx = export.job_command(job, out_dir="out/", emit="ptx")
    assert ptx[ptx.index("-o") + 1] == "out/kda_decode.gfx950.ptx"
    assert export.output_path("d", job, "asm") == "d/kda_decode.gfx950.s"


def test_cli_help():
    proc = run_export("--help")
    assert proc.returncode == 0, proc.stderr
    for word in ("--target", "--format", "--out", "--checks", "kda_decode_fb",
                 "kda_decode_cluster4", "kda_decode_bv32", "kda_recurrent", "kda_chunk_prep",
                 "kda_chunk_scan", "kda_chunk_summary", "kda_segment_starts", "gdn_decode",
                 "decode_config"):
        assert word in proc.stdout


def test_cli_needs_a_target():
    proc = run_export()
    assert proc.returncode != 0 and "--target" in proc.stderr


def test_cli_shell_and_json():
    proc = run_export("--target", "sm_90a", "--emit", "ptx", "--out", "o",
                      "--kda-compile", "bin/kc", "--", "--stats")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    comments = [line for line in lines if line.startswith("#")]
    commands = [shlex.split(line) for line in lines if not line.startswith("#")]
    assert len(comments) == len(commands) == 10
    assert comments[0].startswith("# kda_decode sm_90a:")
    assert all(cmd[0] == "bin/kc" and cmd[-1] == "--stats" for cmd in commands)
    assert commands[2][commands[2].index("-o") + 1] == "o/kda_decode_cluster4.sm_90a.ptx"
    proc = run_export("--target", "all", "--checks", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    jobs = json.loads(proc.stdout)
    assert {job["target"] for job in jobs} == {"cpu", *GPU_TARGETS}
    first = jobs[0]
    assert {"name", "target", "kernel", "file", "signature", "constexprs", "grid", "num_warps",
            "argv"} <= first.keys()
    assert first["argv"][:2] == ["kda-compile", os.path.join(ROOT, "kernels", "kda_decode.py")]


@requires_lib
@pytest.mark.skipif(not os.path.isfile(KDA_COMPILE), reason=f"{KDA_COMPILE} is not built")
def test_job_compiles_what_the_jit_compiles():
    """A job's command gives the PTX the C API gives for the JIT's request of that launch."""
    (job,) = [j for j in export.jobs(["sm_90a"]) if j.name == "kda_decode_cluster4"]
    argv = export.job_command(job, emit="ptx", kda_compile=KDA_COMPILE) + ["-o", "-"]
    ptx = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    assert ".reqnctapercluster 1, 1, 4" in ptx
    assert ptx == _lib.compile(dict(job.spec.request(), emit="ptx"))["text"]


@requires_lib
def test_latency_bound_kernels_are_launched_early():
    """The decode, recurrent and GDN decode launches the ops pick wait for the previous kernel
    themselves, so their GPU launches may start early; the prefill's do not."""
    early = {job.name: _lib.compile(dict(job.spec.request(), emit="tile"))["early_launch"]
             for job in export.jobs(["sm_90a"])}
    for name, waits in early.items():
        assert waits is name.startswith(("kda_decode", "kda_recurrent", "gdn_decode")), name


# A PTX instruction that may touch global memory: any load, store, atomic or reduction not
# qualified as parameter, shared, local or constant space, any cp.* copy and any prefetch.
GLOBAL_ACCESS = re.compile(r"^\s*(@!?%\w+\s+)?((ld|st|atom|red)\.(?!(param|shared|local|const)\b)"
                           r"|cp\.|prefetch)", re.MULTILINE)


def test_global_access_pattern():
    for line in ("ld.global.nc.v4.f32 %f1, [%rd1];", "@%p1 st.global.f32 [%rd2], %f1;",
                 "cp.async.ca.shared.global [%r1], [%rd2], 16;", "red.global.add.f32 [a], b;",
                 "cp.async.bulk.tensor.2d.shared::cluster.global.tile [a], [b];",
                 "ld.u32 %r1, [%rd1];", "atom.add.u32 %r1, [%rd1], 1;"):
        assert GLOBAL_ACCESS.search("\t" + line), line
    for line in ("ld.param.u64 %rd1, [k_param_0];", "st.shared.f32 [%r1], %f1;",
                 "mbarrier.init.shared.b64 [%r1], 1;", "ld.local.u32 %r1, [%rd1];",
                 "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];"):
        assert not GLOBAL_ACCESS.search("\t" + line), line


@requires_lib
def test_early_launched_kernels_wait_before_any_global_access():
    """In the PTX of every sm_90a launch that may start early (the ops' and the GPU checks'),
    nothing between the kernel's entry and its griddepcontrol.wait may touch global memory:
    the previous kernel's writes are only visible after the wait."""
    checked = 0
    for job in export.jobs(["sm_90a"], checks=True):
        response = _lib.compile(dict(job.spec.request(), emit="ptx"))
        if not response["early_launch"]:
            continue
        ptx = response["text"]
        head, wait, _ = ptx.partition("griddepcontrol.wait;")
        assert wait, job.name
        prologue = head[head.index(".entry"):]
        assert not GLOBAL_ACCESS.search(prologue), (job.name, GLOBAL_ACCESS.search(prologue))
        checked += 1
    assert checked >= 6
