"""PyTorch side of the GPU comparison: the same shapes the course measures with GoMLX on xla:cuda.

Run by scripts/gpu-record.sh on the lent GPU machine (its /opt/torch/.venv has torch):
    python scripts/torch_compare.py --out torch.json
Times after warm-up with CUDA events (the stop event is recorded after the work and synchronized,
so the time is the device's, not the launch's) and reports medians. Also computes each matmul once
against a float64 reference on the GPU (relative L2 error), as the Go side does.
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
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3)
    med = statistics.median(times)
    mean = statistics.fmean(times)
    cv = statistics.stdev(times) / mean if len(times) > 1 else 0.0
    return {"median_s": med, "min_s": min(times), "cv": cv, "n": len(times)}


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

    with open(args.out, "w") as f:
        json.dump(out, f, indent=2)
    for r in out["results"]:
        rate = f"{r['tflops']:.1f} TFLOP/s" if "tflops" in r else f"{r['gbps']:.0f} GB/s"
        print(f"torch {r['name']:18s} median {r['median_s']*1e3:8.3f} ms  {rate}  (CV {100*r['cv']:.1f}%)")


if __name__ == "__main__":
    main()
