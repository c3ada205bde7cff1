package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/gpu-course/whygpu/internal/notebook"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
)

// lessonData fills the templates of lessons/_template.
type lessonData struct {
	ID     string // "07-feeding"
	Number string // "07"
	Topic  string // "feeding"
	Title  string // "Feeding the device"
	Pkg    string // Go package name and directory under lessons/: "feeding"
	Module string // this module's path
}

func newLesson(args []string) error {
	fs := flag.NewFlagSet("new", flag.ContinueOnError)
	pkg := fs.String("pkg", "", "Go package name (and lessons/ directory) for the lesson's code (default: the topic without hyphens)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: whygpu new [-pkg name] NN-topic "Title"

Scaffolds a lesson from lessons/_template:
  notebooks/NN-topic.ipynb     objectives, time, two sections closed by recall checks, recap
  lessons/<pkg>/<pkg>.go       the lesson's code: an example measurement registered as an
                               experiment (for `+"`whygpu record`"+`), its chart, the recall deck
  lessons/<pkg>/<pkg>_test.go  its tests
and adds the package to lessons/all/all.go. The result passes `+"`whygpu check`"+` as it is; then
replace every TODO(author).`)
		fs.PrintDefaults()
	}
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return fmt.Errorf("new: want NN-topic and a title, got %d argument(s)", fs.NArg())
	}
	root := experiments.Root()
	d, err := lessonDataOf(root, fs.Arg(0), fs.Arg(1), *pkg)
	if err != nil {
		return err
	}
	l := lessonPaths(root, d)
	if err := l.checkFree(root, d); err != nil {
		return err
	}
	// Render everything first, so a template that fails writes nothing.
	nb, err := renderNotebook(l.tmplDir, d)
	if err != nil {
		return err
	}
	goFiles, err := renderPackage(l, d)
	if err != nil {
		return err
	}
	allSrc, err := os.ReadFile(l.all)
	if err != nil {
		return fmt.Errorf("new: %w", err)
	}
	newAll, err := addLesson(allSrc, d.Module+"/lessons/"+d.Pkg, d.Pkg, d.ID)
	if err != nil {
		return fmt.Errorf("new: updating %s: %w", relPath(l.all), err)
	}
	if err := l.write(nb, goFiles, newAll); err != nil {
		return err
	}
	fmt.Printf(`
next:
  1. replace every TODO(author) (grep -rn 'TODO(author)' %s %s)
  2. go run ./cmd/whygpu check %s     # conventions
  3. go test ./lessons/%s/             # the lesson's Go code
  4. go run ./cmd/whygpu run %s       # the notebook through the real kernel (build/)
  5. on a GPU machine: whygpu record -device xla:cuda -only %s   (see lessons/AUTHORING.md)
`, relPath(l.notebook), relPath(l.pkgDir), d.ID, d.Pkg, d.ID, d.ID)
	return nil
}

// lessonDataOf checks the lesson id ("07-feeding"), the title and the package name (default: the
// topic without hyphens) and fills the templates' data.
func lessonDataOf(root, arg, title, pkg string) (lessonData, error) {
	id, title := strings.TrimSuffix(arg, ".ipynb"), strings.TrimSpace(title)
	if !notebook.ValidLessonID(id) {
		return lessonData{}, fmt.Errorf("new: %q is not NN-topic (two digits, a hyphen, lower-case words joined by hyphens, e.g. 07-feeding)", id)
	}
	if title == "" {
		return lessonData{}, fmt.Errorf("new: the title is empty")
	}
	cfg, err := notebook.LoadConfig(root)
	if err != nil {
		return lessonData{}, fmt.Errorf("new: %w", err)
	}
	d := lessonData{ID: id, Number: id[:2], Topic: id[3:], Title: title, Pkg: pkg, Module: cfg.Module}
	if d.Pkg == "" {
		d.Pkg = strings.ReplaceAll(d.Topic, "-", "")
	}
	if !token.IsIdentifier(d.Pkg) || token.IsKeyword(d.Pkg) || strings.ToLower(d.Pkg) != d.Pkg || d.Pkg == "all" {
		return lessonData{}, fmt.Errorf("new: %q is not a usable package name (lower-case Go identifier, not a keyword, not \"all\"): pass -pkg", d.Pkg)
	}
	return d, nil
}

// newLessonFiles are the paths `whygpu new` reads and writes.
type newLessonFiles struct {
	notebook string // notebooks/NN-topic.ipynb
	pkgDir   string // lessons/<pkg>
	tmplDir  string // lessons/_template
	all      string // lessons/all/all.go
}

func lessonPaths(root string, d lessonData) newLessonFiles {
	return newLessonFiles{
		notebook: filepath.Join(root, "notebooks", d.ID+".ipynb"),
		pkgDir:   filepath.Join(root, "lessons", d.Pkg),
		tmplDir:  filepath.Join(root, "lessons", "_template"),
		all:      filepath.Join(root, "lessons", "all", "all.go"),
	}
}

// checkFree refuses a lesson whose notebook, package or number already exists.
func (l newLessonFiles) checkFree(root string, d lessonData) error {
	if _, err := os.Stat(l.notebook); err == nil {
		return fmt.Errorf("new: %s already exists", relPath(l.notebook))
	}
	if _, err := os.Stat(l.pkgDir); err == nil {
		return fmt.Errorf("new: %s already exists (pass -pkg to choose another package name)", relPath(l.pkgDir))
	}
	others, _ := filepath.Glob(filepath.Join(root, "notebooks", d.Number+"-*.ipynb"))
	if len(others) > 0 {
		return fmt.Errorf("new: number %s is taken by %s (lesson numbers are stable: pick a free one)", d.Number, relPath(others[0]))
	}
	return nil
}

// renderNotebook is the template's notebook with its cells' text filled in and fresh cell ids.
func renderNotebook(tmplDir string, d lessonData) (*notebook.Notebook, error) {
	nb, err := notebook.Read(filepath.Join(tmplDir, "lesson.ipynb"))
	if err != nil {
		return nil, fmt.Errorf("new: reading the template: %w", err)
	}
	for _, c := range nb.Cells {
		text, err := fill("cell", c.Text(), d)
		if err != nil {
			return nil, err
		}
		c.Source = notebook.Source(text)
		c.ID = notebook.NewCellID()
	}
	nb.Metadata["whygpu"] = map[string]any{"lesson": d.ID}
	nb.Strip()
	return nb, nil
}

// renderPackage renders the lesson's package and its test, gofmt'ed: destination path → source.
func renderPackage(l newLessonFiles, d lessonData) (map[string][]byte, error) {
	goFiles := map[string]string{
		filepath.Join(l.pkgDir, d.Pkg+".go"):      "lesson.go.tmpl",
		filepath.Join(l.pkgDir, d.Pkg+"_test.go"): "lesson_test.go.tmpl",
	}
	rendered := map[string][]byte{}
	for dst, name := range goFiles {
		b, err := os.ReadFile(filepath.Join(l.tmplDir, name))
		if err != nil {
			return nil, fmt.Errorf("new: reading the template: %w", err)
		}
		text, err := fill(name, string(b), d)
		if err != nil {
			return nil, err
		}
		src, err := format.Source([]byte(text))
		if err != nil {
			return nil, fmt.Errorf("new: %s does not render to valid Go: %w", name, err)
		}
		rendered[dst] = src
	}
	return rendered, nil
}

// write writes the rendered lesson: the notebook, the package's files (in name order) and the new
// lessons/all/all.go, and prints what it created.
func (l newLessonFiles) write(nb *notebook.Notebook, goFiles map[string][]byte, newAll []byte) error {
	if err := os.MkdirAll(l.pkgDir, 0o755); err != nil {
		return err
	}
	if err := nb.Write(l.notebook); err != nil {
		return err
	}
	created := []string{l.notebook}
	dsts := make([]string, 0, len(goFiles))
	for dst := range goFiles {
		dsts = append(dsts, dst)
	}
	sort.Strings(dsts)
	for _, dst := range dsts {
		if err := os.WriteFile(dst, goFiles[dst], 0o644); err != nil {
			return err
		}
		created = append(created, dst)
	}
	if err := os.WriteFile(l.all, newAll, 0o644); err != nil {
		return err
	}
	for _, c := range created {
		fmt.Println("created ", relPath(c))
	}
	fmt.Println("updated ", relPath(l.all))
	return nil
}

// fill executes a template with missingkey=error, so a typo in a placeholder fails loudly.
func fill(name, text string, d lessonData) (string, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", fmt.Errorf("new: template %s: %w", name, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return "", fmt.Errorf("new: template %s: %w", name, err)
	}
	return b.String(), nil
}

// addLesson adds a lesson package to lessons/all/all.go: `"path" // comment` to its import block
// and `pkg.Experiments,` to its Experiments list, each kept sorted, and gofmts the file. A lesson
// already there is left as it is.
func addLesson(src []byte, path, pkg, comment string) ([]byte, error) {
	lines := strings.Split(string(src), "\n")
	quoted := fmt.Sprintf("%q", path)
	lines, err := addSorted(lines, "import (", quoted+" // "+comment, quoted, importPath)
	if err != nil {
		return nil, err
	}
	lines, err = addSorted(lines, "var Experiments = []experiments.List{", pkg+".Experiments,", pkg+".Experiments,", strings.TrimSpace)
	if err != nil {
		return nil, err
	}
	return format.Source([]byte(strings.Join(lines, "\n")))
}

// addSorted adds line to the block that opens with the line open and closes with a line ")" or
// "}", keeping the block's non-blank lines sorted by key, unless a line of it contains already.
func addSorted(lines []string, open, line, already string, key func(string) string) ([]string, error) {
	start, end := -1, -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if start < 0 && t == open {
			start = i
		} else if start >= 0 && (t == ")" || t == "}") {
			end = i
			break
		}
	}
	if start < 0 || end < 0 {
		return nil, fmt.Errorf("no %s … block", open)
	}
	var block []string
	for _, l := range lines[start+1 : end] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if strings.Contains(l, already) {
			return lines, nil // already there
		}
		block = append(block, strings.TrimSpace(l))
	}
	block = append(block, line)
	sort.SliceStable(block, func(i, j int) bool { return key(block[i]) < key(block[j]) })
	for i := range block {
		block[i] = "\t" + block[i]
	}
	return append(append(append([]string{}, lines[:start+1]...), block...), lines[end:]...), nil
}

func importPath(line string) string {
	if i := strings.IndexByte(line, '"'); i >= 0 {
		return line[i:]
	}
	return line
}
