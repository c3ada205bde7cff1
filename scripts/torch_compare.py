"""PyTorch side of the GPU comparison: the same shapes the course measures with GoMLX on xla:cuda.

Run by scripts/gpu-record.sh on the lent GPU machine (its /opt/torch/.venv has torch):
    python scripts/torch_compare.py --out torch.json
Times after warm-up on the wall clock from the call to the device's completion (a synchronize after
each run), the clock GoMLX's side uses (go-xla's execute waits for the device), and reports medians;
the CUDA-event (device-only) time of the same runs is reported beside it ("device_median_s"), so
both clocks are there for both sides to compare like with like. Also computes each matmul once
against a float64 reference on the GPU (relative L2 error), as the Go side does. The MLP training step
(64→64→64→10, tanh, MSE, SGD: the bench's and scripts/bench_jax.py's) is timed on the wall clock with a
synchronize after every step, as GoMLX and JAX are ("waiting each step": launch overhead included).
"""
import argparse
import json
import statistics
import time

import torch


def bench(fn, warmup=3, reps=20):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times, device = [], []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        t0 = time.perf_counter()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(time.perf_counter() - t0)  # wall clock to completion, as GoMLX is timed
        device.append(start.elapsed_time(stop) / 1e3)  # CUDA events: the device's time alone
    med = statistics.median(times)
    mean = statistics.fmean(times)
    cv = statistics.stdev(times) / mean if len(times) > 1 else 0.0
    return {"median_s": med, "min_s": min(times), "cv": cv, "n": len(times),
            "clock": "wall, to completion (synchronized)", "device_median_s": statistics.median(device)}


def bench_steps(step, warmup=3, reps=20, sample_s=0.005):
    """Wall-clock seconds per step, each step synchronized; k steps per sample, k filling sample_s."""
    for _ in range(warmup):
        step()
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    step()
    torch.cuda.synchronize()
    k = max(1, int(sample_s / max(time.perf_counter() - t0, 1e-7)) + 1)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(k):
            step()
            torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) / k)
    med, mean = statistics.median(times), statistics.fmean(times)
    return {"median_s": med, "min_s": min(times), "cv": statistics.stdev(times) / mean, "n": reps,
            "runs_per_sample": k, "clock": "wall, to completion (synchronized)"}


def mlp_step(dev, batch, dims=(64, 64, 64, 10), lr=0.01):
    """One SGD step of the course's MLP: y = x·W + b per layer, tanh between, Σ(y−t)²/(2·batch)."""
    g = torch.Generator(device="cpu").manual_seed(1)
    params = []
    for a, b in zip(dims[:-1], dims[1:]):
        w = ((torch.rand(a, b, generator=g) * 2 - 1) / a ** 0.5).to(dev).requires_grad_()
        params.append((w, torch.zeros(b, device=dev, requires_grad=True)))
    x = (torch.rand(batch, dims[0], generator=g) * 2 - 1).to(dev)
    t = (torch.rand(batch, dims[-1], generator=g) * 2 - 1).to(dev)

    def step():
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i + 1 < len(params):
                h = torch.tanh(h)
        loss = ((h - t) ** 2).sum() / (2 * batch)
        loss.backward()
        with torch.no_grad():
            for w, b in params:
                w -= lr * w.grad
                b -= lr * b.grad
                w.grad = b.grad = None
        return loss

    return step


def rel_err(got, a, b):
    ref = a.double() @ b.double()
    return float(torch.linalg.norm(got.double() - ref) / torch.linalg.norm(ref))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=8192, help="square matmul size")
    ap.add_argument("--ln-rows", type=int, default=8192)
    ap.add_argument("--ln-cols", type=int, default=4096)
    ap.add_argument("--copy-bytes", type=int, default=1 << 30)
    ap.add_argument("--batches", default="1,256,4096", help="MLP step batches")
    args = ap.parse_args()
    dev = torch.device("cuda")
    out = {
        "torch": torch.__version__, "cuda": torch.version.cuda,
        "gpu": torch.cuda.get_device_name(0), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "results": [],
    }
    n = args.n
    flops = 2 * n ** 3
    for name, dtype, tf32 in (("matmul-bf16", torch.bfloat16, False),
                              ("matmul-f32-tf32", torch.float32, True),
                              ("matmul-f32", torch.float32, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.rand(n, n, device=dev, dtype=torch.float32).mul_(2).sub_(1).to(dtype)
        b = torch.rand(n, n, device=dev, dtype=torch.float32).mul_(2).sub_(1).to(dtype)
        r = bench(lambda: a @ b)
        r.update(name=name, shape=[n, n, n], dtype=str(dtype), flops=flops,
                 tflops=flops / r["median_s"] / 1e12, rel_err=rel_err(a @ b, a, b))
        out["results"].append(r)
        del a, b
    torch.backends.cuda.matmul.allow_tf32 = False

    rows, cols = args.ln_rows, args.ln_cols
    for dtype in (torch.float32, torch.bfloat16):
        x = torch.randn(rows, cols, device=dev, dtype=dtype)
        ln = torch.nn.LayerNorm(cols, device=dev, dtype=dtype)
        moved = 2 * x.numel() * x.element_size()  # read x, write y
        r = bench(lambda: ln(x))
        r.update(name=f"layernorm-{str(dtype).split('.')[-1]}", shape=[rows, cols], bytes=moved,
                 gbps=moved / r["median_s"] / 1e9)
        out["results"].append(r)
        del x

    src = torch.empty(args.copy_bytes, dtype=torch.uint8, device=dev)
    dst = torch.empty_like(src)
    r = bench(lambda: dst.copy_(src))
    moved = 2 * args.copy_bytes  # read + write
    r.update(name="copy-d2d", bytes=moved, gbps=moved / r["median_s"] / 1e9)
    out["results"].append(r)
    del src, dst

    for batch in (int(v) for v in args.batches.split(",") if v.strip()):
        r = bench_steps(mlp_step(dev, batch))
        r.update(name=f"mlp-step-b{batch}", batch=batch, steps_per_s=1 / r["median_s"],
                 waited="each step (torch.cuda.synchronize)")
        out["results"].append(r)

    with open(args.out, "w") as f:
        json.dump(out, f, indent=2)
    for r in out["results"]:
        rate = (f"{r['tflops']:.1f} TFLOP/s" if "tflops" in r else f"{r['gbps']:.0f} GB/s" if "gbps" in r
                else f"{r['steps_per_s']:.0f} steps/s")
        print(f"torch {r['name']:18s} median {r['median_s']*1e3:8.3f} ms  {rate}  (CV {100*r['cv']:.1f}%)")


if __name__ == "__main__":
    main()
