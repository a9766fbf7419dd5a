"""Writes the seed corpus of kda-fuzz (tools/kda-fuzz) into a directory.

One input per compile: the compiles of the shipped kernels the ops export for every target
(`kdatile.ops.export --checks`), and every `kda-compile %s` RUN line of the DSL lit tests
(test/**/*.py). Each input is the `# kda-fuzz:` header line naming the compile, then the DSL
source.

    python3 test/fuzz/make_corpus.py build-sanitize/fuzz-seeds
"""

from __future__ import annotations

import argparse
import hashlib
import pathlib
import shlex
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

# The kda-compile options kda-fuzz reads (each takes one value).
FLAGS = ("--target", "--kernel", "--signature", "--num-warps", "-D")


def header(options: list) -> str:
    return "# kda-fuzz: " + " ".join(options)


def options_of(argv: list) -> list:
    """kda-fuzz's options out of a kda-compile argv (others, empty values such as an empty
    signature, and lit substitutions dropped)."""
    out = []
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        name, eq, value = word.partition("=")
        if not (name in FLAGS and eq and name != "-D"):
            if word not in FLAGS or i == len(argv):
                continue
            name, value = word, argv[i]
            i += 1
        value = value.replace(" ", "")
        if value and not value.startswith("%"):
            out += [name, value]
    return out


def run_lines(text: str) -> list:
    """The commands of a lit file's RUN lines, continuations joined."""
    commands, current = [], ""
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("# RUN:"):
            continue
        part = line[len("# RUN:"):].strip()
        if part.endswith("\\"):
            current += part[:-1] + " "
            continue
        commands.append(current + part)
        current = ""
    return commands


def lit_seeds() -> list:
    seeds = []
    for path in sorted((ROOT / "test").rglob("*.py")):
        if {"python", "gpu", "fuzz", "unit"} & set(path.relative_to(ROOT / "test").parts):
            continue
        text = path.read_text()
        for command in run_lines(text):
            try:
                words = shlex.split(command.split("|")[0])
            except ValueError:
                continue
            if "kda-compile" not in words:
                continue
            at = words.index("kda-compile")
            if words[at + 1:at + 2] != ["%s"]:
                continue
            options = options_of(words[at + 2:])
            if "--kernel" in options:
                seeds.append((path.stem, header(options) + "\n" + text))
    return seeds


def kernel_seeds() -> list:
    from kdatile.ops import export

    seeds = []
    for job in export.jobs(["cpu", "gfx950", "gfx1250", "sm_90a"], checks=True):
        argv = export.job_command(job)
        source = pathlib.Path(job.spec.filename).read_text()
        seeds.append((f"{job.name}.{job.spec.target}",
                      header(options_of(argv[2:])) + "\n" + source))
    return seeds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="directory to write the inputs into (created)")
    args = ap.parse_args(argv)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    seeds = kernel_seeds() + lit_seeds()
    names = set()
    for stem, data in seeds:
        digest = hashlib.sha256(data.encode()).hexdigest()[:12]
        name = f"{stem}-{digest}"
        if name in names:
            continue
        names.add(name)
        (out / name).write_text(data)
    print(f"{len(names)} seed inputs in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
