"""JAX and numpy side of `whygpu bench` (cmd/whygpu/bench.go) and JAX side of `whygpu compare`.

Two modes, one timing loop (`measure`):
  worker (default; `whygpu bench` starts it in the bench venv, requirements-bench.txt, on the CPU)
  --compare OUT.json: the JAX peer of scripts/torch_compare.py on whatever device JAX finds (the GPU on
      the lent machine: scripts/gpu-record.sh runs it with JAX_PLATFORMS=cuda; the CPU in its dry run);
      writes the same report shape as torch_compare.py, which `whygpu compare -jax` reads.

A long-lived worker: it reads one JSON request per line on stdin, times it and answers one JSON line on
stdout, so the Go side can interleave GoMLX and JAX blocks of the same point under the same load. Every
request names an implementation ("jax", "jax-pipelined" or "numpy"), a workload and a time budget; the
answer holds the per-call (per-step) times of each sample, in nanoseconds, for the Go side to summarize
the same way it summarizes its own samples.

Method, the same as measure.Time on the Go side: a sample is k consecutive calls, each waited for
(block_until_ready) before the next, with k sized so a sample lasts about `sample_s`; per-call time is
the sample over k. "jax-pipelined" does not wait between calls, only after the last of the sample: what
asynchronous dispatch buys. Compilation and warm-up happen on the first request for a shape (timed apart
and never reported as run time).
"""

import json
import math
import os
import sys
import time

if "--compare" not in sys.argv:  # the bench's worker is the CPU anchor; --compare runs where JAX finds
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # no 75%-of-GPU grab at start
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

EPS = 1e-5  # membound.LayerNormEpsilon
LR = 0.01  # the MLP's SGD learning rate (workloads.MLP default)


def _mlp_params(rng, dims):
    params = []
    for a, b in zip(dims[:-1], dims[1:]):
        w = (rng.random((a, b), dtype=np.float32) * 2 - 1) / np.float32(math.sqrt(a))
        params.append((jnp.asarray(w), jnp.zeros((b,), jnp.float32)))
    return params


def _mlp_loss(params, x, y):
    h = x
    for i, (w, b) in enumerate(params):
        h = h @ w + b
        if i + 1 < len(params):
            h = jnp.tanh(h)
    return jnp.sum((h - y) ** 2) / (2 * x.shape[0])


@jax.jit
def _matmul(a, b):
    return a @ b


# f32 matmul without TF32 (HIGHEST = full float32 passes); DEFAULT lets a GPU use TF32 tensor cores.
_matmul_highest = jax.jit(lambda a, b: jnp.matmul(a, b, precision=jax.lax.Precision.HIGHEST))
_neg = jax.jit(lambda x: -x)  # the copy: as membound.Copy, a negation XLA cannot elide


def _layernorm(x, g, b):
    dt = x.dtype
    x = x.astype(jnp.float32)  # statistics in float32 (a no-op for float32), as fused kernels do
    mean = jnp.mean(x, axis=1, keepdims=True)
    d = x - mean
    var = jnp.mean(d * d, axis=1, keepdims=True)
    return (d * jax.lax.rsqrt(var + EPS) * g + b).astype(dt)


_layernorm_jit = jax.jit(_layernorm)


def _np_layernorm(x, g, b):
    mean = x.mean(axis=1, keepdims=True)
    d = x - mean
    var = (d * d).mean(axis=1, keepdims=True)
    return d / np.sqrt(var + np.float32(EPS)) * g + b


