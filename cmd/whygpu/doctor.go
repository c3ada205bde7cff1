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

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/experiments"
	"github.com/gpu-course/whygpu/pkg/gpumodel"
)

func init() {
	register("doctor", "print what is installed and, for each missing piece, the fix", doctor)
}

func doctor(args []string) error {
	opts, err := parseDoctorFlags(args)
	if err != nil {
		return err
	}
	root := experiments.Root()
	venv := filepath.Join(root, ".venv")
	problems := 0
	ok := func(what, detail string) { fmt.Printf("  ok    %-18s %s\n", what, detail) }
	bad := func(what, detail, fix string) {
		problems++
		fmt.Printf("  MISS  %-18s %s\n        fix: %s\n", what, detail, fix)
	}
	info := func(what, detail string) { fmt.Printf("  --    %-18s %s\n", what, detail) }
	const setup = "make setup   (runs scripts/setup.sh)"

	fmt.Println("whygpu doctor —", root)
	ok("go", runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH)

	// The module version comes from the binary's build info (gonb -V prints its own version.txt,
	// which lags the module tag).
	if bi, err := buildinfo.ReadFile(filepath.Join(venv, "bin", "gonb")); err == nil {
		ok("gonb", bi.Main.Path+" "+bi.Main.Version+" (built with "+bi.GoVersion+")")
		checkGonbPatches(filepath.Join(venv, "bin", "gonb"), ok, bad)
	} else {
		bad("gonb", "not built in .venv/bin", setup)
	}
	for _, t := range []string{"gopls", "goimports"} {
		if _, err := os.Stat(filepath.Join(venv, "bin", t)); err == nil {
			ok(t, filepath.Join(".venv/bin", t))
		} else {
			bad(t, "not built in .venv/bin", setup)
		}
	}
	if out, err := exec.Command(filepath.Join(venv, "bin", "jupyter"), "lab", "--version").Output(); err == nil {
		ok("jupyterlab", strings.TrimSpace(string(out)))
	} else {
		bad("jupyterlab", "not installed in .venv", setup)
	}

	spec := filepath.Join(venv, "share", "jupyter", "kernels", "whygpu", "kernel.json")
	if b, err := os.ReadFile(spec); err != nil {
		bad("kernel spec", "missing: "+spec, setup)
	} else {
		var k struct {
			Argv        []string `json:"argv"`
			DisplayName string   `json:"display_name"`
		}
		_ = json.Unmarshal(b, &k)
		if strings.Contains(strings.Join(k.Argv, " "), "--go_work="+root) {
			ok("kernel spec", fmt.Sprintf("%q (%s)", k.DisplayName, spec))
		} else {
			bad("kernel spec", "points at another checkout: "+strings.Join(k.Argv, " "), setup+" (the checkout moved)")
		}
	}

	if len(devices.PluginDirs()) == 0 {
		bad("PJRT plugin path", "PJRT_PLUGIN_LIBRARY_PATH is not set", "run through `make doctor`, or set PJRT_PLUGIN_LIBRARY_PATH="+filepath.Join(venv, "lib", "pjrt"))
	} else {
		ok("PJRT plugin path", strings.Join(devices.PluginDirs(), ":"))
	}
	for _, platform := range []string{"cpu", "cuda"} {
		path, found := devices.FindPlugin(platform)
		if !found {
			if platform == "cuda" && !devices.HasNVIDIAGPU() {
				info("cuda plugin", "not needed: no NVIDIA GPU here")
				continue
			}
			fix := setup
			if platform == "cuda" {
				fix = "scripts/setup.sh --cuda   (jax-cuda13-pjrt and NVIDIA cu13 wheels)"
			}
			bad(platform+" plugin", "pjrt_c_api_"+platform+"_plugin.so not found in PJRT_PLUGIN_LIBRARY_PATH", fix)
			continue
		}
		target, _ := filepath.EvalSymlinks(path)
		if platform == "cuda" && !devices.HasNVIDIAGPU() {
			info("cuda plugin", path+" (present, but no GPU here)")
			continue
		}
		p, err := pjrt.GetPlugin(platform)
		if err != nil {
			bad(platform+" plugin", fmt.Sprintf("%s fails to load: %v", target, err), setup)
			continue
		}
		major, minor := p.Version()
		ok(platform+" plugin", fmt.Sprintf("PJRT C API %d.%d — %s", major, minor, target))
	}

	if gpus := devices.GPUs(); len(gpus) > 0 {
		for _, g := range gpus {
			ok("gpu", fmt.Sprintf("%d: %s, %.0f GiB, driver %s", g.Index, g.Name, float64(g.MemoryBytes)/(1<<30), g.Driver))
		}
	} else if devices.HasNVIDIAGPU() {
		bad("gpu", "/dev/nvidia0 exists but NVML does not answer", "install the NVIDIA driver, or run the container with --gpus all")
	} else {
		info("gpu", noGPULine(experiments.RecordedDevices(), gpumodel.Default().GPU.Model))
	}
	if _, found := devices.FindPlugin("cuda"); found && devices.HasNVIDIAGPU() {
		if err := devices.GPUFailure(); err != nil {
			bad("xla:cuda", devices.GPUFailureNote(err, "recordings and the course's GPU model in every lesson"), "scripts/setup.sh --cuda, then check the driver (nvidia-smi)")
		} else {
			ok("xla:cuda", "opens")
		}
	}
	if v := os.Getenv("GOMLX_NO_AUTO_INSTALL"); v == "" {
		bad("auto-install", "GOMLX_NO_AUTO_INSTALL is not set: go-xla would try to download plugins", "run through make or the course kernel (both set it)")
	} else {
		ok("auto-install", "off (GOMLX_NO_AUTO_INSTALL="+v+")")
	}

	if opts.autocomplete {
		checkAutocomplete(root, venv, ok, info, bad)
	}

	if problems > 0 {
		return fmt.Errorf("%d problem(s) found; apply the fixes above", problems)
	}
	fmt.Println("everything the course needs is here")
	return nil
}

// noGPULine is doctor's "gpu" line on a machine without a GPU: what the learner's GPU side will be.
// Without any recording it is the course's GPU model everywhere; with recordings, those for the sizes
// that were recorded and the model for every other size.
func noGPULine(recorded []string, model string) string {
	if len(recorded) == 0 {
		return "none, and no GPU recording in lessons/reference: every GPU number in the lessons is the course's GPU model of an " +
			model + " (pkg/gpumodel), drawn as a band and labeled as a model, until someone records one (whygpu record on a GPU)"
	}
	return "none: lessons show the GPU recordings in lessons/reference (" + strings.Join(recorded, ", ") +
		") where they exist, labeled as recorded, and the course's GPU model of an " + model + " (a labeled band) for every size nobody recorded"
}
