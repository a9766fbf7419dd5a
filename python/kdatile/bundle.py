"""Ahead-of-time bundles: GPU kernels precompiled here, launched where there is no compiler.

On the build machine (libkda, LLVM; no GPU needed):

    kt.export_bundle("dist/kernels", [
        (vector_add, (x, y, out, n), {"BLOCK": 256}),
        (vector_add, (x, y, out, n), {"BLOCK": 1024, "num_warps": 8}),
    ])

writes DIR/index.json and one code object per specialization (cubin plus PTX fallback for
NVIDIA, HSACO for AMD). On the deployment machine (torch + driver, no libkda):

    KDATILE_BUNDLE=dist/kernels python3 app.py

and `vector_add[grid](cuda tensors..., BLOCK=256)` launches the precompiled code object through
the GPU runtime library (libkda_gpu_runtime.so in the bundle directory, or
$KDATILE_GPU_RUNTIME) on torch's current stream, after the usual argument checks.

Lookup key: kernel identity `<file basename>:<qualname>`, then the JIT's own in-memory key
(Specialization.key of `kernel.specialize(...)`: target, num_warps, dtypes, constexprs, int
and alignment hints) serialized as JSON. Each kernel entry records the sha256 of
the source the JIT compiles and of every DSL file it depends on (kda_dependencies, at export);
a launch re-hashes them, so an edited kernel never runs a stale code object.

`kdatile.bundle.describe(DIR)` lists a bundle.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile

from . import _lib, gpu
from .cache import compile_specialization, platform_of_target

INDEX = "index.json"
FORMAT = 1
DEFAULT_TARGET = "sm_90a"


class BundleError(RuntimeError):
    """A launch that the bundle(s) of $KDATILE_BUNDLE cannot serve."""


def bundle_dirs() -> list[str]:
    """The directories of $KDATILE_BUNDLE (separated by ':'), in lookup order."""
    return [d for d in os.environ.get("KDATILE_BUNDLE", "").split(os.pathsep) if d]


def active() -> bool:
    """Whether GPU launches come from bundles ($KDATILE_BUNDLE set) instead of the compiler."""
    return bool(bundle_dirs())


def kernel_identity(fn) -> str:
    """`<file basename>:<qualname>` of a JITFunction."""
    return f"{os.path.basename(fn.filename or '<kernel>')}:{fn.__qualname__}"


def spec_key(spec) -> str:
    """The bundle key of a Specialization: the JIT's in-memory key as compact JSON."""
    return json.dumps(spec.key, separators=(",", ":"))


def _sha256(data) -> str:
    if isinstance(data, str):
        data = data.encode()
    return hashlib.sha256(data).hexdigest()


def _source_hash(fn) -> str:
    """What the JIT sends to the compiler: the source snapshot and its line offset."""
    return _sha256(f"line_offset={fn.line_offset}\0{fn.source}")


def _kernel_dir(fn):
    return os.path.dirname(fn.filename) if fn.filename and os.path.isabs(fn.filename) else None


def _portable(fn, path: str) -> dict:
    """A dependency path that survives moving the tree: relative to the package or kernel."""
    path = os.path.abspath(path)
    if path.startswith(_lib.PACKAGE_DIR + os.sep):
        return {"base": "package", "path": os.path.relpath(path, _lib.PACKAGE_DIR)}
    kdir = _kernel_dir(fn)
    if kdir:
        return {"base": "kernel", "path": os.path.relpath(path, kdir)}
    return {"base": "absolute", "path": path}


def _resolve(fn, dep: dict):
    if dep["base"] == "package":
        return os.path.join(_lib.PACKAGE_DIR, dep["path"])
    if dep["base"] == "kernel":
        kdir = _kernel_dir(fn)
        return os.path.normpath(os.path.join(kdir, dep["path"])) if kdir else None
    return dep["path"]