class Case:
    """One prepared workload on one implementation: call() runs it once and returns when done."""

    def __init__(self, impl, kind, p):
        rng = np.random.default_rng(1)
        self.pipelined = impl == "jax-pipelined"
        dt = jnp.dtype(p.get("dtype", "float32"))  # compare mode: "bfloat16" too
        if kind == "matmul":
            n = p["n"]
            a = rng.random((n, n), dtype=np.float32) * 2 - 1
            b = rng.random((n, n), dtype=np.float32) * 2 - 1
            if impl == "numpy":
                self.call = lambda: a @ b
            else:
                ja, jb = jnp.asarray(a, dt), jnp.asarray(b, dt)
                mm = _matmul_highest if p.get("precision") == "highest" else _matmul
                self.launch = lambda: mm(ja, jb)
                self.check = lambda m: _rel_err(mm, ja, jb, m)
        elif kind == "layernorm":
            r, c = p["rows"], p["cols"]
            x = rng.random((r, c), dtype=np.float32) * 2 - 1
            g = rng.random((1, c), dtype=np.float32) * 2 - 1
            b = rng.random((1, c), dtype=np.float32) * 2 - 1
            if impl == "numpy":
                self.call = lambda: _np_layernorm(x, g, b)
            else:
                jx, jg, jbb = jnp.asarray(x, dt), jnp.asarray(g), jnp.asarray(b)
                self.launch = lambda: _layernorm_jit(jx, jg, jbb)
        elif kind == "copy":
            x = jnp.asarray(rng.random((p["n"],), dtype=np.float32), dt)
            self.launch = lambda: _neg(x)
        elif kind == "mlp":
            if impl == "numpy":
                raise ValueError("numpy has no autodiff: the MLP step is JAX only")
            batch, dims = p["batch"], [p["in"]] + [p["hidden"]] * p["depth"] + [p["out"]]
            x = jnp.asarray(rng.random((batch, dims[0]), dtype=np.float32) * 2 - 1)
            y = jnp.asarray(rng.random((batch, dims[-1]), dtype=np.float32) * 2 - 1)
            self.params = _mlp_params(rng, dims)

            def step(params, x, y):
                loss, grads = jax.value_and_grad(_mlp_loss)(params, x, y)
                return jax.tree_util.tree_map(lambda q, g: q - LR * g, params, grads), loss

            # Parameters donated: XLA writes the new ones into the old buffers (in place), as the GoMLX
            # trainer does with its donated state.
            step = jax.jit(step, donate_argnums=0)

            def launch():
                self.params, loss = step(self.params, x, y)
                return loss

            self.launch = launch
        else:
            raise ValueError(f"unknown workload {kind!r}")
        if impl != "numpy":
            self.call = lambda: jax.block_until_ready(self.launch())
        t0 = time.perf_counter()
        self.call()  # compile
        self.compile_s = time.perf_counter() - t0

    check = None  # matmuls: rel_err(m) checks an m×m corner against float64 on the host

    def sample(self, k):
        """Time k consecutive calls; returns seconds per call."""
        if self.pipelined:
            t0 = time.perf_counter()
            out = None
            for _ in range(k):
                out = self.launch()
            jax.block_until_ready(out)
            return (time.perf_counter() - t0) / k
        t0 = time.perf_counter()
        for _ in range(k):
            self.call()
        return (time.perf_counter() - t0) / k


def _rel_err(mm, a, b, m):
    """Relative L2 error of the product of a's and b's m×m corners, against float64 on the host."""
    a, b = a[:m, :m], b[:m, :m]
    got = np.asarray(mm(a, b), np.float64)
    ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref))


def measure(c, sample_s, min_time, reps):
    """Samples of c, in seconds per call: k calls each (k fills sample_s), at least reps of them and more
    until min_time of calls have run."""
    t0 = time.perf_counter()
    c.call()
    k = max(1, math.ceil(sample_s / max(time.perf_counter() - t0, 1e-7)))
    samples, total = [], 0.0
    while len(samples) < reps or (total < min_time and len(samples) < 100000):
        s = c.sample(k)
        samples.append(s)
        total += s * k
    return samples, k


