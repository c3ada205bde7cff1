package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/hlo"

	"github.com/gpu-course/whygpu/internal/notebook"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
)

// runReport is one notebook's outcome.
type runReport struct {
	Name     string
	Pass     bool
	Seconds  float64
	Cells    int
	Problems []string
	Executed string // executed copy
	HTML     string // HTML export ("" when not made)
}

func runNotebooks(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	out := fs.String("out", "", "output directory (default <checkout>/build)")
	timeout := fs.Int("timeout", 600, "seconds a single cell may run")
	noHTML := fs.Bool("no-html", false, "skip the HTML export")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: whygpu run [-out build] [-timeout 600] [-no-html] [notebook ...]

Executes notebooks (default: every notebooks/*.ipynb) headless through real Jupyter with the course
kernel (nbconvert, the .venv of the checkout), in the notebook's directory, and writes
  <out>/notebooks/NN-topic.ipynb   the executed copy, outputs included
  <out>/html/NN-topic.html         its HTML export (what a reader without Jupyter sees)
then prints a table: per notebook, pass/fail, time and the first problems. A notebook fails on any
error output (Jupyter error, panic or error text on stderr, a display.Error box) and on unmet cell
expectations (metadata "whygpu": {"expect": ["chart", "re:<regex>"]}), the same checks as
tests/test_notebooks.py.`)
		fs.PrintDefaults()
	}
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	root := experiments.Root()
	if *out == "" {
		*out = filepath.Join(root, "build")
	}
	jupyter := filepath.Join(root, ".venv", "bin", "jupyter")
	if _, err := os.Stat(jupyter); err != nil {
		return fmt.Errorf("run: %s not found: run `make setup` first", jupyter)
	}
	paths, err := notebookPaths(root, fs.Args())
	if err != nil {
		return err
	}
	execDir, htmlDir := filepath.Join(*out, "notebooks"), filepath.Join(*out, "html")
	for _, d := range []string{execDir, htmlDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	env := kernelEnv(root)
	o := runOptions{jupyter: jupyter, execDir: execDir, htmlDir: htmlDir, env: env, timeout: *timeout, html: !*noHTML}
	var reports []runReport
	for _, p := range paths {
		reports = append(reports, runNotebook(o, p))
	}
	fmt.Println()
	if failed := printRunReports(reports); failed > 0 {
		return fmt.Errorf("run: %d of %d notebook(s) failed", failed, len(reports))
	}
	return nil
}

// kernelEnv is this process's environment with what the course kernel needs to be found and to find
// the checkout: JUPYTER_PATH (the checkout's kernel spec) and WHYGPU_ROOT, unless already set.
func kernelEnv(root string) []string {
	env := hlo.PeerEnv() // the kernel's cells set their own XLA_FLAGS (pkg/measure/hlo), not this process's
	if os.Getenv("JUPYTER_PATH") == "" {
		env = append(env, "JUPYTER_PATH="+filepath.Join(root, ".venv", "share", "jupyter"))
	}
	if os.Getenv("WHYGPU_ROOT") == "" {
		env = append(env, "WHYGPU_ROOT="+root)
	}
	return env
}

// runOptions is how `whygpu run` executes each notebook.
type runOptions struct {
	jupyter          string   // the checkout's jupyter
	execDir, htmlDir string   // where the executed copy and its HTML export go
	env              []string // the kernel's environment (kernelEnv)
	timeout          int      // seconds a single cell may run
	html             bool     // also export HTML
}

// runNotebook executes one notebook, checks the executed copy (ExecutedProblems) and exports its HTML.
func runNotebook(o runOptions, p string) runReport {
	name := strings.TrimSuffix(filepath.Base(p), ".ipynb")
	fmt.Printf("run: %s ...\n", name)
	r := runReport{Name: name, Executed: filepath.Join(o.execDir, name+".ipynb")}
	t0 := time.Now()
	// A notebook may take at most its cells' timeouts; the whole call gets a generous cap.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
	cmd := exec.CommandContext(ctx, o.jupyter, "nbconvert", "--to", "notebook", "--execute", "--allow-errors",
		"--ExecutePreprocessor.kernel_name="+notebook.Kernel,
		"--ExecutePreprocessor.timeout="+strconv.Itoa(o.timeout),
		"--output-dir", o.execDir, "--output", name, p)
	cmd.Env = o.env
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = os.Stdout, &stderr
	err := cmd.Run()
	cancel()
	r.Seconds = time.Since(t0).Seconds()
	if err != nil {
		r.Problems = append(r.Problems, fmt.Sprintf("nbconvert failed (%v): %s", err, lastLines(stderr.String(), 15)))
	} else {
		nb, err := notebook.Read(r.Executed)
		if err != nil {
			r.Problems = append(r.Problems, err.Error())
		} else {
			r.Cells = len(nb.Cells)
			r.Problems = append(r.Problems, ExecutedProblems(nb)...)
		}
	}
	if o.html {
		r.Problems = append(r.Problems, exportHTML(o, &r)...)
	}
	r.Pass = len(r.Problems) == 0
	return r
}

// exportHTML writes the HTML export of r's executed copy, if there is one, and sets r.HTML; it returns
// the export's problem, if any.
func exportHTML(o runOptions, r *runReport) []string {
	if _, err := os.Stat(r.Executed); err != nil {
		return nil
	}
	h := exec.Command(o.jupyter, "nbconvert", "--to", "html", "--output-dir", o.htmlDir, "--output", r.Name, r.Executed)
	h.Env = o.env
	if b, err := h.CombinedOutput(); err != nil {
		return []string{fmt.Sprintf("HTML export failed: %v: %s", err, lastLines(string(b), 5))}
	}
	r.HTML = filepath.Join(o.htmlDir, r.Name+".html")
	return nil
}

// printRunReports prints the table of outcomes and each notebook's first problems; it returns how many
// notebooks failed.
func printRunReports(reports []runReport) (failed int) {
	tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "notebook\tresult\ttime\tcells\texecuted copy\tHTML")
	var total float64
	for _, r := range reports {
		res := "pass"
		if !r.Pass {
			res = fmt.Sprintf("FAIL (%d)", len(r.Problems))
			failed++
		}
		total += r.Seconds
		fmt.Fprintf(tw, "%s\t%s\t%.1fs\t%d\t%s\t%s\n", r.Name, res, r.Seconds, r.Cells, relPath(r.Executed), relPath(r.HTML))
	}
	fmt.Fprintf(tw, "total\t%d/%d pass\t%.1fs\t\t\t\n", len(reports)-failed, len(reports), total)
	tw.Flush()
	for _, r := range reports {
		for i, p := range r.Problems {
			if i == 10 {
				fmt.Printf("%s: ... %d more\n", r.Name, len(r.Problems)-10)
				break
			}
			fmt.Printf("%s: %s\n", r.Name, p)
		}
	}
	return failed
}

var stderrFailure = regexp.MustCompile(`(?i)panic:|error|failed|cannot`)

// ExecutedProblems checks an executed notebook the way tests/test_notebooks.py does: error outputs,
// unmet expectations, and charts and tables shown without their origin badge (BadgeProblems).
// Cells are numbered from 1.
func ExecutedProblems(nb *notebook.Notebook) []string {
	var ps []string
	for i, c := range nb.Cells {
		if c.Type != "code" {
			continue
		}
		n := i + 1
		var text strings.Builder
		chart := false
		for _, o := range c.Outputs {
			typ, _ := o["output_type"].(string)
			switch typ {
			case "error":
				msg := fmt.Sprintf("cell %d: error output: %v: %v", n, o["ename"], o["evalue"])
				if ce := compileErrors(c); ce != "" {
					msg += " — " + ce
				}
				ps = append(ps, msg)
			case "stream":
				t := joinText(o["text"])
				text.WriteString(t)
				if o["name"] == "stderr" && stderrFailure.MatchString(t) {
					ps = append(ps, fmt.Sprintf("cell %d: stderr: %s", n, firstChars(t, 400)))
				}
			case "display_data", "execute_result":
				data, _ := o["data"].(map[string]any)
				html := joinText(data["text/html"])
				if strings.Contains(html, "whygpu-error") || strings.Contains(strings.ToLower(html), "gonb_error") {
					ps = append(ps, fmt.Sprintf("cell %d: error shown: %s", n, firstChars(stripTags(html), 400)))
				}
				text.WriteString(joinText(data["text/plain"]) + "\n" + stripTags(html) + "\n")
				if len(joinText(data["image/svg+xml"])) > 2000 || len(joinText(data["image/png"])) > 2000 {
					chart = true
				}
			}
		}
		ps = append(ps, BadgeProblems(n, c.Outputs)...)
		for _, e := range c.Expectations() {
			switch {
			case e == "chart":
				if !chart {
					ps = append(ps, fmt.Sprintf("cell %d: expected a chart (image/svg+xml or image/png)", n))
				}
			case strings.HasPrefix(e, "re:"):
				re, err := regexp.Compile(e[3:])
				if err != nil {
					continue // a Python-only regex: tests/test_notebooks.py checks it
				}
				m := re.FindStringSubmatch(text.String())
				if m == nil {
					ps = append(ps, fmt.Sprintf("cell %d: expected output matching %q", n, e[3:]))
				} else if len(m) > 1 {
					if v, err := strconv.ParseFloat(m[1], 64); err != nil || !(v > 0) {
						ps = append(ps, fmt.Sprintf("cell %d: expected a positive number in %q", n, m[0]))
					}
				}
			}
		}
	}
	return ps
}

// The marks of pkg/view/display's origin badges and of its tables in an executed cell's HTML.
const (
	badgeMark       = `class="whygpu-badge"`
	unstatedMark    = `data-origin="unstated"`
	displayTableTag = `<table class="whygpu-table"><thead>` // display.Table and ResultsTable (not a check's small table)
)

// BadgeProblems checks one executed cell's outputs (cell n): a chart (an SVG or PNG image) follows an
// origin badge in the same cell, a display table carries its badge, and no badge says "origin not
// stated" (a table built without units.Table.Origins).
func BadgeProblems(n int, outputs []map[string]any) []string {
	var ps []string
	badged := false
	for _, o := range outputs {
		data, _ := o["data"].(map[string]any)
		html := joinText(data["text/html"])
		if strings.Contains(html, badgeMark) {
			badged = true
		}
		if strings.Contains(html, unstatedMark) {
			ps = append(ps, fmt.Sprintf("cell %d: a table or chart whose origin is not stated: give it units.Table.Origins (lessons/AUTHORING.md)", n))
		}
		if strings.Contains(html, displayTableTag) && !strings.Contains(html, badgeMark) {
			ps = append(ps, fmt.Sprintf("cell %d: a table without its origin badge", n))
		}
		if (len(joinText(data["image/svg+xml"])) > 0 || len(joinText(data["image/png"])) > 0) && !badged {
			ps = append(ps, fmt.Sprintf("cell %d: a chart without its origin badge above it", n))
		}
	}
	return ps
}

var (
	tagRe     = regexp.MustCompile(`<[^>]+>`)
	styleRe   = regexp.MustCompile(`(?s)<style.*?</style>`)
	contextRe = regexp.MustCompile(`(?s)<div class="gonb-err-context">.*?</div>\s*</div>`)
)

// compileErrors extracts GoNB's compile errors ("Cell[1]: Line 2 ./main.go:11:13: undefined: x")
// from a cell's HTML outputs (GoNB v0.11.4 shows them as HTML with gonb-err-* classes).
func compileErrors(c *notebook.Cell) string {
	var out []string
	for _, o := range c.Outputs {
		data, _ := o["data"].(map[string]any)
		h := joinText(data["text/html"])
		if !strings.Contains(h, "gonb-err") {
			continue
		}
		h = contextRe.ReplaceAllString(styleRe.ReplaceAllString(h, ""), "</div>")
		for _, line := range strings.Split(stripTags(h), "\n") {
			line = strings.Join(strings.Fields(line), " ")
			if strings.HasPrefix(line, "Cell[") {
				out = append(out, line)
			}
		}
	}
	return firstChars(strings.Join(out, "; "), 600)
}

func stripTags(s string) string { return tagRe.ReplaceAllString(s, " ") }

// joinText reads an nbformat multiline string (a string or a list of strings).
func joinText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, s := range v {
			fmt.Fprint(&b, s)
		}
		return b.String()
	}
	return ""
}

func firstChars(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
