package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
)

// The plan holds every lesson experiment exactly once at its full size (a new experiment must be
// planned), each group fits its budget, and group 1 starts with what replaces modeled numbers.
func TestRecordPlanCoversEveryExperimentWithinBudget(t *testing.T) {
	list, err := courseExperiments()
	if err != nil {
		t.Fatal(err)
	}
	full := map[string]int{}
	for _, p := range recordPlan() {
		if p.Variant == "" {
			full[p.ID]++
		}
		if _, ok := list.Lookup(p.ID); !ok {
			t.Errorf("the plan names %s, which no lesson lists", p.ID)
		}
		if p.Estimate() <= 0 || p.Basis == "" {
			t.Errorf("%s: no estimate or basis: %+v", p.ID, p)
		}
	}
	for _, e := range list {
		if strings.HasPrefix(e.Lesson, "9") && e.Lesson[1] >= '6' { // this test binary's fakes (96-, 98-, 99-)
			continue
		}
		if full[e.ID()] != 1 {
			t.Errorf("%s is planned %d times at full size, want once (add it to recordPlan)", e.ID(), full[e.ID()])
		}
	}
	for _, g := range Groups {
		var total float64
		for _, p := range planGroup(g) {
			total += p.Estimate().Seconds()
		}
		if total > GroupBudget[g].Seconds() {
			t.Errorf("group %d is estimated at %.0f s, over its %.0f s budget", g, total, GroupBudget[g].Seconds())
		}
	}
	g1 := planGroup(1)
	if len(g1) == 0 || g1[0].ID != "01-race/step-sweep" || g1[0].Variant == "" {
		t.Errorf("group 1 should open with the reduced race grid: %+v", g1)
	}
	if r, f := len(reducedRaceSizes(experiments.GPU)), estimateOf("01-race/step-sweep"); r == 0 || f <= planGroup(1)[0].Estimate() {
		t.Errorf("reduced grid %d sizes; full estimate %v should exceed the reduced one", r, f)
	}
	var b bytes.Buffer
	printPlan(&b)
	for _, want := range []string{"group 1: 4 experiments", "01-race/step-sweep", "reduced grid", "compiles", "a model"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, b.String())
		}
	}
}

func TestRecordGroupAndBudgetFlags(t *testing.T) {
	if err := record([]string{"-group", "1", "-only", "00-setup-check/matmul", "-list"}); err == nil || !strings.Contains(err.Error(), "exclude") {
		t.Errorf("-group with -only: %v", err)
	}
	if err := record([]string{"-group", "7", "-list"}); err == nil || !strings.Contains(err.Error(), "no group 7") {
		t.Errorf("unknown group: %v", err)
	}
	needCPUPlugin(t)
	// A budget smaller than the experiment's estimate starts nothing and names it for a later call.
	out := t.TempDir()
	if err := record([]string{"-device", "xla:cpu", "-out", out, "-only", "00-setup-check/matmul", "-budget", "1ms"}); err != nil {
		t.Fatalf("an experiment left for later is no failure: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(out, "*", "00-setup-check")); len(left) != 0 {
		t.Errorf("an experiment over budget was run: %v", left)
	}
}