def compare(argv):
    """--compare mode: the shapes of scripts/torch_compare.py, timed on JAX's default device."""
    import argparse
    import statistics

    ap = argparse.ArgumentParser(prog="bench_jax.py --compare")
    ap.add_argument("--compare", required=True, metavar="OUT.json")
    ap.add_argument("--n", type=int, default=8192, help="square matmul size")
    ap.add_argument("--ln-rows", type=int, default=8192)
    ap.add_argument("--ln-cols", type=int, default=4096)
    ap.add_argument("--copy-bytes", type=int, default=1 << 30)
    ap.add_argument("--batches", default="1,256,4096", help="MLP step batches (64→64→64→10, tanh, MSE, SGD)")
    ap.add_argument("--check-n", type=int, default=1024, help="matmul corner checked against float64 on the host")
    ap.add_argument("--sample-s", type=float, default=0.005, help="seconds of calls per sample")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args(argv)
    try:
        dev = jax.devices()[0]
    except Exception as e:  # e.g. JAX_PLATFORMS=cuda without a usable GPU: a clear note, no traceback
        sys.exit(f"bench_jax.py: JAX has no usable device (JAX_PLATFORMS={os.environ.get('JAX_PLATFORMS', '')!r}): "
                 f"{type(e).__name__}: {e}")
    import jaxlib

    out = {"jax": jax.__version__, "jaxlib": jaxlib.__version__,
           "platform": dev.platform, "gpu": getattr(dev, "device_kind", str(dev)),
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "results": []}
    n, rows, cols = args.n, args.ln_rows, args.ln_cols
    cases = [("matmul-bf16", "matmul", {"n": n, "dtype": "bfloat16"}),
             ("matmul-f32-tf32", "matmul", {"n": n, "dtype": "float32"}),
             ("matmul-f32", "matmul", {"n": n, "dtype": "float32", "precision": "highest"}),
             ("layernorm-float32", "layernorm", {"rows": rows, "cols": cols, "dtype": "float32"}),
             ("layernorm-bfloat16", "layernorm", {"rows": rows, "cols": cols, "dtype": "bfloat16"}),
             ("copy-d2d", "copy", {"n": args.copy_bytes // 4})]
    for b in (int(v) for v in args.batches.split(",") if v.strip()):
        cases.append((f"mlp-step-b{b}", "mlp", {"batch": b, "in": 64, "hidden": 64, "out": 10, "depth": 2}))
    for name, kind, p in cases:
        t0 = time.perf_counter()
        try:
            c = Case("jax", kind, p)
            for _ in range(3):
                c.call()
            times, k = measure(c, args.sample_s, 0.0, args.reps)
        except Exception as e:  # a note in the report, never a lost run
            out["results"].append({"name": name, "error": f"{type(e).__name__}: {e}"})
            print(f"jax {name:18s} FAILED: {type(e).__name__}: {e}", flush=True)
            continue
        med, mean = statistics.median(times), statistics.fmean(times)
        r = {"name": name, "median_s": med, "min_s": min(times), "n": len(times), "runs_per_sample": k,
             "cv": statistics.stdev(times) / mean if len(times) > 1 else 0.0, "compile_s": c.compile_s}
        if kind == "matmul":
            r.update(shape=[n, n, n], dtype=p["dtype"], flops=2 * n ** 3, tflops=2 * n ** 3 / med / 1e12,
                     rel_err=c.check(min(n, args.check_n)), precision=p.get("precision", "default"))
        elif kind == "layernorm":
            moved = 2 * rows * cols * jnp.dtype(p["dtype"]).itemsize  # read x, write y
            r.update(shape=[rows, cols], dtype=p["dtype"], bytes=moved, gbps=moved / med / 1e9)
        elif kind == "copy":
            moved = 2 * p["n"] * 4
            r.update(bytes=moved, gbps=moved / med / 1e9)
        else:
            r.update(batch=p["batch"], steps_per_s=1 / med, waited="each step (block_until_ready)")
        out["results"].append(r)
        rate = (f"{r['tflops']:.1f} TFLOP/s" if "tflops" in r else f"{r['gbps']:.0f} GB/s" if "gbps" in r
                else f"{r['steps_per_s']:.0f} steps/s")
        print(f"jax {name:18s} median {med*1e3:9.4f} ms  {rate}  (CV {100*r['cv']:.1f}%, "
              f"{time.perf_counter()-t0:.1f} s with compile)", flush=True)
        del c
    with open(args.compare, "w") as f:
        json.dump(out, f, indent=2)


def main():
    if "--compare" in sys.argv:
        return compare(sys.argv[1:])
    cases = {}
    print(json.dumps({"ready": True, "jax": jax.__version__, "numpy": np.__version__,
                      "devices": [str(d) for d in jax.devices()]}), flush=True)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            key = (req["impl"], req["kind"], json.dumps(req["params"], sort_keys=True))
            if key not in cases:
                cases[key] = Case(req["impl"], req["kind"], req["params"])
                for _ in range(req.get("warmup", 2)):
                    cases[key].call()
            c = cases[key]
            times, k = measure(c, req["sample_s"], req["min_time_s"], req["reps"])
            samples = [int(s * 1e9) for s in times]
            print(json.dumps({"samples_ns": samples, "runs_per_sample": k, "compile_s": c.compile_s}), flush=True)
        except Exception as e:  # an answer, never a dead worker
            print(json.dumps({"error": f"{type(e).__name__}: {e}"}), flush=True)


if __name__ == "__main__":
    main()
