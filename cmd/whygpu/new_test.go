package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
)

// checkoutCopy copies what `new` and a build of lessons/ need into a temporary directory: go.mod,
// go.sum, README.md and every notebook (lessons/all reads the README's tables and the notebooks: the
// lesson table, lesson 08's model card), pkg/, internal/ and lessons/ (without reference data).
func checkoutCopy(t *testing.T) string {
	t.Helper()
	src := experiments.Root()
	dst := t.TempDir()
	copyFile := func(rel string) {
		b, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{"go.mod", "go.sum", "README.md"}
	nbs, _ := filepath.Glob(filepath.Join(src, "notebooks", "*.ipynb"))
	for _, nb := range nbs {
		files = append(files, filepath.Join("notebooks", filepath.Base(nb)))
	}
	for _, f := range files {
		copyFile(f)
	}
	for _, dir := range []string{"pkg", "internal", "lessons"} {
		err := filepath.WalkDir(filepath.Join(src, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			if d.IsDir() && (d.Name() == "reference" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if !d.IsDir() && d.Type().IsRegular() {
				copyFile(rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestNewScaffoldsALessonThatPassesCheck(t *testing.T) {
	root := checkoutCopy(t)
	t.Setenv("WHYGPU_ROOT", root)
	if err := newLesson([]string{"42-moving-data", "Moving data, and why it costs"}); err != nil {
		t.Fatal(err)
	}
	nbPath := filepath.Join(root, "notebooks", "42-moving-data.ipynb")
	for _, p := range []string{nbPath, filepath.Join(root, "lessons", "movingdata", "movingdata.go"), filepath.Join(root, "lessons", "movingdata", "movingdata_test.go")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("not created: %v", err)
		}
	}
	if err := check([]string{nbPath}); err != nil {
		t.Fatalf("the scaffolded notebook fails check: %v", err)
	}
	nb, _ := os.ReadFile(nbPath)
	for _, want := range []string{`"# 42 · Moving data, and why it costs\n"`, `"lesson": "42-moving-data"`, `movingdata.ExampleOnEachDevice()`, `display.Recall(movingdata.Deck, \"why\")`} {
		if !strings.Contains(string(nb), want) {
			t.Errorf("the notebook lacks %s", want)
		}
	}
	if strings.Contains(string(nb), "{{") {
		t.Error("the notebook has unfilled template placeholders")
	}
	all, _ := os.ReadFile(filepath.Join(root, "lessons", "all", "all.go"))
	// gofmt aligns the trailing comments, so match the import and its comment apart.
	if !regexp.MustCompile(`"github.com/gpu-course/whygpu/lessons/movingdata"\s+// 42-moving-data`).Match(all) || !strings.Contains(string(all), "\tmovingdata.Experiments,\n") {
		t.Errorf("lessons/all/all.go does not import and list the new lesson:\n%s", all)
	}

	// Refusals: the same lesson again, the same number, a bad id, a bad package name.
	for _, args := range [][]string{
		{"42-moving-data", "Again"},
		{"42-other", "Same number"},
		{"7-x", "Bad id"},
		{"Big-Topic", "Bad id"},
		{"43-go", "Keyword package"},
		{"44-x", ""},
	} {
		if err := newLesson(args); err == nil {
			t.Errorf("new %q should fail", args)
		}
	}

	// The scaffolded package builds, vets and passes its tests (offline, against this checkout's
	// module cache). Skipped with -short.
	if testing.Short() {
		return
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		devicetest.NeedSetup(t, "the go command", "install Go 1.26 and put it on PATH")
	}
	for _, args := range [][]string{{"vet", "./lessons/..."}, {"test", "-count=1", "./lessons/movingdata/", "./lessons/all/"}} {
		cmd := exec.Command(goBin, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod -buildvcs=false", "WHYGPU_ROOT="+root)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s in the scaffolded checkout: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

func TestAddLesson(t *testing.T) {
	src := "package all\n\nimport (\n\t\"m/lessons/b\" // 02-b\n\t\"m/lessons/d\" // 04-d\n\t\"m/pkg/measure/experiments\"\n)\n\n" +
		"var Experiments = []experiments.List{\n\tb.Experiments,\n\td.Experiments,\n}\n"
	out, err := addLesson([]byte(src), "m/lessons/c", "c", "03-c")
	if err != nil {
		t.Fatal(err)
	}
	want := "package all\n\nimport (\n\t\"m/lessons/b\" // 02-b\n\t\"m/lessons/c\" // 03-c\n\t\"m/lessons/d\" // 04-d\n\t\"m/pkg/measure/experiments\"\n)\n\n" +
		"var Experiments = []experiments.List{\n\tb.Experiments,\n\tc.Experiments,\n\td.Experiments,\n}\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	again, _ := addLesson(out, "m/lessons/c", "c", "03-c")
	if string(again) != want {
		t.Errorf("adding twice changed the file:\n%s", again)
	}
}
