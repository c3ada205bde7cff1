package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Where the cell-latency reports live: docs/performance.md shows them beside the GoMLX-vs-JAX reports.
const cellsBenchDir = "docs/bench/cells"

// baselineGOFLAGS is the course kernel's GOFLAGS before issue 35 (the external linker, with symbols):
// the "before" kernel `whygpu bench -cells` runs beside the course's.
const baselineGOFLAGS = "-buildvcs=false"

// cellKinds are the cells scripts/bench_cells.py times, in the order reports show them.
var cellKinds = []string{"edited", "rerun", "trivial"}

var cellKindWhat = map[string]string{
	"edited":  "edited cell importing lessons/race and pkg/view/display (rebuilt and relinked)",
	"rerun":   "the same cell run again unchanged",
	"trivial": "edited `fmt.Println` cell (standard library only)",
}

// CellsReport is one run of `whygpu bench -cells`.
type CellsReport struct {
	Date       time.Time              `json:"date"`
	Host       string                 `json:"host"`
	CPU        string                 `json:"cpu"`
	Cores      int                    `json:"cores"`
	Go         string                 `json:"go"`
	GoNB       string                 `json:"gonb"`
	Command    string                 `json:"command"`
	Edits      int                    `json:"edits"`
	LoadBefore []float64              `json:"load_before"` // 1, 5, 15-minute load averages
	LoadAfter  []float64              `json:"load_after"`
	Kernels    map[string]CellsKernel `json:"kernels"` // "course", and "baseline" when measured
}

// CellsKernel is one kernel's samples: wall seconds from the execute request to idle, and the CPU
// seconds its process tree used meanwhile (go build, the linker, the cell's program, gopls).
type CellsKernel struct {
	GOFLAGS string               `json:"goflags"`
	GonbEnv map[string]string    `json:"gonb_env,omitempty"` // the spec's GONB_* settings (kernels/gonb/cell-build.patch)
	Samples map[string][]float64 `json:"samples"`
	CPU     map[string][]float64 `json:"cpu"`
}

// EditedMedian is the course kernel's median edited cell, the figure issue 35 targets (≤ 1.0 s).
func (r CellsReport) EditedMedian() float64 {
	return units.Median(r.Kernels["course"].Samples["edited"])
}

// Quiet reports whether the machine was quiet enough for the wall times to mean what they say: a
// 1-minute load average below 1 before the run (the load after it counts the bench's own builds).
func (r CellsReport) Quiet() bool {
	return len(r.LoadBefore) > 0 && r.LoadBefore[0] < 1
}

