package precision

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
)

func TestMatMulsRefused(t *testing.T) {
	if err := (MatMuls{N: 1024, DTypes: []string{"float32", "bfloat16"}}).Validate(); err != nil {
		t.Fatalf("the cell's default matmul is refused: %v", err)
	}
	tests := []struct {
		m    MatMuls
		want string
	}{
		{MatMuls{N: 1e9, DTypes: []string{"float32"}}, "side 1000000000 refused before anything is allocated"},
		{MatMuls{N: 0, DTypes: []string{"float32"}}, "refused"},
		{MatMuls{N: 64}, "at least one"},
		{MatMuls{N: 64, DTypes: []string{"int8"}}, `"int8" refused`},
		{MatMuls{N: 64, DTypes: []string{"fp32"}}, `"fp32" refused`},
	}
	for _, tc := range tests {
		err := tc.m.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.m, err, tc.want)
		}
		if _, err := MatMulsHere(tc.m); err == nil {
			t.Errorf("MatMulsHere ran a refused matmul %+v", tc.m)
		}
	}
}

func TestDefaultsValid(t *testing.T) {
	for name, v := range map[string]interface{ Validate() error }{
		"dtypes": DefaultDTypes(experiments.Laptop), "study": DefaultGradStudy,
		"training": DefaultTraining(experiments.Laptop), "GPU training": DefaultTraining(experiments.GPU),
	} {
		if err := v.Validate(); err != nil {
			t.Errorf("default %s refused: %v", name, err)
		}
	}
	if err := DefaultSoftware.ValidateSoftware(); err != nil {
		t.Errorf("default software contrast refused: %v", err)
	}
	if g := DefaultGradStudy.Model(); g != DefaultGradModel {
		t.Errorf("DefaultGradStudy's model %+v, want the lesson's %+v", g, DefaultGradModel)
	}
}

func TestExperimentSizesRefused(t *testing.T) {
	tests := []struct {
		name string
		run  func() (int, error)
		want string
	}{
		{"side 1e9", func() (int, error) {
			rs, err := DTypesOnEachDevice(MatMuls{N: 1e9, DTypes: []string{"float32"}})
			return len(rs), err
		}, "side 1000000000 refused"},
		{"no types", func() (int, error) { rs, err := DTypesOnEachDevice(MatMuls{N: 64}); return len(rs), err }, "at least one"},
		{"study batch 1e9", func() (int, error) {
			us, err := Study(GradStudy{Batch: 1e9, In: 32, Hidden: 128, Out: 4, Depth: 2, Steps: []int{0}})
			return len(us), err
		}, "batch 1000000000 refused"},
		{"study out of order", func() (int, error) {
			us, err := Study(GradStudy{Batch: 8, In: 8, Hidden: 8, Out: 2, Depth: 1, Steps: []int{300, 0}})
			return len(us), err
		}, "ascending"},
		{"study 1e9 steps", func() (int, error) {
			us, err := Study(GradStudy{Batch: 256, In: 32, Hidden: 128, Out: 4, Depth: 2, Steps: []int{1e9}})
			return len(us), err
		}, "1000000000 steps of this model refused"},
		{"study no stage", func() (int, error) {
			us, err := Study(GradStudy{Batch: 8, In: 8, Hidden: 8, Out: 2, Depth: 1})
			return len(us), err
		}, "at least one"},
		{"software side 1e9", func() (int, error) {
			rs, err := SoftwareContrast(MatMuls{N: 1e9, DTypes: []string{"float16"}})
			return len(rs), err
		}, "side 1000000000 refused on the Go backend before anything is allocated"},
		{"software side over the Go limit", func() (int, error) {
			rs, err := SoftwareContrast(MatMuls{N: MaxSoftwareN + 1, DTypes: []string{"float64"}})
			return len(rs), err
		}, "use 1…512"},
		{"software no types", func() (int, error) { rs, err := SoftwareContrast(MatMuls{N: 128}); return len(rs), err }, "at least one"},
		{"software int8", func() (int, error) {
			rs, err := SoftwareContrast(MatMuls{N: 128, DTypes: []string{"int8"}})
			return len(rs), err
		}, `"int8" refused`},
		{"mixed batch 1e9", func() (int, error) {
			rs, err := MixedOnEachDevice(Training{Batch: 1e9, In: 256, Hidden: 512, Out: 16, Depth: 2, Steps: 60})
			return len(rs), err
		}, "batch 1000000000 refused"},
		{"mixed too much memory", func() (int, error) {
			rs, err := MixedOnEachDevice(Training{Batch: 16384, In: 16384, Hidden: 16384, Out: 16, Depth: 8, Steps: 60})
			return len(rs), err
		}, "over the"},
		{"mixed one step", func() (int, error) {
			rs, err := MixedOnEachDevice(Training{Batch: 8, In: 8, Hidden: 8, Out: 2, Depth: 1, Steps: 1})
			return len(rs), err
		}, "1 steps refused"},
	}
	for _, tc := range tests {
		n, err := tc.run()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if n != 0 {
			t.Errorf("%s: measured %d results of refused sizes", tc.name, n)
		}
	}
}
