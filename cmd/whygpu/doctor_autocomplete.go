package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// doctorOptions are doctor's flags.
type doctorOptions struct {
	autocomplete bool
}

func parseDoctorFlags(args []string) (doctorOptions, error) {
	var o doctorOptions
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.BoolVar(&o.autocomplete, "autocomplete", false,
		"also measure autocomplete as a learner meets it: a new course kernel, a first cell, then Tab and Shift-Tab in a later cell (about a minute)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("doctor: unexpected arguments %q (flags: -autocomplete)", fs.Args())
	}
	return o, nil
}

// gonbPatches are the course's patches of GoNB (kernels/gonb/<name>.patch), each with the log message it adds
// to the binary, so a built gonb that contains the message carries the patch.
var gonbPatches = []struct{ name, mark, fixes, without string }{
	{"connect-poll", "whygpu-course patch: connect-poll",
		"the kernel reaches gopls within a second, so autocomplete answers from the first cell (upstream waits 12 s)",
		"autocomplete stays silent for the kernel's first 12–25 s"},
	{"gopls-nice", "whygpu-course patch: gopls-nice",
		"gopls runs at nice 19, so its workspace loads yield the CPU to cells that measure (issue 35 §7)",
		"gopls type-checks the workspace at full priority beside the first cells, and their measurements are marked disturbed"},
	{"track-module", "whygpu-course patch: track-module",
		"gopls is told only of the module's own files, and only when they change (upstream opens every Go file below the checkout, build/ included)",
		"GoNB opens every Go file below the checkout in gopls before the first Tab: minutes when build/ holds a module cache"},
	{"gowork-replace", "whygpu-course patch: gowork-replace",
		"each cell's go.work replaces go-xla with the set-up's copy without its plugin installer (GONB_GOWORK_REPLACE): a smaller program to link an edit (issue 35)",
		"cells link go-xla's installer (net/http, crypto/tls): ~0.2 s more an edit"},
	{"websocket-wait", "whygpu-course patch: websocket-wait",
		"the kernel waits up to GONB_WEBSOCKET_WAIT (10 s) for the page to connect its widgets (upstream 3 s: a loaded machine's browser missed it, and the live race stayed static)",
		"on a loaded machine the live race and panels may come up static (not connected)"},
	{"cell-build", "whygpu-course patch: cell-build",
		"an edited cell builds without `go get` (GONB_AUTOGET=off, offline anyway) and links with the linker's GC off (GONB_BUILD_GOGC=off): ~0.2 s less an edit (issue 35)",
		"every edited cell runs `go get` and links with the default GC: ~0.2 s more an edit"},
}

// checkGonbPatches reports, for each course patch, whether the gonb binary at path carries it.
func checkGonbPatches(path string, ok func(what, detail string), bad func(what, detail, fix string)) {
	b, err := os.ReadFile(path)
	for _, p := range gonbPatches {
		if err == nil && bytes.Contains(b, []byte(p.mark)) {
			ok("gonb patch", p.name+" (kernels/gonb/): "+p.fixes)
		} else {
			bad("gonb patch", p.name+" missing: "+p.without, "make setup   (runs scripts/setup.sh)")
		}
	}
}

// autocompleteTarget is the course's promise (kernels/README.md): Tab and Shift-Tab answer within this
// many seconds after a lesson's first cell.
const autocompleteTarget = 10.0

// probeRequest is one request's part of kernels/autocomplete_probe.py's --json timeline.
type probeRequest struct {
	AnsweredS       *float64 `json:"answered_s"`
	AfterFirstCellS *float64 `json:"after_first_cell_s"`
	Attempts        [][]any  `json:"attempts"`
}

