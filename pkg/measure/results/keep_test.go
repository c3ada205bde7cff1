package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// What a cell keeps is recalled only by cells of the same run: another run's keep, a failed
// measuring cell's, and an unstamped (older) file are refused with the reason; a good one carries
// its stamp (time, devices, sizes).
func TestRecallRefusesWhatThisRunDidNotMeasure(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	t.Setenv(RunEnv, "session A")
	rs := []Result{{Label: "a", Params: map[string]int{"batch": 1}, Provenance: Provenance{Device: "xla:cpu"}},
		{Label: "b", Params: map[string]int{"batch": 2}, Provenance: Provenance{Device: "xla:cpu"}}}
	if err := Keep("k", rs); err != nil {
		t.Fatal(err)
	}
	got, k, err := RecallStamped[[]Result]("k")
	if err != nil || len(got) != 2 || k.Count != 2 || len(k.Sizes) != 2 || k.Devices[0] != "xla:cpu" {
		t.Fatalf("same run: %v, %d results, stamp %+v", err, len(got), k)
	}
	if line := k.Line(); !strings.HasPrefix(line, "measured live at ") || !strings.Contains(line, "on xla:cpu (2 results, 2 sizes)") {
		t.Errorf("Line: %q", line)
	}

	t.Setenv(RunEnv, "session B") // a new kernel session: the keep is from another run
	if _, err := Recall("k"); !errors.Is(err, ErrNotThisRun) || !strings.Contains(err.Error(), "another run (session A)") {
		t.Errorf("another run's keep: %v", err)
	}

	if err := KeepOr("k", nil, errors.New("out of memory")); err == nil || err.Error() != "out of memory" {
		t.Errorf("KeepOr returned %v", err)
	}
	if _, err := Recall("k"); !errors.Is(err, ErrNotThisRun) || !strings.Contains(err.Error(), "failed at") || !strings.Contains(err.Error(), "out of memory") {
		t.Errorf("after a failed measuring cell: %v", err)
	}

	if err := os.WriteFile(filepath.Join(CacheDir(), "old.json"), []byte(`[{"label":"x"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Recall("old"); !errors.Is(err, ErrNotThisRun) || !strings.Contains(err.Error(), "no stamp") {
		t.Errorf("unstamped keep: %v", err)
	}
	if _, err := Recall("none"); err == nil || !strings.Contains(err.Error(), "nothing kept") {
		t.Errorf("nothing kept: %v", err)
	}
	// A cache is for any run.
	if err := StoreCache("c", 42); err != nil {
		t.Fatal(err)
	}
	t.Setenv(RunEnv, "session C")
	if v, ok := LoadCache[int]("c"); !ok || v != 42 {
		t.Errorf("LoadCache: %v %v", v, ok)
	}
}

// Two kernels running the same lesson at once (learners sharing one cache) each recall their own
// keep, not the one the other wrote last.
func TestRunsSideBySideRecallTheirOwn(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	t.Setenv(RunEnv, "kernel A")
	if err := KeepValue("side-by-side", "A's"); err != nil {
		t.Fatal(err)
	}
	t.Setenv(RunEnv, "kernel B")
	if err := KeepValue("side-by-side", "B's"); err != nil {
		t.Fatal(err)
	}
	t.Setenv(RunEnv, "kernel A")
	if v, err := RecallValue[string]("side-by-side"); err != nil || v != "A's" {
		t.Errorf("kernel A recalls %q, %v; want its own", v, err)
	}
	t.Setenv(RunEnv, "kernel C")
	if _, err := RecallValue[string]("side-by-side"); err == nil {
		t.Error("a third run recalls another run's keep")
	}
}

// Several notebooks of one learner keeping under the same name at once (tabs on one server): a recall
// always reads a whole file, never half of one.
func TestKeepIsAtomic(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	big := make([]Result, 200)
	if err := KeepValue("shared", big); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	errs := make(chan error, 100)
	var writers sync.WaitGroup
	for w := 0; w < 3; w++ {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if err := KeepValue("shared", big); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := 0; i < 300; i++ {
		if _, err := RecallValue[[]Result]("shared"); err != nil {
			errs <- err
			break
		}
	}
	close(done)
	writers.Wait() // before the temporary directory goes
	select {
	case err := <-errs:
		t.Fatalf("a concurrent keep/recall failed: %v", err)
	default:
	}
}
