package memory

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
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
