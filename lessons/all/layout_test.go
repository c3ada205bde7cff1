package all

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeLayoutListsEveryPackage: the README's Layout section names every package directory
// (pkg/*, internal/*, cmd/*, every lesson) and every top-level directory that holds code, so a
// newcomer finds each one there.
func TestReadmeLayoutListsEveryPackage(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(b), "\n## Layout\n")
	if !ok {
		t.Fatal("README.md has no ## Layout section")
	}
	layout, _, _ = strings.Cut(layout, "\n## ")
	want := []string{"`notebooks/`", "`kernels/`", "`docker/`", "`scripts/`", "`tests/`", "`docs/`",
		"`lessons/all/`", "`lessons/_template/`", "`lessons/reference/`"}
	for _, parent := range []string{"pkg", "internal", "cmd"} {
		dirs, _ := filepath.Glob(filepath.Join("../..", parent, "*"))
		for _, d := range dirs {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				want = append(want, "`"+parent+"/"+filepath.Base(d)+"/`")
			}
		}
	}
	// The course's lessons (00-19, as TestReadmeListsEveryLesson): a package `whygpu new` just
	// scaffolded is listed by its author before it joins the course.
	all, err := os.ReadFile("all.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range courseLesson.FindAllStringSubmatch(string(all), -1) {
		want = append(want, "`"+m[1]+"`")
	}
	for _, w := range want {
		if !strings.Contains(layout, w) {
			t.Errorf("README.md's Layout section does not list %s", w)
		}
	}
}

// courseLesson matches a lesson's line in all.go: `_ ".../lessons/race" // 01-race`.
var courseLesson = regexp.MustCompile(`/lessons/(\w+)"\s*// [01][0-9]-`)
