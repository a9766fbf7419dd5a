"""The seed corpus of kda-fuzz: every shipped kernel on every target, and the DSL lit tests."""

import importlib.util
import pathlib
import shlex

from conftest import ROOT

ROOT = pathlib.Path(ROOT)

SPEC = importlib.util.spec_from_file_location("make_corpus", ROOT / "test/fuzz/make_corpus.py")
make_corpus = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(make_corpus)


def _headers(directory):
    out = {}
    for path in directory.iterdir():
        first, _, source = path.read_text().partition("\n")
        assert first.startswith("# kda-fuzz: "), path.name
        words = first[len("# kda-fuzz: "):].split(" ")
        assert len(words) % 2 == 0 and all(w for w in words), first
        options = list(zip(words[::2], words[1::2]))
        assert {flag for flag, _ in options} <= set(make_corpus.FLAGS), first
        out[path.name] = (dict(options), source)
    return out


def test_corpus_covers_kernels_and_lit_tests(tmp_path):
    assert make_corpus.main([str(tmp_path)]) == 0
    seeds = _headers(tmp_path)
    kernels = {(opts["--kernel"], opts.get("--target", "cpu")) for opts, _ in seeds.values()}
    for target in ("cpu", "gfx950", "gfx1250", "sm_90a"):
        assert ("kda_decode", target) in kernels
        assert ("kda_recurrent", target) in kernels
    # Every DSL lit file with a `kda-compile %s` RUN line gives at least one input.
    lit_files = {p.stem for p in (ROOT / "test").rglob("*.py")
                 if "RUN: kda-compile %s" in p.read_text()
                 and not {"python", "gpu", "fuzz"} & set(p.parts)}
    stems = {name.rsplit("-", 1)[0] for name in seeds}
    assert lit_files and lit_files <= stems
    # -D values and signatures come through whole.
    opts, source = seeds[next(n for n in seeds if n.startswith("kda_decode.gfx950"))]
    assert "kt.jit" in source and "*bf16:16" in opts["--signature"]


def test_options_of_a_run_line():
    argv = shlex.split("--kernel k --target=sm_90a --signature 'x=*f32, n=i32' -D B=4 "
                       "%{varlen} --emit asm -o - --num-warps 8 -D %{bad}")
    assert make_corpus.options_of(argv) == [
        "--kernel", "k", "--target", "sm_90a", "--signature", "x=*f32,n=i32", "-D", "B=4",
        "--num-warps", "8"]
