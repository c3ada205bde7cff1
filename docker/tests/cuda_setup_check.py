"""`scripts/setup.sh --cuda` (what the CUDA image runs) in a scratch copy of the checkout. It downloads about
2.1 GB of NVIDIA wheels, so `make test` does not collect it (the file name does not start with `test_`):
`make test-cuda-setup` runs it, on any x86_64 Linux machine, GPU or not.

Checks: the plugin and NVIDIA's libraries are linked where go-xla v0.4.0 and the plugin's RPATH look
(lib/pjrt/pjrt_c_api_cuda_plugin.so, lib/nvidia/{cu13,cudnn,nccl}, plus bin/ptxas and nvvm/libdevice for
--xla_gpu_cuda_data_dir), the wheels' requirements are consistent, go-xla loads the plugin and reads its
PJRT C API version, and a client opens on a GPU (without one the plugin must say there is no GPU, not
reject go-xla's options).
"""
import os
import subprocess

from _classroom import BUILD, context_files, copy_files

PROBE = """package main

import (
	"fmt"
	"os"

	"github.com/gomlx/go-xla/pjrt"
)

func main() {
	p, err := pjrt.GetPlugin(os.Args[1])
	if err != nil {
		fmt.Println("load error:", err)
		os.Exit(1)
	}
	major, minor := p.Version()
	fmt.Printf("PJRT C API %d.%d\\n", major, minor)
	if _, err := p.NewClient(nil); err != nil {
		fmt.Println("client error:", err)
		os.Exit(3)
	}
	fmt.Println("client ok")
}
"""


def test_setup_cuda(tmp_path):
    root = BUILD / "cuda" / "whygpu"
    if root.exists():
        subprocess.run(["rm", "-rf", str(root / "cmd" / "probecuda")], check=True)
    copy_files(context_files(), root)
    env = dict(os.environ, WHYGPU_CUDA="1")
    out = subprocess.run(["scripts/setup.sh", "--cuda", "--no-warm"], cwd=root, env=env, capture_output=True,
                         text=True, timeout=3000)
    assert out.returncode == 0, out.stdout + out.stderr
    venv = root / ".venv"
    plugin = venv / "lib" / "pjrt" / "pjrt_c_api_cuda_plugin.so"
    assert plugin.resolve().name == "xla_cuda_plugin.so"
    nv = venv / "lib" / "nvidia"
    for rel in ["cu13/lib/libcudart.so.13", "cu13/lib/libcublas.so.13", "cudnn/lib/libcudnn.so.9",
                "nccl/lib/libnccl.so.2", "bin/ptxas", "nvvm/libdevice/libdevice.10.bc"]:
        assert (nv / rel).exists(), rel
    check = subprocess.run([str(venv / "bin" / "pip"), "check"], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout
    # the second run is a no-op
    again = subprocess.run(["scripts/setup.sh", "--cuda", "--no-warm"], cwd=root, env=env, capture_output=True,
                           text=True, timeout=120)
    assert "nothing to do" in again.stdout

    probe = root / "cmd" / "probecuda"
    probe.mkdir(parents=True, exist_ok=True)
    (probe / "main.go").write_text(PROBE)
    build = subprocess.run(["go", "build", "-o", str(tmp_path / "probecuda"), "./cmd/probecuda"], cwd=root,
                           capture_output=True, text=True, timeout=600,
                           env=dict(os.environ, GOTOOLCHAIN="local", GOFLAGS="-buildvcs=false",
                                    CGO_CFLAGS="-O2 -g -Wno-deprecated-declarations"))
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(tmp_path / "probecuda"), str(plugin)], capture_output=True, text=True, timeout=300)
    text = run.stdout + run.stderr
    assert "PJRT C API 0." in text, text[-3000:]
    if os.path.exists("/dev/nvidia0"):
        assert run.returncode == 0 and "client ok" in text, text[-3000:]
    else:
        assert run.returncode == 3 and "No visible GPU devices" in text, text[-3000:]