func runCellsBench(args []string) error {
	fs := flag.NewFlagSet("bench -cells", flag.ContinueOnError)
	edits := fs.Int("edits", 10, "timed runs of each cell kind (the median of these is reported)")
	baseline := fs.String("baseline-goflags", baselineGOFLAGS, "GOFLAGS of a second kernel run beside the course's, interleaved (the before of a flag change); empty: the course's own")
	unset := fs.String("baseline-unset", "", "comma-separated variables of the kernel spec's env the baseline kernel runs without (e.g. GONB_BUILD_GOGC,GONB_AUTOGET: the before of kernels/gonb/cell-build.patch)")
	jsonOut := fs.String("json", "", "also write the report as JSON here (docs/performance.md is rendered from "+cellsBenchDir+"/*.json: whygpu perfdoc)")
	python := fs.String("python", filepath.Join(experiments.Root(), ".venv", "bin", "python"), "the course venv's python (jupyter_client)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: whygpu bench -cells [-edits N] [-baseline-goflags FLAGS] [-baseline-unset VARS] [-json FILE]

Times cells through the real course kernel (jupyter_client, scripts/bench_cells.py): an edited cell
importing a lesson package, the same cell rerun, a trivial cell; from the execute request to the kernel
going idle, with the CPU seconds the kernel's process tree used. A second kernel with the old GOFLAGS
runs interleaved beside it, so before and after share the load.
`)
		fs.PrintDefaults()
	}
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	root := experiments.Root()
	cmdArgs := []string{filepath.Join(root, "scripts", "bench_cells.py"), "--edits", fmt.Sprint(max(1, *edits))}
	if *baseline != "" {
		cmdArgs = append(cmdArgs, "--baseline-goflags="+*baseline)
	}
	for _, v := range strings.Split(*unset, ",") {
		if v = strings.TrimSpace(v); v != "" {
			cmdArgs = append(cmdArgs, "--baseline-unset="+v)
		}
	}
	hasBaseline := *baseline != "" || *unset != ""
	cmd := exec.Command(*python, cmdArgs...)
	cmd.Env = append(os.Environ(), "JUPYTER_PATH="+filepath.Join(root, ".venv", "share", "jupyter"))
	cmd.Stderr = os.Stderr
	fmt.Fprintf(os.Stderr, "bench -cells: %d edits per kind through the course kernel%s…\n", *edits,
		map[bool]string{true: " and a baseline kernel (GOFLAGS " + *baseline + ", without " + *unset + ")", false: ""}[hasBaseline])
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("bench -cells: %s: %w (run scripts/setup.sh first)", strings.Join(cmd.Args, " "), err)
	}
	var rep CellsReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return fmt.Errorf("bench -cells: reading the script's report: %w", err)
	}
	rep.Date = time.Now().UTC()
	rep.Host, _ = os.Hostname()
	if infos, err := cpu.Info(); err == nil && len(infos) > 0 {
		rep.CPU = infos[0].ModelName
	}
	rep.Cores = runtime.NumCPU()
	rep.Go = runtime.Version()
	rep.GoNB = moduleVersion(root, "github.com/janpfeifer/gonb")
	rep.Command = strings.TrimSpace("whygpu bench -cells " + strings.Join(args, " "))
	fmt.Print(cellsMarkdown(rep, ""))
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", *jsonOut)
	}
	return nil
}

// moduleVersion reads a required module's version from the checkout's go.mod ("" if absent).
func moduleVersion(root, mod string) string {
	b, _ := os.ReadFile(filepath.Join(root, "go.mod"))
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "require "))
		if len(f) >= 2 && f[0] == mod {
			return f[1]
		}
	}
	return ""
}

// readCellsReports reads every committed cell report, newest first.
func readCellsReports(root string) ([]CellsReport, []string, error) {
	paths, err := filepath.Glob(filepath.Join(root, cellsBenchDir, "*.json"))
	if err != nil {
		return nil, nil, err
	}
	type rf struct {
		r CellsReport
		p string
	}
	var all []rf
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, err
		}
		var r CellsReport
		dec := json.NewDecoder(bytes.NewReader(b))
		if err := dec.Decode(&r); err != nil {
			return nil, nil, fmt.Errorf("perfdoc: reading %s: %w", p, err)
		}
		if r.Date.IsZero() || r.Host == "" || r.Cores == 0 || len(r.Kernels["course"].Samples["edited"]) == 0 {
			return nil, nil, fmt.Errorf("perfdoc: %s lacks its provenance (date, host, cores) or the course kernel's edited-cell samples", p)
		}
		rel, _ := filepath.Rel(root, p)
		all = append(all, rf{r, filepath.ToSlash(rel)})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].r.Date.After(all[j].r.Date) })
	var rs []CellsReport
	var ps []string
	for _, a := range all {
		rs = append(rs, a.r)
		ps = append(ps, a.p)
	}
	return rs, ps, nil
}

// cellsMarkdown is one cell report as a section: provenance, load, and a row per cell kind with each
// kernel's median wall time (range) and median CPU seconds.
func cellsMarkdown(r CellsReport, path string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s, %s (%s, %d cores)\n\n", r.Date.Format("2006-01-02 15:04 UTC"), r.Host, r.CPU, r.Cores)
	src := ""
	if path != "" {
		src = fmt.Sprintf("Report [`%s`](%s), ", path, strings.TrimPrefix(path, "docs/"))
	}
	fmt.Fprintf(&b, "%smeasured by `%s`: %s, GoNB %s, median of %d edits per kind.\n", src, r.Command, r.Go, r.GoNB, r.Edits)
	load := fmt.Sprintf("load average %.1f before, %.1f after (the bench's own builds included) on %d cores", first(r.LoadBefore), first(r.LoadAfter), r.Cores)
	if r.Quiet() {
		fmt.Fprintf(&b, "Load: quiet (%s).\n\n", load)
	} else {
		fmt.Fprintf(&b, "Load: **busy** (%s): the wall times measure the neighbours as much as the kernel; the CPU seconds do not, and the two kernels ran interleaved under the same load, so their ratio holds.\n\n", load)
	}
	roles := []string{"course"}
	if _, ok := r.Kernels["baseline"]; ok {
		roles = append([]string{"baseline"}, roles...)
	}
	b.WriteString("| cell |")
	for _, role := range roles {
		env := ""
		for _, k := range slices.Sorted(maps.Keys(r.Kernels[role].GonbEnv)) {
			env += fmt.Sprintf(", %s=%s", k, r.Kernels[role].GonbEnv[k])
		}
		fmt.Fprintf(&b, " %s: GOFLAGS `%s`%s — wall (range) | CPU |", role, r.Kernels[role].GOFLAGS, env)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|---|", len(roles)) + "\n")
	for _, k := range cellKinds {
		fmt.Fprintf(&b, "| %s |", cellKindWhat[k])
		for _, role := range roles {
			s := r.Kernels[role].Samples[k]
			if len(s) == 0 {
				b.WriteString(" — | — |")
				continue
			}
			fmt.Fprintf(&b, " %.2f s (%.2f–%.2f) | %.2f s |", units.Median(s), slices.Min(s), slices.Max(s), units.Median(r.Kernels[role].CPU[k]))
		}
		b.WriteString("\n")
	}
	if base, ok := r.Kernels["baseline"]; ok {
		be, ae := units.Median(base.Samples["edited"]), r.EditedMedian()
		bc, ac := units.Median(base.CPU["edited"]), units.Median(r.Kernels["course"].CPU["edited"])
		fmt.Fprintf(&b, "\nEdited cell, before → after: %.2f s → %.2f s wall (%.1f× faster), %.2f → %.2f CPU seconds.", be, ae, be/ae, bc, ac)
	}
	verdict := "✓"
	if r.EditedMedian() > 1.0 {
		verdict = "✗"
	}
	fmt.Fprintf(&b, " Target (issue 35): an edited cell ≤ 1.0 s on a 2-core machine: %s %.2f s.\n", verdict, r.EditedMedian())
	return b.String()
}

func first(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[0]
}