def _dependencies(fn, request) -> list[dict]:
    """The DSL files the kernel reads besides its own source snapshot, with their hashes."""
    own = os.path.abspath(fn.filename) if fn.whole_file and fn.filename else None
    deps = []
    for path in sorted(set(_lib.dependencies(request))):
        if own and os.path.abspath(path) == own:
            continue  # the snapshot (source hash) is what gets compiled
        with open(path, "rb") as f:
            deps.append(dict(_portable(fn, path), sha256=_sha256(f.read())))
    return deps


def _combined_hash(source_hash: str, deps: list[dict]) -> str:
    return _sha256(json.dumps([source_hash, sorted((d["base"], d["path"], d["sha256"])
                                                   for d in deps)]))


def _unpack(launch):
    if isinstance(launch, dict):
        return launch["kernel"], tuple(launch.get("args", ())), dict(launch.get("kwargs", {}))
    if not isinstance(launch, (tuple, list)) or len(launch) not in (2, 3):
        raise TypeError("export_bundle: each launch is (kernel, args) or (kernel, args, kwargs), "
                        f"got {launch!r}")
    return launch[0], tuple(launch[1]), dict(launch[2]) if len(launch) == 3 else {}


def _read_index(out_dir: str) -> dict:
    path = os.path.join(out_dir, INDEX)
    if not os.path.isfile(path):
        return {"format": FORMAT, "kernels": {}}
    with open(path, encoding="utf-8") as f:
        index = json.load(f)
    if index.get("format") != FORMAT:
        raise BundleError(f"{path}: bundle format {index.get('format')!r}, expected {FORMAT}")
    return index


def _write_atomic(out_dir: str, name: str, data) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=out_dir)
    with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    os.replace(tmp, os.path.join(out_dir, name))


def export_bundle(out_dir, launches, *, target: str = DEFAULT_TARGET, assume_aligned: bool = True,
                  runtime=None) -> list[tuple[str, str]]:
    """Compiles the GPU specializations that `launches` select into the bundle `out_dir`.

    launches: (kernel, args) or (kernel, args, kwargs) tuples (or dicts with those keys), with
    arguments as for `kernel[grid](*args, **kwargs)`; NumPy arrays stand for GPU tensors of the
    same dtype, and `num_warps` in kwargs is the launch option unless the kernel has such a
    parameter. With assume_aligned (default) every pointer is keyed as 16-byte aligned, as
    torch's GPU allocations are. target: "sm_90a" (cubin, plus PTX the driver can compile if
    the cubin does not load), or an AMD target (HSACO). runtime: a GPU runtime library
    (libkda_gpu_runtime.so) to copy into the bundle. An existing index.json is extended; a
    kernel whose sources changed since its earlier export loses its old specializations.

    Returns the (kernel identity, specialization key) pairs exported. Needs the compiler.
    """
    out_dir = os.path.abspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    index = _read_index(out_dir)
    kernels = index["kernels"]
    platform = platform_of_target(target)
    emit = gpu.code_object_emit(target)
    hashes: dict = {}  # identity -> combined hash, for kernels exported by this call
    exported = []
    for launch in launches:
        fn, args, kwargs = _unpack(launch)
        if not callable(getattr(fn, "specialize", None)):
            raise TypeError(f"export_bundle: {fn!r} is not a @kt.jit kernel")
        if fn.target not in (None, target):
            raise ValueError(f"export_bundle: kernel '{fn.__name__}' is forced to target "
                             f"{fn.target!r}, not {target!r}")
        num_warps = kwargs.pop("num_warps", None)
        spec = fn.specialize(*args, target=target, num_warps=num_warps,
                             assume_aligned=assume_aligned, **kwargs)
        request = spec.request()
        ident = kernel_identity(fn)
        deps = _dependencies(fn, request)
        source_hash = _source_hash(fn)
        combined = _combined_hash(source_hash, deps)
        if hashes.setdefault(ident, combined) != combined:
            raise BundleError(f"export_bundle: two different kernels are both '{ident}' (same "
                              "file name and qualname); a bundle identifies kernels by those")
        entry = kernels.get(ident)
        if entry is None or entry.get("hash") != combined:
            entry = kernels[ident] = {"kernel": fn.__name__, "hash": combined,
                                      "source_sha256": source_hash, "dependencies": deps,
                                      "specializations": {}}
        else:
            # Same hashes: the union of the files any specialization may read.
            have = {(d["base"], d["path"]) for d in entry["dependencies"]}
            entry["dependencies"] += [d for d in deps if (d["base"], d["path"]) not in have]
        # The JIT's compile path (disk cache included), bypassing any bundle lookup.
        kernel = compile_specialization(spec, platform)
        skey = spec_key(spec)
        stem = f"{fn.__name__}-{_sha256(ident + chr(0) + skey)[:16]}"
        images = {kernel.image_kind: f"{stem}.{kernel.image_kind}"}
        _write_atomic(out_dir, images[kernel.image_kind], kernel.image)
        if emit == "cubin" and kernel.image_kind == "cubin":
            ptx = _lib.compile(dict(request, emit="ptx")).get("text", "")
            images["ptx"] = f"{stem}.ptx"
            _write_atomic(out_dir, images["ptx"], ptx.encode())
        entry["specializations"][skey] = {
            "kernel": fn.__name__, "target": target, "platform": platform,
            "num_warps": spec.num_warps,
            "wave_size": kernel.wave_size, "block": list(kernel.block),
            "shared_bytes": kernel.shared_bytes, "cluster_shape": list(kernel.cluster_shape),
            "early_launch": kernel.early_launch,
            "params": kernel.all_params,
            "signature": spec.signature, "constexprs": spec.constexprs,
            "images": images,
        }
        exported.append((ident, skey))
    index["compiler"] = _lib.version()
    if runtime is not None:
        shutil.copyfile(runtime, os.path.join(out_dir, _lib.GPU_RUNTIME_NAME))
    _write_atomic(out_dir, INDEX, json.dumps(index, indent=1, sort_keys=True))
    return exported


