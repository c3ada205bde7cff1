package testmain

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPkgPackageUsesMain fails when a package under pkg/ has tests but no TestMain through
// testmain: `make test-race` would then abort at exit once the plugin loaded ("double free").
func TestEveryPkgPackageUsesMain(t *testing.T) {
	root := filepath.Join("..", "..", "pkg")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || d.Name() == "testdata" {
			return err
		}
		tests, _ := filepath.Glob(filepath.Join(path, "*_test.go"))
		if len(tests) == 0 {
			return nil
		}
		for _, f := range tests {
			src, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			if strings.Contains(string(src), "func TestMain(") {
				if !strings.Contains(string(src), "testmain.") {
					t.Errorf("%s: its TestMain does not end through testmain.Main or testmain.Exit", f)
				}
				return nil
			}
		}
		t.Errorf("%s has tests but no TestMain: add main_test.go with func TestMain(m *testing.M) { testmain.Main(m) }", path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