// probeTimeline is kernels/autocomplete_probe.py's --json output.
type probeTimeline struct {
	Error           string        `json:"error"`
	KernelReadyS    float64       `json:"kernel_ready_s"`
	FirstCellStatus string        `json:"first_cell_status"`
	FirstCellS      float64       `json:"first_cell_s"`
	LoadBefore      float64       `json:"load_before"`
	LoadAfter       float64       `json:"load_after"`
	CPUs            int           `json:"cpus"`
	GoplsCache      string        `json:"gopls_cache"`
	Complete        *probeRequest `json:"complete"`
	Inspect         *probeRequest `json:"inspect"`
}

// checkAutocomplete runs kernels/autocomplete_probe.py with the venv's Python against the course kernel
// (gopls' cache as the learner's kernel finds it: $GOPLSCACHE or ~/.cache/gopls) and prints its timeline.
func checkAutocomplete(root, venv string, ok, info func(what, detail string), bad func(what, detail, fix string)) {
	const fix = "see kernels/README.md (Autocomplete); re-run make setup, whose warm-up fills gopls' cache"
	cmd := exec.Command(filepath.Join(venv, "bin", "python"), filepath.Join(root, "kernels", "autocomplete_probe.py"), "--json")
	cmd.Env = append(os.Environ(), "JUPYTER_PATH="+filepath.Join(venv, "share", "jupyter"))
	out, runErr := cmd.Output()
	var t probeTimeline
	if err := json.Unmarshal(bytes.TrimSpace(out), &t); err != nil {
		bad("autocomplete", fmt.Sprintf("the probe gave no timeline (%v): %s", runErr, strings.TrimSpace(string(out))), fix)
		return
	}
	if t.Error != "" {
		bad("autocomplete", "the probe failed: "+t.Error, fix)
		return
	}
	for _, line := range autocompleteTimeline(t) {
		info("timeline", line)
	}
	for _, r := range []struct {
		what string
		req  *probeRequest
	}{{"Tab", t.Complete}, {"Shift-Tab", t.Inspect}} {
		switch {
		case r.req == nil || r.req.AfterFirstCellS == nil:
			bad("autocomplete", r.what+" gave no answer (timeline above)", fix)
		case *r.req.AfterFirstCellS > autocompleteTarget:
			bad("autocomplete", fmt.Sprintf("%s answered %.1f s after the first cell, over the course's %.0f s", r.what, *r.req.AfterFirstCellS, autocompleteTarget), fix)
		default:
			ok("autocomplete", fmt.Sprintf("%s answered %.1f s after the first cell (target ≤ %.0f s)", r.what, *r.req.AfterFirstCellS, autocompleteTarget))
		}
	}
}

// autocompleteTimeline renders the probe's timeline, one line per step, in seconds from kernel start.
func autocompleteTimeline(t probeTimeline) []string {
	cache := t.GoplsCache
	if cache == "" {
		cache = "~/.cache/gopls"
	}
	lines := []string{
		fmt.Sprintf("kernel ready at %.1f s; first cell (imports pkg/view/display) ended at %.1f s (%s)", t.KernelReadyS, t.FirstCellS, t.FirstCellStatus),
	}
	for _, r := range []struct {
		what string
		req  *probeRequest
	}{{"Tab on display.Ma", t.Complete}, {"Shift-Tab on display.Markdown", t.Inspect}} {
		if r.req == nil {
			continue
		}
		var tries []string
		for _, a := range r.req.Attempts {
			if len(a) == 4 {
				res := "no"
				if good, _ := a[3].(bool); good {
					res = "answered"
				}
				start, _ := a[1].(float64)
				took, _ := a[2].(float64)
				tries = append(tries, fmt.Sprintf("%.1f s: %v, %s after %.1f s", start, a[0], res, took))
			}
		}
		if n := len(tries); n > 8 {
			tries = []string{tries[0], tries[1], tries[2], tries[3], fmt.Sprintf("… %d more …", n-6), tries[n-2], tries[n-1]}
		}
		lines = append(lines, r.what+": "+strings.Join(tries, "; "))
	}
	lines = append(lines, fmt.Sprintf("load average %.1f → %.1f on %d CPUs; gopls cache %s", t.LoadBefore, t.LoadAfter, t.CPUs, cache))
	return lines
}
