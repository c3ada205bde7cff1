package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseDoctorFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    bool
		wantErr bool
	}{
		{nil, false, false},
		{[]string{"-autocomplete"}, true, false},
		{[]string{"--autocomplete"}, true, false},
		{[]string{"-nope"}, false, true},
		{[]string{"extra"}, false, true},
	} {
		o, err := parseDoctorFlags(tc.args)
		if (err != nil) != tc.wantErr || o.autocomplete != tc.want {
			t.Errorf("parseDoctorFlags(%q) = %+v, %v; want autocomplete=%v, error=%v", tc.args, o, err, tc.want, tc.wantErr)
		}
	}
}

// The timeline reads the probe's JSON (kernels/autocomplete_probe.py --json) as it prints it.
func TestAutocompleteTimeline(t *testing.T) {
	const probe = `{"load_before": 9.2, "cpus": 2, "gopls_cache": "", "kernel_ready_s": 0.77, "first_cell_status": "ok",
	  "first_cell_s": 10.77, "complete": {"answered_s": 21.5, "after_first_cell_s": 10.73,
	  "attempts": [["error", 10.8, 8.1, false], ["ok", 19.4, 2.1, true]]},
	  "inspect": {"answered_s": null, "after_first_cell_s": null, "attempts": []}, "load_after": 9.4}`
	var tl probeTimeline
	if err := json.Unmarshal([]byte(probe), &tl); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(autocompleteTimeline(tl), "\n")
	for _, w := range []string{"first cell (imports pkg/view/display) ended at 10.8 s (ok)", "10.8 s: error, no after 8.1 s",
		"19.4 s: ok, answered after 2.1 s", "load average 9.2 → 9.4 on 2 CPUs", "~/.cache/gopls"} {
		if !strings.Contains(got, w) {
			t.Errorf("timeline lacks %q:\n%s", w, got)
		}
	}
	if tl.Inspect.AfterFirstCellS != nil || *tl.Complete.AfterFirstCellS != 10.73 {
		t.Errorf("parsed %+v %+v", tl.Complete, tl.Inspect)
	}
}
