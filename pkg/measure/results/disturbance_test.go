package results

import (
	"strings"
	"testing"
	"time"
)

func TestDisturbanceClassification(t *testing.T) {
	for _, tc := range []struct {
		name      string
		d         Disturbance
		disturbed bool
		says      []string
	}{
		{"quiet", Disturbance{Counted: true, OthersCores: 0.02}, false, nil},
		{"just under the threshold", Disturbance{Counted: true, OthersCores: 0.099}, false, nil},
		{"a neighbour at 60% of a core", Disturbance{Counted: true, OthersCores: 0.6}, true,
			[]string{"other programs used 60% of a core", "rerun when the machine is quiet"}},
		{"throttled once", Disturbance{Counted: true, Throttled: 1, ThrottledTime: 3 * time.Millisecond}, true,
			[]string{"CPU quota paused it 1 times (3ms", "give this seat more CPU"}},
		{"both", Disturbance{Counted: true, OthersCores: 1.5, Throttled: 4}, true, []string{"150% of a core", "4 times"}},
		{"not counted is never marked", Disturbance{OthersCores: 3}, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.Disturbed(); got != tc.disturbed {
				t.Errorf("Disturbed() = %v, want %v", got, tc.disturbed)
			}
			adv := tc.d.Advice()
			if !tc.disturbed && adv != "" {
				t.Errorf("Advice() = %q for a quiet run", adv)
			}
			for _, s := range tc.says {
				if !strings.Contains(adv, s) {
					t.Errorf("Advice() = %q, want it to say %q", adv, s)
				}
			}
		})
	}
}

// WhyDisturbed, for a table row built from several results: the worst neighbour load and every pause.
func TestWhyDisturbed(t *testing.T) {
	r := func(d Disturbance) Result {
		return Result{Stats: Stats{Disturbance: d}}
	}
	for _, tc := range []struct {
		name string
		rs   []Result
		want string
	}{
		{"none", nil, ""},
		{"all quiet", []Result{r(Disturbance{Counted: true, OthersCores: 0.05}), r(Disturbance{})}, ""},
		{"the worst neighbour", []Result{r(Disturbance{Counted: true, OthersCores: 0.3}), r(Disturbance{Counted: true, OthersCores: 0.7}),
			r(Disturbance{Counted: true, OthersCores: 0.05})}, "other programs used 70% of a core"},
		{"pauses add up", []Result{r(Disturbance{Counted: true, Throttled: 2, ThrottledTime: time.Millisecond}),
			r(Disturbance{Counted: true, Throttled: 3, ThrottledTime: 2 * time.Millisecond})},
			"the container's CPU quota paused it 5 times (3ms in all): give this seat more CPU"},
		{"a quiet one's small load is not added", []Result{r(Disturbance{Counted: true, OthersCores: 0.05, Throttled: 1}),
			r(Disturbance{Counted: true, OthersCores: 0.09})}, "the container's CPU quota paused it 1 times (0s in all): give this seat more CPU"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := WhyDisturbed(tc.rs...); got != tc.want {
				t.Errorf("WhyDisturbed = %q, want %q", got, tc.want)
			}
		})
	}
}
