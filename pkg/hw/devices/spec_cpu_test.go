package devices

import (
	"strings"
	"testing"
)

func TestFMAPorts(t *testing.T) {
	for _, tc := range []struct {
		vendor, family string
		lanes, want    int
		why            string
	}{
		{"AuthenticAMD", "25", 16, 1, "Zen 4"},
		{"AuthenticAMD", "25", 8, 2, "Zen 1–3"},
		{"AuthenticAMD", "26", 16, 2, "Zen 5"},
		{"GenuineIntel", "6", 16, 2, "assumed"},
	} {
		n, why := FMAPorts(tc.vendor, tc.family, tc.lanes)
		if n != tc.want || !strings.Contains(why, tc.why) {
			t.Errorf("FMAPorts(%s, %s, %d) = %d, %q; want %d, %q", tc.vendor, tc.family, tc.lanes, n, why, tc.want, tc.why)
		}
	}
}

// A model never sits below a measured rate: AtLeast raises it and says why.
func TestAtLeast(t *testing.T) {
	c := CPUModel(CPUFacts{Cores: 2, Threads: 2, MHz: 2600, Lanes32: 16, FMAUnits: 1, FMASource: "AMD Zen 4"})
	if p := c.Peak("float32"); p < 166e9 || p > 167e9 {
		t.Fatalf("2 × 2.6 GHz × 16 × 1 × 2 = %v, want 166.4 GFLOP/s", p)
	}
	if !strings.Contains(c.Source, "physical cores") || !strings.Contains(c.Source, "Zen 4") {
		t.Errorf("Source %q should name physical cores and the FMA source", c.Source)
	}
	up := AtLeast(c, "float32", 338e9)
	if up.Peak("float32") != 338e9 || !strings.Contains(up.Source, "turbo") || c.Peak("float32") == 338e9 {
		t.Errorf("AtLeast: %v %q (original changed: %v)", up.Peak("float32"), up.Source, c.Peak("float32"))
	}
	twice := AtLeast(up, "float32", 3*166.4e9)
	if n := strings.Count(twice.Source, "raised"); n != 1 || !strings.Contains(twice.Source, "raised 3.00×") {
		t.Errorf("raised twice: Source %q should hold one raise, 3.00× from the model", twice.Source)
	}
	if same := AtLeast(c, "float32", 100e9); same.Peak("float32") != c.Peak("float32") || same.Source != c.Source {
		t.Errorf("a measurement under the model must leave it as it is")
	}
}