# -- lookup ---------------------------------------------------------------------------------

_indexes: dict = {}  # index.json path -> (mtime_ns, size, index)


def load_index(bundle_dir: str) -> dict:
    path = os.path.join(bundle_dir, INDEX)
    try:
        st = os.stat(path)
    except OSError:
        raise BundleError(f"kdatile: KDATILE_BUNDLE names {bundle_dir!r}, which has no {INDEX} "
                          "(export one with kt.export_bundle)") from None
    hit = _indexes.get(path)
    if hit is not None and hit[:2] == (st.st_mtime_ns, st.st_size):
        return hit[2]
    try:
        index = _read_index(bundle_dir)
    except (OSError, ValueError) as e:
        raise BundleError(f"kdatile: cannot read {path}: {e}") from None
    _indexes[path] = (st.st_mtime_ns, st.st_size, index)
    return index


def _mismatch(fn, entry: dict):
    """Why the kernel's sources differ from the export (None when they match)."""
    if _source_hash(fn) != entry["source_sha256"]:
        return f"its source {fn.filename} was edited since the export"
    for dep in entry["dependencies"]:
        path = _resolve(fn, dep)
        try:
            with open(path, "rb") as f:
                digest = _sha256(f.read())
        except (OSError, TypeError):
            return f"its DSL dependency {dep['path']} ({path}) cannot be read"
        if digest != dep["sha256"]:
            return f"its DSL dependency {path} was edited since the export"
    return None


def _describe(target, num_warps, signature, constexprs) -> str:
    ce = ", ".join(f"{k}={v!r}" for k, v in sorted(constexprs.items()))
    return f"target={target}, num_warps={num_warps}, signature '{signature}', constexprs {{{ce}}}"


