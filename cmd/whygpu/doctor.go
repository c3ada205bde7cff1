package main

import (
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/gomlx/go-xla/pjrt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
)

// checkup is what doctor found: one line per piece (ok, missing with its fix, or for information),
// and how many pieces are missing.
type checkup struct{ problems int }

func (c *checkup) ok(what, detail string) { fmt.Printf("  ok    %-18s %s\n", what, detail) }

func (c *checkup) bad(what, detail, fix string) {
	c.problems++
	fmt.Printf("  MISS  %-18s %s\n        fix: %s\n", what, detail, fix)
}

func (c *checkup) info(what, detail string) { fmt.Printf("  --    %-18s %s\n", what, detail) }

// setupFix is the fix for everything the set-up installs.
const setupFix = "make setup   (runs scripts/setup.sh)"

// doctor checks, in order, the tools in .venv, the course kernel's spec, the PJRT plugins, the GPU
// and the no-auto-install setting (and, with -autocomplete, the kernel's completions), printing a
// fix for each missing piece; it fails when one is missing.
func doctor(args []string) error {
	opts, err := parseDoctorFlags(args)
	if err != nil {
		return err
	}
	root := experiments.Root()
	venv := filepath.Join(root, ".venv")
	c := &checkup{}
	fmt.Println("whygpu doctor —", root)
	c.ok("go", runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)
	c.tools(venv)
	c.goXLA(root)
	c.kernelSpec(root, venv)
	c.plugins(venv)
	c.gpu()
	c.autoInstall()
	if opts.autocomplete {
		checkAutocomplete(root, venv, c.ok, c.info, c.bad)
	}
	if c.problems > 0 {
		return fmt.Errorf("%d problem(s) found; apply the fixes above", c.problems)
	}
	fmt.Println("everything the course needs is here")
	return nil
}

// tools checks what the set-up builds or installs in .venv: GoNB (and its patches), gopls,
// goimports, JupyterLab.
func (c *checkup) tools(venv string) {
	// The module version comes from the binary's build info (gonb -V prints its own version.txt,
	// which lags the module tag).
	if bi, err := buildinfo.ReadFile(filepath.Join(venv, "bin", "gonb")); err == nil {
		c.ok("gonb", bi.Main.Path+" "+bi.Main.Version+" (built with "+bi.GoVersion+")")
		checkGonbPatches(filepath.Join(venv, "bin", "gonb"), c.ok, c.bad)
	} else {
		c.bad("gonb", "not built in .venv/bin", setupFix)
	}
	for _, t := range []string{"gopls", "goimports"} {
		if _, err := os.Stat(filepath.Join(venv, "bin", t)); err == nil {
			c.ok(t, filepath.Join(".venv/bin", t))
		} else {
			c.bad(t, "not built in .venv/bin", setupFix)
		}
	}
	if out, err := exec.Command(filepath.Join(venv, "bin", "jupyter"), "lab", "--version").Output(); err == nil {
		c.ok("jupyterlab", strings.TrimSpace(string(out)))
	} else {
		c.bad("jupyterlab", "not installed in .venv", setupFix)
	}
}

// goXLA checks the set-up's go-xla without its plugin installer (kernels/go-xla/no-installer.patch):
// the checkout's go.work replaces the module with it, and the copy carries the patch.
func (c *checkup) goXLA(root string) {
	b, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		c.bad("go-xla", "no go.work in the checkout: tests and cells link go-xla's plugin installer (net/http, crypto/tls)", setupFix)
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 5 && f[0] == "replace" && f[1] == "github.com/gomlx/go-xla" && f[3] == "=>" {
			if _, err := os.Stat(filepath.Join(f[4], ".whygpu-patched")); err != nil {
				c.bad("go-xla", "go.work replaces it with "+f[4]+", which is not the set-up's patched copy", setupFix)
				return
			}
			c.ok("go-xla", f[2]+" without its plugin installer ("+f[4]+", kernels/go-xla/no-installer.patch)")
			return
		}
	}
	c.bad("go-xla", "go.work does not replace github.com/gomlx/go-xla", setupFix)
}

// kernelSpec checks the course kernel's spec exists and points GoNB at this checkout.
func (c *checkup) kernelSpec(root, venv string) {
	spec := filepath.Join(venv, "share", "jupyter", "kernels", "whygpu", "kernel.json")
	b, err := os.ReadFile(spec)
	if err != nil {
		c.bad("kernel spec", "missing: "+spec, setupFix)
		return
	}
	var k struct {
		Argv        []string `json:"argv"`
		DisplayName string   `json:"display_name"`
	}
	_ = json.Unmarshal(b, &k)
	if strings.Contains(strings.Join(k.Argv, " "), "--go_work="+root) {
		c.ok("kernel spec", fmt.Sprintf("%q (%s)", k.DisplayName, spec))
	} else {
		c.bad("kernel spec", "points at another checkout: "+strings.Join(k.Argv, " "), setupFix+" (the checkout moved)")
	}
}

