package experiments

import (
	"fmt"
	"testing"
)

func TestCheckPoints(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string // "" for no error
	}{
		{0, "03-batch: give at least one batch size"},
		{1, ""},
		{16, ""},
		{17, "03-batch: 17 batch sizes: at most 16 keep the sweep in seconds"},
	} {
		err := CheckPoints("03-batch", "batch size", tc.n, 16)
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("CheckPoints(%d) = %v, want %q", tc.n, err, tc.want)
		}
	}
}

func TestCheckDimsAndDepth(t *testing.T) {
	for _, tc := range []struct {
		dims  []Dim
		depth int
		want  string // "" for no error
	}{
		{[]Dim{{"batch", 1}, {"Hidden", 4096}}, 1, ""},
		{[]Dim{{"batch", 0}, {"Hidden", 64}}, 2, "05-precision: batch 0 refused before anything is allocated: use 1…4096"},
		{[]Dim{{"batch", 8}, {"Hidden", 1_000_000_000}}, 2, "05-precision: Hidden 1000000000 refused before anything is allocated: use 1…4096"},
		{[]Dim{{"batch", 8}}, 0, "05-precision: depth 0 refused: use 1…8 hidden layers"},
		{[]Dim{{"batch", 8}}, 9, "05-precision: depth 9 refused: use 1…8 hidden layers"},
	} {
		err := CheckDims("05-precision", 4096, tc.dims...)
		if err == nil {
			err = CheckDepth("05-precision", tc.depth, 8)
		}
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("%v depth %d: %v, want %q", tc.dims, tc.depth, err, tc.want)
		}
	}
}
