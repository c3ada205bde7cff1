package hlo

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

func cpu(t *testing.T) *devices.Device {
	t.Helper()
	return devicetest.Open(t, devices.CPU)
}

// chain applies n elementwise operations, alternating ·1.01 and +0.5.
func chain(n int) func(x *graph.Node) *graph.Node {
	return func(x *graph.Node) *graph.Node {
		for i := range n {
			if i%2 == 0 {
				x = graph.MulScalar(x, 1.01)
			} else {
				x = graph.AddScalar(x, 0.5)
			}
		}
		return x
	}
}

// XLA fuses a chain of n elementwise ops into one kernel holding all n; the analytic expectation.
func TestInspectFusesAnElementwiseChain(t *testing.T) {
	dev := cpu(t)
	for _, n := range []int{1, 2, 8} {
		e, err := graph.NewExec(dev.Backend(), chain(n))
		if err != nil {
			t.Fatal(err)
		}
		x := tensors.FromValue(make([]float32, 1<<16))
		r, err := Inspect(e.WithName("chain"), x)
		if err != nil {
			t.Fatal(err)
		}
		if r.Kernels.Total != 1 || r.Kernels.FusedOps != n {
			t.Errorf("chain of %d: %s, want 1 kernel holding %d ops\n%s", n, r.Kernels, n, r.HLO)
		}
		if !strings.HasPrefix(r.Name, DumpPrefix+"chain_n") {
			t.Errorf("name %q lacks the dump prefix", r.Name)
		}
		// Memory: one f32 argument in, one out, nothing else.
		if r.Memory.Arguments != 4<<16 || r.Memory.Outputs != 4<<16 || r.Memory.Temporary != 0 {
			t.Errorf("chain of %d: memory %s, want 256 KiB in and out, no temporaries", n, r.Memory)
		}
		e.Finalize()
	}
	if ents, err := os.ReadDir(DumpDir()); err == nil && len(ents) > 0 {
		t.Errorf("dump files left behind in %s: %d", DumpDir(), len(ents))
	}
}

// Two matmuls: the intermediate h = x·w1 is neither argument nor output, so XLA plans it as a
// temporary of exactly its size, and launches two dot kernels.
func TestMemoryOfCountsTemporaries(t *testing.T) {
	dev := cpu(t)
	e, err := graph.NewExec(dev.Backend(), func(x, w1, w2 *graph.Node) *graph.Node {
		return graph.MatMul(graph.Tanh(graph.MatMul(x, w1)), w2)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Finalize()
	sq := shapes.Make(dtypes.Float32, 64, 64)
	x, w1, w2 := tensors.FromShape(sq), tensors.FromShape(sq), tensors.FromShape(sq)
	r, err := Inspect(e.WithName("two_matmuls"), x, w1, w2)
	if err != nil {
		t.Fatal(err)
	}
	const mat = 64 * 64 * 4
	if r.Memory.Arguments != 3*mat || r.Memory.Outputs != mat {
		t.Errorf("memory %s, want 3 × 16 KiB in and 16 KiB out", r.Memory)
	}
	if r.Memory.Temporary < mat {
		t.Errorf("temporaries %d B, want at least the 16 KiB intermediate", r.Memory.Temporary)
	}
	if r.Kernels.ByOpcode["dot"]+r.Kernels.ByOpcode["custom-call"]+r.Kernels.Fusions < 2 {
		t.Errorf("kernels %s: want at least two (one per matmul)\n%s", r.Kernels, r.HLO)
	}
	if r.Memory.Total() != r.Memory.Arguments+r.Memory.Outputs-r.Memory.Aliases+r.Memory.Temporary+r.Memory.GeneratedCode {
		t.Error("Total is not the sum of its parts")
	}
}

func TestOfWithoutDumpNameHasMemoryOnly(t *testing.T) {
	dev := cpu(t)
	e, err := graph.NewExec(dev.Backend(), chain(3))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Finalize()
	_, g, err := e.WithName("plain").CallWithGraphOnDevice(0, tensors.FromValue([]float32{1, 2, 3}))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Of(g)
	if err != nil {
		t.Fatal(err)
	}
	if r.HLO != "" || r.Memory.Arguments != 12 {
		t.Errorf("report %s: want no HLO and 12 B of arguments", r)
	}
	if !strings.Contains(r.String(), "HLO not dumped") {
		t.Errorf("String() = %q", r.String())
	}
}

func TestGoBackendIsNotXLA(t *testing.T) {
	dev := devicetest.Open(t, devices.Go)
	e, err := graph.NewExec(dev.Backend(), chain(2))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Finalize()
	if _, err := Inspect(e, tensors.FromValue([]float32{1})); !errors.Is(err, ErrNotXLA) {
		t.Errorf("Inspect on the Go backend: err = %v, want ErrNotXLA", err)
	}
	if _, err := MemoryOf(nil); err == nil {
		t.Error("MemoryOf(nil): want an error")
	}
}

func TestDumpNameIsUniqueAndSafe(t *testing.T) {
	a, b := DumpName("mlp step#1"), DumpName("mlp step#1")
	if a == b || !strings.HasPrefix(a, DumpPrefix+"mlp_step_1_n") || strings.ContainsAny(a, " #") {
		t.Errorf("DumpName: %q, %q", a, b)
	}
	if !strings.Contains(os.Getenv("XLA_FLAGS"), "--xla_dump_hlo_module_re=^"+DumpPrefix) {
		t.Errorf("XLA_FLAGS = %q lacks the module filter", os.Getenv("XLA_FLAGS"))
	}
}

// The dump flags are this process's: a child (JAX, a kernel) gets the environment as it was.
func TestPeerEnvHasNotTheDumpFlags(t *testing.T) {
	if hadFlags && dumpToFlag.MatchString(originalFlags) {
		t.Skip("XLA_FLAGS chose a dump directory before the test started") // nothing was added
	}
	if !strings.Contains(os.Getenv("XLA_FLAGS"), "--xla_dump_to=") || !strings.Contains(AddedFlags(), "--xla_dump_hlo_module_re=^"+DumpPrefix) {
		t.Fatalf("the package's flags are not set here: XLA_FLAGS=%q, added %q", os.Getenv("XLA_FLAGS"), AddedFlags())
	}
	for _, kv := range PeerEnv() {
		if strings.HasPrefix(kv, "XLA_FLAGS=") && (strings.Contains(kv, "whygpu-xla-") || kv != "XLA_FLAGS="+originalFlags) {
			t.Errorf("peer environment has %q, want XLA_FLAGS as started (%q, set %v)", kv, originalFlags, hadFlags)
		}
	}
}
