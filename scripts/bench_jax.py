"""JAX and numpy side of `whygpu bench` (cmd/whygpu/bench.go), run in the bench venv (requirements-bench.txt).

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

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

EPS = 1e-5  # workloads.LayerNormEpsilon
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


def _layernorm(x, g, b):
    mean = jnp.mean(x, axis=1, keepdims=True)
    d = x - mean
    var = jnp.mean(d * d, axis=1, keepdims=True)
    return d * jax.lax.rsqrt(var + EPS) * g + b


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
        if kind == "matmul":
            n = p["n"]
            a = rng.random((n, n), dtype=np.float32) * 2 - 1
            b = rng.random((n, n), dtype=np.float32) * 2 - 1
            if impl == "numpy":
                self.call = lambda: a @ b
            else:
                ja, jb = jnp.asarray(a), jnp.asarray(b)
                self.launch = lambda: _matmul(ja, jb)
        elif kind == "layernorm":
            r, c = p["rows"], p["cols"]
            x = rng.random((r, c), dtype=np.float32) * 2 - 1
            g = rng.random((1, c), dtype=np.float32) * 2 - 1
            b = rng.random((1, c), dtype=np.float32) * 2 - 1
            if impl == "numpy":
                self.call = lambda: _np_layernorm(x, g, b)
            else:
                jx, jg, jbb = jnp.asarray(x), jnp.asarray(g), jnp.asarray(b)
                self.launch = lambda: _layernorm_jit(jx, jg, jbb)
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


def main():
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
            sample_s, min_time, reps = req["sample_s"], req["min_time_s"], req["reps"]
            t0 = time.perf_counter()
            c.call()
            k = max(1, math.ceil(sample_s / max(time.perf_counter() - t0, 1e-7)))
            samples, total = [], 0.0
            while len(samples) < reps or (total < min_time and len(samples) < 100000):
                s = c.sample(k)
                samples.append(int(s * 1e9))
                total += s * k
            print(json.dumps({"samples_ns": samples, "runs_per_sample": k, "compile_s": c.compile_s}), flush=True)
        except Exception as e:  # an answer, never a dead worker
            print(json.dumps({"error": f"{type(e).__name__}: {e}"}), flush=True)


if __name__ == "__main__":
    main()
