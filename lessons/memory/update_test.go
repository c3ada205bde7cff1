package memory

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/internal/lessontest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/model/regime"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// The update's sizes: the default passes, each refusal says why, and its bytes are 28 per parameter.
func TestUpdateValidate(t *testing.T) {
	cases := []struct {
		u    Update
		want string // "" for accepted
	}{
		{Update{Width: 1024, Depth: 2}, ""},
		{Update{Width: 8, Depth: 2}, "width 8"},
		{Update{Width: 8192, Depth: 2}, "width 8192"},
		{Update{Width: 256, Depth: 0}, "depth 0"},
		{Update{Width: 256, Depth: 9}, "depth 9"},
	}
	for _, tc := range cases {
		err := tc.u.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v refused: %v", tc.u, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want one saying %q", tc.u, err, tc.want)
		}
		if tc.want == "" {
			w := tc.u.Part()
			if got := w.Bytes() / float64(w.MLP.NumParams()); got != AdamBytesPerParam {
				t.Errorf("%+v: %g bytes per parameter, want %d", tc.u, got, AdamBytesPerParam)
			}
		}
	}
}

// The update runs here, its prediction has an answer, and the two tables built on it carry the GPU
// model's label and assumptions wherever they show a modeled number.
func TestUpdateTables(t *testing.T) {
	devicetest.Open(t, devices.CPU)
	rs, err := UpdateHere(Update{Width: 128, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(UpdateTable(rs).String(), "28") {
		t.Errorf("update table without its bytes per parameter:\n%s", UpdateTable(rs))
	}
	if v, err := PredictUpdateRate.Answer(); err != nil || v <= 0 {
		t.Errorf("prediction answer %g, %v", v, err)
	}
	for name, f := range map[string]func() (interface{ String() string }, error){
		"scaled":  func() (interface{ String() string }, error) { return Scaled() },
		"offload": func() (interface{ String() string }, error) { return Offload() },
	} {
		tab, err := f()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := gpumodel.CheckLabeled(tab.String()); err != nil {
			t.Errorf("%s: %v\n%s", name, err, tab)
		}
		if !strings.Contains(tab.String(), "not a measurement") {
			t.Errorf("%s table shows no labeled model number:\n%s", name, tab)
		}
	}
	if _, err := ScaledTable(nil); err == nil {
		t.Error("a scaled table without a measured update")
	}
}

// TestReadUpdate: the update's reading follows its budget against the copy ceiling — bandwidth-bound
// only when the bytes explain the time by the course's rule, otherwise not bandwidth, with the
// disturbance that may be why; and the CPU column divides by the ceiling, an upper bound when the
// ceiling was measured disturbed.
func TestReadUpdate(t *testing.T) {
	const bytes = 88.2e6
	cases := []struct {
		name             string
		seconds, ceiling float64 // measured time, copy ceiling (B/s)
		upd, ceil        string  // disturbance of the update, of the ceiling
		want, notWant    []string
	}{
		{"the review's run: 0.7 GB/s against 20 GB/s, disturbed", 0.126, 20e9, "other programs used 175% of a core", "",
			[]string{"20 GB/s", regime.Overhead, "bandwidth should set this time, and here it did not", "disturbed (other programs used 175%", "rerun on a quiet machine"},
			[]string{regime.Memory}},
		{"quiet and slow: overhead", 0.126, 20e9, "", "",
			[]string{regime.Overhead, "memory traffic the 28-byte budget leaves out", "fixed costs hold the rest"}, []string{"disturbed", regime.Memory}},
		{"at the ceiling: bandwidth-bound", 0.0049, 20e9, "", "",
			[]string{regime.Memory, "the bytes explain"}, []string{"did not", "disturbed"}},
		{"ceiling measured disturbed (the run at load 20: 688 MB/s)", 0.0635, 0.688e9, "", "other programs used 167% of a core",
			[]string{"no verdict", "688 MB/s", "measured disturbed (other programs used 167%", "Rerun"}, []string{regime.Memory, regime.Overhead}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := regime.Budget{FLOPs: bytes / 2, Bytes: bytes, Measured: time.Duration(tc.seconds * 1e9),
				CeilingFLOPS: 1e11, CeilingBytesPerSec: tc.ceiling}.Classify()
			lessontest.Phrases(t, readUpdate(v, tc.ceiling, tc.upd, tc.ceil), tc.want, tc.notWant)
		})
	}
	// 7B: 196 GB ÷ 20 GB/s ≈ 9.8 s, not the 280 s of the update's own 0.7 GB/s
	if got := atCeiling(28*7e9, 20e9, ""); got != "9.8 s" {
		t.Errorf("atCeiling = %q, want 9.8 s", got)
	}
	if got := atCeiling(28*7e9, 20e9, "busy"); strings.Contains(got, " s") {
		t.Errorf("a disturbed ceiling gives %q, want no figure", got)
	}
	if n := ceilingNote(20e9, "busy"); !strings.Contains(n, "no figure") {
		t.Errorf("ceiling note: %q", n)
	}
}

// TestOriginsOfAnEarlierCeiling: the copy ceiling kept beside the update comes from the ceilings'
// cache, often measured by another run: its badge says when, never "measured live" (review 3, LOW q).
func TestOriginsOfAnEarlierCeiling(t *testing.T) {
	up := results.Result{Label: "update", Provenance: results.Provenance{Device: "xla:cpu", Run: results.RunID(), Date: time.Now()}}
	old := results.Result{Label: "copy", Params: map[string]int{ParamCeiling: 1},
		Provenance: results.Provenance{Device: "xla:cpu", Run: "another run", Date: time.Date(2026, 12, 4, 5, 13, 0, 0, time.Local)}}
	var kinds []units.OriginKind
	for _, o := range origins([]results.Result{up, old}) {
		kinds = append(kinds, o.Kind)
		if o.Kind == units.Recorded && !strings.Contains(o.Label(), "2026-12-04 05:13") {
			t.Errorf("the earlier ceiling's badge does not say when: %q", o.Label())
		}
	}
	if len(kinds) != 2 || kinds[0] != units.Live || kinds[1] != units.Recorded {
		t.Errorf("origins %v, want [live recorded]", kinds)
	}
}
