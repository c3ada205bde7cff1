package roofline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
)

func TestSizesRefused(t *testing.T) {
	good := Sizes{MatMul: []int{64, 256}, LNRows: 1024, LNCol: 1024, Elementwise: 1 << 20}
	if err := good.Validate(); err != nil {
		t.Fatalf("good sizes refused: %v", err)
	}
	for _, tc := range []struct {
		edit func(*Sizes)
		want string
	}{
		{func(s *Sizes) { s.MatMul = []int{1e9} }, "n = 1000000000 refused before anything is allocated"},
		{func(s *Sizes) { s.MatMul = nil }, "give 1…"},
		{func(s *Sizes) { s.LNRows = 1 << 20; s.LNCol = 1 << 20 }, "layernorm"},
		{func(s *Sizes) { s.Elementwise = 0 }, "a·x + b"},
	} {
		s := good
		tc.edit(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", s, err, tc.want)
		}
		if _, err := PointsAt(s); err == nil {
			t.Errorf("PointsAt measured refused sizes %+v", s)
		}
		if _, err := PointsOnEachDevice(s); err == nil {
			t.Errorf("PointsOnEachDevice measured refused sizes %+v", s)
		}
	}
}

// TestPointsCellDefaults: the sizes written in the measuring cell of the notebook are the lesson's
// laptop sizes (what the cell measured before it took them), and they pass.
func TestPointsCellDefaults(t *testing.T) {
	cell := Sizes{MatMul: []int{64, 256, 1024}, LNRows: 8192, LNCol: 4096, Elementwise: 32 << 20} // notebooks/02-roofline.ipynb
	if err := cell.Validate(); err != nil {
		t.Fatalf("the cell's sizes are refused: %v", err)
	}
	want := SizesFor(experiments.Laptop)
	if fmt.Sprint(cell.MatMul, cell.LNRows, cell.LNCol, cell.Elementwise) != fmt.Sprint(want.MatMul, want.LNRows, want.LNCol, want.Elementwise) ||
		len(want.MatMulTypes) != 1 || want.MatMulTypes[0] != dtypes.Float32 {
		t.Errorf("the cell's sizes %+v are not SizesFor(Laptop) %+v", cell, want)
	}
}
