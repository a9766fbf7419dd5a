"""Context-parallel kdatile.ops.chunk_kda (cp_group) on the CPU target over gloo, with 2 and 4
processes (cp_cases.py): sequences cut inside a chunk, on chunk boundaries and at a sequence's
start, several sequences spread over the ranks (one rank without tokens, sequences of 0 and
1 token), one long sequence over every rank. Each rank's outputs and the final states every
rank returns equal the single-process call's within the prefill tolerances (5e-3 relative RMS
with fp32 inputs, 1e-2 with bf16), and the fp64 recurrence's. Also the segment bookkeeping and
the argument checks."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import cp_cases
from kda_chunk_reference import kda_prefill_reference
from kda_reference import bf16_to_f32, rel_rms
from kdatile.ops import chunk_kda
from kdatile.ops.context_parallel import Piece, rank_pieces

from conftest import requires_lib

pytestmark = requires_lib

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def widen(x):
    return bf16_to_f32(x) if x.dtype == np.uint16 else np.asarray(x, np.float32)


def limit(case):
    return 1e-2 if case.dtype in ("bf16", "f16") else 5e-3


def torch_distributed():
    torch = pytest.importorskip("torch", reason="context parallelism runs on torch.distributed")
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("torch.distributed without gloo")
    return torch, dist


@pytest.fixture(scope="module", params=[2, 4], ids=["2_ranks", "4_ranks"])
def ranks_run(request, tmp_path_factory):
    """Runs every case of one world size in that many processes; returns (world, out dir)."""
    torch_distributed()
    world = request.param
    out = tmp_path_factory.mktemp(f"cp{world}")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), str(HERE)]),
               OMP_NUM_THREADS="1")
    rendezvous = out / "rendezvous"
    procs = [subprocess.Popen([sys.executable, str(HERE / "cp_cases.py"), str(r), str(world),
                               str(rendezvous), str(out)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for r in range(world)]
    logs = [p.communicate(timeout=600)[0] for p in procs]
    for r, (p, log) in enumerate(zip(procs, logs)):
        assert p.returncode == 0, f"rank {r} of {world} failed:\n{log}"
    return world, out


@pytest.mark.parametrize("case", cp_cases.CASES, ids=[c.name for c in cp_cases.CASES])
def test_matches_single_process(case, ranks_run):
    world, out = ranks_run
    if len(case.per_rank) != world:
        pytest.skip(f"a case of {len(case.per_rank)} ranks")
    q, k, v, g, beta, kw = cp_cases.inputs(case)
    o_one, final_one = chunk_kda(q, k, v, g, beta, **kw)
    parts = [np.load(out / f"{case.name}.rank{r}.npz") for r in range(world)]
    o = np.concatenate([widen(p["o"]) for p in parts], axis=1)
    ref_kw = {n: kw.get(n) for n in ("cu_seqlens", "A_log", "dt_bias", "lower_bound",
                                     "initial_state")}
    ref_o, ref_final, _ = kda_prefill_reference(
        widen(q), widen(k), widen(v), widen(g), widen(beta), use_qk_l2norm=True,
        use_gate=case.gate, use_beta_sigmoid=True, state_v_first=case.state_v_first, **ref_kw)
    assert np.isfinite(o).all()
    assert rel_rms(widen(o_one), o) <= limit(case)
    assert rel_rms(ref_o, o) <= limit(case)
    for r, p in enumerate(parts):
        final = p["final"]
        assert final.shape == final_one.shape
        assert rel_rms(final_one, final) <= limit(case), f"rank {r}"
        assert rel_rms(ref_final, final) <= limit(case), f"rank {r}"
        # Every rank returns the same final states (one sum over the ranks).
        np.testing.assert_array_equal(final, parts[0]["final"])


def test_rank_pieces():
    cu = [0, 5, 45, 46, 46, 116, 133, 133]
    starts = [0, 30, 30, 90, 133]
    assert rank_pieces(cu, starts, 0) == [Piece(0, 0, 5, False, False),
                                          Piece(1, 5, 30, False, True)]
    assert rank_pieces(cu, starts, 1) == []
    assert rank_pieces(cu, starts, 2) == [Piece(1, 0, 15, True, False),
                                          Piece(2, 15, 16, False, False),
                                          Piece(3, 16, 16, False, False),
                                          Piece(4, 16, 60, False, True)]
    assert rank_pieces(cu, starts, 3) == [Piece(4, 0, 26, True, False),
                                          Piece(5, 26, 43, False, False),
                                          Piece(6, 43, 43, False, False)]


class _Group:
    """A stand-in group: the checks before any collective reject it."""


def test_cp_group_checks():
    torch, dist = torch_distributed()
    q, k, v, g, beta, kw = cp_cases.inputs(cp_cases.CASES[0])
    with pytest.raises(ValueError, match="argument 'cp_group'"):
        chunk_kda(q, k, v, g, beta, cp_group=_Group(), **kw)


def test_rank_errors_reach_every_rank(tmp_path):
    """A rank with a bad argument raises its ValueError; the other ranks raise one naming the
    rank instead of waiting in a collective."""
    torch_distributed()
    script = tmp_path / "bad_rank.py"
    script.write_text(
        "import sys\n"
        "import numpy as np\n"
        "import torch.distributed as dist\n"
        "import cp_cases\n"
        "from kdatile.ops import chunk_kda\n"
        "rank = int(sys.argv[1])\n"
        "dist.init_process_group('gloo', init_method='file://' + sys.argv[2], rank=rank,\n"
        "                        world_size=2)\n"
        "case = cp_cases.CASES[0]\n"
        "q, k, v, g, beta, kw = cp_cases.inputs(case)\n"
        "mine = cp_cases.rank_slice(case, rank)\n"
        "bad = dict(kw, cu_seqlens=kw['cu_seqlens'] + 1) if sys.argv[3] == 'cu' else kw\n"
        "args = [x[:, mine] for x in (q, k, v, g, beta)]\n"
        "if sys.argv[3] == 'shape' and rank == 1:\n"
        "    args[1] = args[1][..., :-1]\n"
        "if sys.argv[3] == 'v' and rank == 1:\n"
        "    args[2] = args[2][..., :-1]\n"
        "try:\n"
        "    chunk_kda(*args, cp_group=dist.group.WORLD, **bad)\n"
        "except ValueError as e:\n"
        "    print('ValueError:', e)\n"
        "dist.destroy_process_group()\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), str(HERE)]))
    for mode, expect in (("shape", ("argument 'k'", "rank 1 rejected its arguments")),
                         ("cu", ("argument 'cu_seqlens': must start at 0",) * 2),
                         ("v", ("argument 'v': with cp_group needs head dim V = K",
                                "rank 1 rejected its arguments"))):
        rdv = tmp_path / f"rdv_{mode}"
        procs = [subprocess.Popen([sys.executable, str(script), str(r), str(rdv), mode],
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True) for r in range(2)]
        logs = [p.communicate(timeout=300)[0] for p in procs]
        for r in range(2):
            assert procs[r].returncode == 0, logs[r]
            assert "ValueError:" in logs[r] and expect[1 - r] in logs[r], (mode, r, logs[r])


def test_docs_example_under_torchrun(tmp_path):
    """docs/ops.md's example, as written, under torchrun with 2 processes; each rank then
    checks its outputs and the final states against the single-process call."""
    torch_distributed()
    text = (ROOT / "docs" / "ops.md").read_text()
    section = text[text.index("### Context parallelism (`cp_group`)"):]
    begin = section.index("```python\n") + len("```python\n")
    example = section[begin:section.index("\n```", begin)]
    check = (
        "\none, one_final = chunk_kda(q, k, v, g, beta, cu_seqlens=cu,\n"
        "                            use_qk_l2norm_in_kernel=True, output_final_state=True)\n"
        "assert np.abs(o - one[:, mine]).max() < 1e-3 * np.abs(one).max()\n"
        "assert np.abs(final - one_final).max() < 1e-3 * np.abs(one_final).max()\n"
        "print(f'rank {rank} matches', flush=True)\n"
        "dist.destroy_process_group()\n")
    script = tmp_path / "prefill_cp.py"
    script.write_text(example + check)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                           "--nproc-per-node", "2", str(script)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "rank 0 matches" in proc.stdout and "rank 1 matches" in proc.stdout
