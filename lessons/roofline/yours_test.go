package roofline

import (
	"strings"
	"testing"
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
	}
}