// plugins checks PJRT_PLUGIN_LIBRARY_PATH and that each plugin this machine needs is there and
// loads (the CUDA one only where there is an NVIDIA GPU).
func (c *checkup) plugins(venv string) {
	if len(devices.PluginDirs()) == 0 {
		c.bad("PJRT plugin path", "PJRT_PLUGIN_LIBRARY_PATH is not set", "run through `make doctor`, or set PJRT_PLUGIN_LIBRARY_PATH="+filepath.Join(venv, "lib", "pjrt"))
	} else {
		c.ok("PJRT plugin path", strings.Join(devices.PluginDirs(), ":"))
	}
	for _, platform := range []string{"cpu", "cuda"} {
		c.plugin(platform)
	}
}

// plugin checks one platform's PJRT plugin: found, needed here, and loading (its PJRT C API version).
func (c *checkup) plugin(platform string) {
	path, found := devices.FindPlugin(platform)
	if !found {
		if platform == "cuda" && !devices.HasNVIDIAGPU() {
			c.info("cuda plugin", "not needed: no NVIDIA GPU here")
			return
		}
		fix := setupFix
		if platform == "cuda" {
			fix = "scripts/setup.sh --cuda   (jax-cuda13-pjrt and NVIDIA cu13 wheels)"
		}
		c.bad(platform+" plugin", "pjrt_c_api_"+platform+"_plugin.so not found in PJRT_PLUGIN_LIBRARY_PATH", fix)
		return
	}
	target, _ := filepath.EvalSymlinks(path)
	if platform == "cuda" && !devices.HasNVIDIAGPU() {
		c.info("cuda plugin", path+" (present, but no GPU here)")
		return
	}
	p, err := pjrt.GetPlugin(platform)
	if err != nil {
		c.bad(platform+" plugin", fmt.Sprintf("%s fails to load: %v", target, err), setupFix)
		return
	}
	major, minor := p.Version()
	c.ok(platform+" plugin", fmt.Sprintf("PJRT C API %d.%d — %s", major, minor, target))
}

// gpu lists the GPUs NVML sees and whether xla:cuda opens on them; without a GPU, what the
// lessons show instead (noGPULine).
func (c *checkup) gpu() {
	if gpus := devices.GPUs(); len(gpus) > 0 {
		for _, g := range gpus {
			c.ok("gpu", fmt.Sprintf("%d: %s, %.0f GiB, driver %s", g.Index, g.Name, float64(g.MemoryBytes)/(1<<30), g.Driver))
		}
	} else if devices.HasNVIDIAGPU() {
		c.bad("gpu", "/dev/nvidia0 exists but NVML does not answer", "install the NVIDIA driver, or run the container with --gpus all")
	} else {
		c.info("gpu", noGPULine(experiments.RecordedDevices(), gpumodel.Default().GPU.Model))
	}
	if _, found := devices.FindPlugin("cuda"); found && devices.HasNVIDIAGPU() {
		if err := devices.GPUFailure(); err != nil {
			c.bad("xla:cuda", devices.GPUFailureNote(err, "recordings and the course's GPU model in every lesson"), "scripts/setup.sh --cuda, then check the driver (nvidia-smi)")
		} else {
			c.ok("xla:cuda", "opens")
		}
	}
}

// autoInstall checks GOMLX_NO_AUTO_INSTALL is set, so go-xla never downloads a plugin.
func (c *checkup) autoInstall() {
	if v := os.Getenv("GOMLX_NO_AUTO_INSTALL"); v == "" {
		c.bad("auto-install", "GOMLX_NO_AUTO_INSTALL is not set: go-xla would try to download plugins", "run through make or the course kernel (both set it)")
	} else {
		c.ok("auto-install", "off (GOMLX_NO_AUTO_INSTALL="+v+")")
	}
}

// noGPULine is doctor's "gpu" line on a machine without a GPU: what the learner's GPU side will be.
// Without any recording it is the course's GPU model everywhere; with recordings, those for the sizes
// that were recorded and the model for every other size.
func noGPULine(recorded []string, model string) string {
	if len(recorded) == 0 {
		return "none, and no GPU recording in lessons/reference: every GPU number in the lessons is the course's GPU model of an " +
			model + " (pkg/model/gpumodel), drawn as a band and labeled as a model, until someone records one (whygpu record on a GPU)"
	}
	return "none: lessons show the GPU recordings in lessons/reference (" + strings.Join(recorded, ", ") +
		") where they exist, labeled as recorded, and the course's GPU model of an " + model + " (a labeled band) for every size nobody recorded"
}
