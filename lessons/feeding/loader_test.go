package feeding

import (
	"strings"
	"testing"
)

func TestLoaderRefused(t *testing.T) {
	if err := (Loader{Workers: []int{1, 2, 4}}).Validate(); err != nil {
		t.Fatalf("good worker counts refused: %v", err)
	}
	for _, tc := range []struct {
		l    Loader
		want string
	}{
		{Loader{Workers: []int{1e9}}, "refused before anything starts"},
		{Loader{Workers: []int{0}}, "refused"},
		{Loader{}, "at least one"},
		{Loader{Workers: make([]int, 9)}, "at most"},
	} {
		if err := tc.l.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.l, err, tc.want)
		}
		if _, err := SweepLoader(tc.l, nil); err == nil {
			t.Errorf("SweepLoader ran refused counts %+v", tc.l)
		}
	}
}