class BundleKernel(gpu.GPUKernel):
    """A bundled code object; a cubin that fails to load falls back to the PTX beside it."""

    def __init__(self, *args, fallback=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fallback = fallback  # PTX bytes, or None

    def load(self, index: int) -> int:
        try:
            return super().load(index)
        except RuntimeError as e:
            if self.fallback is None:
                raise
            first = e
        self.image, self.image_kind, self.fallback = self.fallback, "ptx", None
        try:
            return super().load(index)
        except RuntimeError as e:
            raise RuntimeError(f"{first}; the PTX fallback failed too: {e}") from e


def _make_kernel(bundle_dir: str, spec: dict) -> BundleKernel:
    images = spec["images"]
    kind = next((k for k in ("cubin", "hsaco", "ptx") if k in images), None)
    if kind is None:
        raise BundleError(f"kdatile: bundle {bundle_dir}: no code object for '{spec['kernel']}'")

    def read(name):
        path = os.path.join(bundle_dir, name)
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError as e:
            raise BundleError(f"kdatile: bundle {bundle_dir}: cannot read {name}: {e}") from None

    fallback = read(images["ptx"]) if kind == "cubin" and "ptx" in images else None
    return BundleKernel(spec["kernel"], spec["platform"], spec["target"], read(images[kind]),
                        kind, spec["params"], spec["num_warps"], spec.get("shared_bytes", 0),
                        spec.get("wave_size"), spec.get("cluster_shape", (1, 1, 1)),
                        spec.get("early_launch", False), fallback=fallback)


def lookup(spec, platform: str) -> gpu.GPUKernel:
    """The bundled kernel of a Specialization; BundleError when no bundle holds it."""
    fn = spec.fn
    ident = kernel_identity(fn)
    skey = spec_key(spec)
    dirs = bundle_dirs()
    stale, others, matched = [], [], False
    for d in dirs:
        entry = load_index(d)["kernels"].get(ident)
        if entry is None:
            continue
        why = _mismatch(fn, entry)
        if why is not None:
            stale.append(f"{d}: {why}")
            continue
        matched = True
        found = entry["specializations"].get(skey)
        if found is not None:
            if found.get("platform", platform) != platform:
                raise BundleError(f"kdatile: bundle {d}: kernel '{fn.__name__}' was exported for "
                                  f"{found['platform']}, but the device is {platform}")
            return _make_kernel(d, found)
        others += [_describe(s["target"], s["num_warps"], s["signature"], s["constexprs"])
                   for s in entry["specializations"].values()]
    where = f"KDATILE_BUNDLE={os.pathsep.join(dirs)}"
    if stale and not matched:
        raise BundleError(
            f"kdatile: kernel '{fn.__name__}' ({ident}) does not match its bundled code: "
            f"{'; '.join(stale)}. Re-export the bundle (kt.export_bundle) on the build machine; "
            "a stale kernel is never launched")
    want = _describe(spec.target, spec.num_warps, spec.signature, spec.constexprs)
    if not matched:
        raise BundleError(f"kdatile: kernel '{fn.__name__}' ({ident}) is not in the bundle "
                          f"({where}); wanted specialization: {want}")
    listing = "; ".join(sorted(others)[:8]) + (" ..." if len(others) > 8 else "")
    raise BundleError(
        f"kdatile: specialization of kernel '{fn.__name__}' ({ident}) not in the bundle "
        f"({where}): {want}. The bundle has: {listing or 'none'}. Export this launch with "
        "kt.export_bundle on the build machine")


def describe(bundle_dir: str) -> str:
    """A listing of a bundle: its kernels and their specializations."""
    index = load_index(bundle_dir)
    lines = [f"{bundle_dir}: {index.get('compiler', '?')}"]
    for ident, entry in sorted(index["kernels"].items()):
        lines.append(f"  {ident} ({len(entry['specializations'])} specializations, "
                     f"{len(entry['dependencies'])} dependencies)")
        for s in entry["specializations"].values():
            what = _describe(s["target"], s["num_warps"], s["signature"], s["constexprs"])
            lines.append(f"    {what} -> {', '.join(sorted(s['images'].values()))}")
    return "\n".join(lines)
