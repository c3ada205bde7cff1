package precision

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// The section's sizes: the defaults pass, and each refusal says why.
func TestUnitsAndServingValidate(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want string // "" for accepted
	}{
		{"units default", Units{N: 1024}.Validate(), ""},
		{"units too small", Units{N: 8}.Validate(), "16…2048"},
		{"units too large", Units{N: 4096}.Validate(), "16…2048"},
		{"serving default", Serving{Width: 2048, Batches: []int{1, 16, 64}}.Validate(), ""},
		{"serving narrow", Serving{Width: 4, Batches: []int{1}}.Validate(), "width 4"},
		{"serving no batch", Serving{Width: 64}.Validate(), "batch sizes"},
		{"serving too many", Serving{Width: 64, Batches: []int{1, 2, 3, 4, 5}}.Validate(), "batch sizes"},
		{"serving batch 0", Serving{Width: 64, Batches: []int{0}}.Validate(), "batch 0"},
		{"serving batch large", Serving{Width: 64, Batches: []int{1024}}.Validate(), "batch 1024"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			switch {
			case tc.want == "" && tc.err != nil:
				t.Fatalf("refused: %v", tc.err)
			case tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want)):
				t.Fatalf("error %v, want one saying %q", tc.err, tc.want)
			}
		})
	}
}

// The flag table lists every flag with this CPU's answer, and the modeled peaks follow the model:
// vector bf16 at 2× float32, AMX bf16 from the per-cycle assumption, AMX int8 at twice that.
func TestMatrixFlags(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir()) // no measured ceiling to raise the model to (measure.CPUModel)
	text := MatrixFlagTable().String()
	for _, m := range MatrixFlags {
		if !strings.Contains(text, m.Flag) {
			t.Errorf("flag %s missing from the table:\n%s", m.Flag, text)
		}
	}
	f := devices.CPUFacts{Cores: 2, MHz: 1000, Lanes32: 16, FMAUnits: 2}
	f32 := devices.CPUModel(f).Peak("float32")
	want := map[string]float64{"avx512_bf16": 2 * f32, "avx512_vnni": 4 * f32, "amx_bf16": 2 * 1e9 * 1024, "amx_int8": 2 * 1e9 * 2048}
	for _, m := range MatrixFlags {
		w, ok := want[m.Flag]
		if !ok {
			continue
		}
		if got := m.Peak(f); got != w {
			t.Errorf("%s: modeled peak %g, want %g", m.Flag, got, w)
		}
	}
}

// The section's measurements run at small sizes, every product checked (int8 exactly), and their
// tables show a speed against float32 for each row.
func TestUnitsAndServingHere(t *testing.T) {
	cases := []struct {
		name  string
		run   func() (int, string, error)
		count int
	}{
		{"units", func() (int, string, error) {
			rs, err := UnitsHere(Units{N: 64})
			return len(rs), UnitsTable(rs).String(), err
		}, 3},
		{"serving", func() (int, string, error) {
			rs, err := ServingHere(Serving{Width: 64, Batches: []int{1, 16}})
			return len(rs), ServingTable(rs).String(), err
		}, 6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			devicetest.Open(t, devices.CPU)
			n, text, err := tc.run()
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.count || !strings.Contains(text, "int8") || !strings.Contains(text, "1.0") {
				t.Fatalf("%d results (want %d):\n%s", n, tc.count, text)
			}
		})
	}
	if _, err := PredictInt8.Answer(); err != nil {
		t.Errorf("the int8 prediction has no answer after the units cell: %v", err)
	}
}
