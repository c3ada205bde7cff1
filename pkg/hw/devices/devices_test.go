package devices

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
)

func TestOpenConfigs(t *testing.T) {
	for _, tc := range []struct {
		config  string
		wantErr string // "" when it must open
	}{
		{CPU, ""},
		{Go, ""},
		{"go,tf32=false", "takes no options"},
		{"tpu", "unknown device"},
		{"xla:cpu,nonsense=1", "unknown plugin options"},
		{CPUAsync, ""},
		{"xla:cpu,asynchronous=maybe", "not a boolean"},
		{CPUSplit, ""},
		{"xla:cpu,devices=0", "not a positive number"},
	} {
		t.Run(tc.config, func(t *testing.T) {
			d, err := Open(tc.config)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Open(%q) error = %v, want one containing %q", tc.config, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Config != tc.config || d.Backend() == nil || d.Kind != KindCPU || d.Cores <= 0 {
				t.Errorf("Open(%q) = %+v", tc.config, d)
			}
			if d.TF32 {
				t.Errorf("%s reports TF32 on a CPU", tc.config)
			}
			// One device by default (a pool thread per core); four when split for lesson 10.
			want := map[string]int{CPU: 1, CPUAsync: 1, CPUSplit: 4}
			if n, ok := want[tc.config]; ok && d.Backend().NumDevices() != n {
				t.Errorf("%s has %d devices, want %d", tc.config, d.Backend().NumDevices(), n)
			}
			if again, _ := Open(tc.config); again != d {
				t.Error("a second Open did not return the same Device")
			}
		})
	}
}

func TestOpenCUDAWithoutGPUIsAnError(t *testing.T) {
	if HasNVIDIAGPU() {
		t.Skip("this machine has a GPU")
	}
	for _, c := range []string{CUDA, CUDANoTF32} {
		if _, err := Open(c); err == nil {
			t.Errorf("Open(%q) without a GPU succeeded", c)
		}
	}
}

func TestCPUModel(t *testing.T) {
	for _, tc := range []struct {
		name           string
		f              CPUFacts
		f32, f64, bf16 float64
	}{
		// The source text's illustrative socket: 64 cores × 2.5 GHz × 16 lanes × 2 FMA × 2 ≈ 10.2 TFLOP/s.
		{"avx512 socket", CPUFacts{Cores: 64, MHz: 2500, Lanes32: 16, FMAUnits: 2}, 10.24e12, 5.12e12, 10.24e12},
		{"avx2 laptop with bf16", CPUFacts{Cores: 2, MHz: 3000, Lanes32: 8, FMAUnits: 2, BF16: true}, 192e9, 96e9, 384e9},
		// AMX: about 1024 bf16 FLOPs per cycle per core, not 2× the f32 lanes.
		{"amx server", CPUFacts{Cores: 2, MHz: 3000, Lanes32: 16, FMAUnits: 2, BF16: true, AMX: true}, 384e9, 192e9, 2 * 3e9 * 1024},
	} {
		c := CPUModel(tc.f)
		if c.Peak("float32") != tc.f32 || c.Peak("float64") != tc.f64 || c.Peak("bfloat16") != tc.bf16 {
			t.Errorf("%s: %+v", tc.name, c.PeakFLOPS)
		}
		if c.Ridge("float32") != 0 {
			t.Errorf("%s: a CPU model has no bandwidth, so no ridge", tc.name)
		}
	}
}

func TestDeviceString(t *testing.T) {
	for _, tc := range []struct {
		d    Device
		want string
	}{
		{Device{Name: CPU, Model: "X (2 cores)"}, "xla:cpu: X (2 cores)"},
		{Device{Name: CUDA, TF32: true, Model: "NVIDIA H200 (139 GiB)"}, "xla:cuda: NVIDIA H200 (139 GiB)"},
		{Device{Name: CUDA, Model: "NVIDIA H200 (139 GiB)"}, "xla:cuda (TF32 off): NVIDIA H200 (139 GiB)"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func TestUsageNeverFails(t *testing.T) {
	u := ReadGPUUsage() // nil without a GPU or NVML; never a panic
	if len(GPUs()) == 0 && len(u) != 0 {
		t.Errorf("GPU usage without a GPU: %+v", u)
	}
	d, err := Open(CPU)
	if err != nil {
		t.Fatal(err)
	}
	if d.AvailableMemory() == 0 || HostAvailableMemory() == 0 {
		t.Error("available host memory unknown")
	}
}

// A GPU that is here but gives no live lane is an error that says why; no GPU is no failure.
func TestGPUFailure(t *testing.T) {
	cuda := func(available bool) []Status {
		return []Status{{Name: CPU, Available: true}, {Name: CUDA, Available: available, Detail: "an NVIDIA GPU is present but pjrt_c_api_cuda_plugin.so not found", Fix: "scripts/setup.sh --cuda"}}
	}
	broken := errors.New("cuInit failed: CUDA_ERROR_NO_DEVICE")
	tests := []struct {
		name   string
		hasGPU bool
		probe  []Status
		open   error
		want   string // "" for no failure
	}{
		{"no GPU", false, cuda(false), broken, ""},
		{"GPU opens", true, cuda(true), nil, ""},
		{"GPU fails to open", true, cuda(true), broken, "CUDA_ERROR_NO_DEVICE"},
		{"GPU without its plugin", true, cuda(false), nil, "scripts/setup.sh --cuda"},
	}
	for _, tc := range tests {
		err := gpuFailure(tc.hasGPU, tc.probe, func() error { return tc.open })
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		note := GPUFailureNote(err, "the model")
		if (note == "") != (tc.want == "") || (note != "" && !strings.HasPrefix(note, "GPU found but it failed to open: ")) || (note != "" && !strings.HasSuffix(note, "— showing the model")) {
			t.Errorf("%s: note %q", tc.name, note)
		}
	}
	undo := SimulateGPUFailure(broken)
	if GPUFailure() != broken || KnownGPUFailure() != broken {
		t.Errorf("simulated failure not reported")
	}
	undo()
	if !HasNVIDIAGPU() && (GPUFailure() != nil || KnownGPUFailure() != nil) {
		t.Errorf("no GPU here, yet a GPU failure: %v", GPUFailure())
	}
}

// Two goroutines raising a shared device's model peak at once do not race (go test -race).
func TestRaisePeakConcurrently(t *testing.T) {
	d := &Device{Name: Go, Ceilings: datasheet.Ceilings{PeakFLOPS: map[string]float64{"float32": 1e9}}}
	done := make(chan bool)
	for i := range 2 {
		go func() { d.RaisePeak("float32", float64(2+i)*1e9); done <- true }()
	}
	<-done
	<-done
	if p := d.Ceilings.Peak("float32"); p < 2e9 {
		t.Errorf("peak %v after raising to 2e9 and 3e9", p)
	}
}
