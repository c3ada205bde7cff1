package experiments

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRoot: $WHYGPU_ROOT wins; without it, the checkout this package was compiled from (it has go.mod
// and this package's directory).
func TestRoot(t *testing.T) {
	for _, tc := range []struct {
		name, env string
		want      func(string) bool
	}{
		{"WHYGPU_ROOT set", "/some/checkout", func(r string) bool { return r == "/some/checkout" }},
		{"WHYGPU_ROOT unset", "", func(r string) bool {
			_, errMod := os.Stat(filepath.Join(r, "go.mod"))
			_, errPkg := os.Stat(filepath.Join(r, "pkg", "measure", "experiments", "experiments.go"))
			return errMod == nil && errPkg == nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("WHYGPU_ROOT", tc.env)
			if r := Root(); !tc.want(r) {
				t.Errorf("Root() = %q", r)
			}
		})
	}
}
