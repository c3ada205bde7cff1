package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// The attacks of issue 37 on `whygpu record -import`: each test crafts the archive an attacker would
// hand a course author and runs the import on it (importRecording, what the command calls).

const importTestModel = "TEST IMPORT GPU (crafted archive)"

// importArchive is a recording of one experiment (99-fake/tiny-matmul) on importTestModel, as
// gpu-record.sh packs it, with edit applied to the manifest entry before packing.
func importArchive(t *testing.T, edit func(*ManifestEntry), extra map[string][]byte) string {
	t.Helper()
	slug := experiments.Slug(importTestModel)
	date := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	rs := []results.Result{{
		Workload: "matmul", Label: "matmul 64×64 float32", DType: "float32", Params: map[string]int{"m": 64},
		FLOPs: 2 * 64 * 64 * 64, Bytes: 3 * 64 * 64 * 4, RelErr: -1,
		Stats: results.Stats{N: 3, Median: time.Millisecond, Min: time.Millisecond, P90: time.Millisecond, Mean: time.Millisecond},
		Provenance: results.Provenance{Device: "xla:cuda", Model: importTestModel, PJRTVersion: "0.104", GoMLX: "v0.28.2",
			GoXLA: "v0.4.1", Go: "go1.26", Host: "gpu-box", Date: date},
	}}
	resJSON, err := json.Marshal(rs)
	if err != nil {
		t.Fatal(err)
	}
	e := ManifestEntry{ID: "99-fake/tiny-matmul", File: "99-fake/tiny-matmul.json", Chart: "99-fake/tiny-matmul.svg", Results: 1, Seconds: 1}
	if edit != nil {
		edit(&e)
	}
	man := Manifest{Device: "xla:cuda", Model: importTestModel, Scale: "laptop", Host: "gpu-box", Command: "whygpu record",
		Build: map[string]string{"go": "go1.26"}, Updated: date, Experiments: []ManifestEntry{e}}
	manJSON, err := json.Marshal(man)
	if err != nil {
		t.Fatal(err)
	}
	ref := "recording/reference/" + slug + "/"
	files := map[string][]byte{
		"recording/summary.txt":          []byte("crafted\n"),
		ref + "record.json":              manJSON,
		ref + "99-fake/tiny-matmul.json": resJSON,
		ref + "99-fake/tiny-matmul.svg":  []byte("<svg/>"),
		ref + "01-race/step-sweep.json":  []byte("junk, not results"),
	}
	for k, v := range extra {
		files[ref+k] = v
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, b := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "recording.tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// importRoot points lessons' reference folder at a fresh temporary checkout and returns it.
func importRoot(t *testing.T) string {
	root := t.TempDir()
	t.Setenv("WHYGPU_ROOT", root)
	return filepath.Join(root, "lessons", "reference")
}

func TestImportWellFormedArchive(t *testing.T) {
	ref := importRoot(t)
	var out bytes.Buffer
	if err := importRecording(importArchive(t, nil, nil), &out); err != nil {
		t.Fatalf("a well-formed archive: %v\n%s", err, out.String())
	}
	dev := filepath.Join(ref, experiments.Slug(importTestModel))
	for _, f := range []string{"99-fake/tiny-matmul.json", "99-fake/tiny-matmul.svg", "record.json"} {
		if _, err := os.Stat(filepath.Join(dev, f)); err != nil {
			t.Errorf("not installed: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(dev, "01-race", "step-sweep.json")); err == nil {
		t.Errorf("a file the manifest does not list was installed")
	}
}

// Attack 10: a manifest's chart names another lesson's results (or another device's folder, or a
// file outside lessons/reference): the import must refuse it and write nothing there.
func TestImportRefusesAChartThatIsNotItsResultsSVG(t *testing.T) {
	for _, chart := range []string{
		"01-race/step-sweep.json",              // another lesson's results, junk installed over them
		"99-fake/tiny-matmul.json",             // its own results file
		"../other-gpu/01-race/step-sweep.json", // another device's folder
		"../../../go.mod",                      // out of lessons/reference altogether
		"99-fake/other.svg",                    // an SVG, but not its own
	} {
		t.Run(strings.ReplaceAll(chart, "/", "_"), func(t *testing.T) {
			ref := importRoot(t)
			extra := map[string][]byte{}
			if !strings.Contains(chart, "..") && chart != "99-fake/tiny-matmul.json" { // the archive holds the file it names
				extra[chart] = []byte("junk, not results")
			}
			var out bytes.Buffer
			err := importRecording(importArchive(t, func(e *ManifestEntry) { e.Chart = chart }, extra), &out)
			if err == nil || !strings.Contains(err.Error(), "chart") {
				t.Errorf("chart %q: want a refusal naming the chart, got %v\n%s", chart, err, out.String())
			}
			if rs, err := experiments.Recorded("01-race", "step-sweep"); err != nil || len(rs) != 0 {
				t.Errorf("lesson 01's recorded step sweep now reads %d result(s), %v", len(rs), err)
			}
			_ = filepath.Walk(filepath.Dir(filepath.Dir(ref)), func(p string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() {
					t.Errorf("written although refused: %s", p)
				}
				return nil
			})
		})
	}
}

// Attack 10, second half: a symlink already under lessons/reference/ (a device folder or a lesson
// folder pointing elsewhere) must not be written through.
func TestImportRefusesToWriteThroughASymlink(t *testing.T) {
	for _, link := range []string{"", "99-fake"} { // the device's folder, the lesson's folder
		t.Run("link="+link, func(t *testing.T) {
			ref := importRoot(t)
			elsewhere := t.TempDir()
			dev := filepath.Join(ref, experiments.Slug(importTestModel))
			at := filepath.Join(dev, link)
			if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, at); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err := importRecording(importArchive(t, nil, nil), &out)
			if err == nil || !strings.Contains(err.Error(), "symlink") {
				t.Errorf("want a refusal naming the symlink, got %v\n%s", err, out.String())
			}
			entries, _ := os.ReadDir(elsewhere)
			if len(entries) != 0 {
				t.Errorf("written through the symlink %s into %s: %v", at, elsewhere, entries)
			}
		})
	}
}

// bombArchive writes an archive of n empty files whose names are nameLen bytes each, the way an
// attacker keeps it small: the names differ only in their last six bytes, so every entry's bytes are
// one long part that repeats (compressed once, as one gzip member) and a short part of its own
// (a member each); gzip readers read concatenated members as one stream.
func bombArchive(t *testing.T, n, nameLen int) (string, int64) {
	t.Helper()
	filler := "recording/" + strings.Repeat("a", nameLen-len("recording/")-6)
	entry := func(i int) []byte {
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		name := fmt.Sprintf("%s%06d", filler, i)
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			t.Fatal(err)
		}
		if err := tw.Flush(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	member := func(b []byte) []byte {
		var out bytes.Buffer
		gz, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
		gz.Write(b)
		gz.Close()
		return out.Bytes()
	}
	var out bytes.Buffer
	if nameLen <= 100 { // short names sit in the tar header itself: just compress the whole
		var all bytes.Buffer
		for i := 0; i < n; i++ {
			all.Write(entry(i))
		}
		all.Write(make([]byte, 1024)) // the end of the archive
		out.Write(member(all.Bytes()))
	} else {
		first, second := entry(0), entry(1)
		at := bytes.Index(first, []byte(filler)) + len(filler)
		if at < len(filler) || len(first) != len(second) || !bytes.Equal(first[:at], second[:at]) ||
			!bytes.Equal(first[at+6:], second[at+6:]) {
			t.Fatal("the entries differ beyond their names' last six bytes")
		}
		repeated, rest := member(first[:at]), first[at+6:]
		for i := 0; i < n; i++ {
			out.Write(repeated)
			out.Write(member(append([]byte(fmt.Sprintf("%06d", i)), rest...)))
		}
		out.Write(member(make([]byte, 1024)))
	}
	p := filepath.Join(t.TempDir(), "bomb.tar.gz")
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, int64(out.Len())
}

// Attack 9: 3,000 empty entries with 1 MB names in a 3 MB archive. The import refuses it, allocating
// less than twice its byte cap, and quickly.
func TestImportRefusesANameBomb(t *testing.T) {
	importRoot(t)
	for _, c := range []struct {
		what      string
		n, length int
		want      string
	}{
		{"long names", 3000, 1<<20 - 1024, "a name of"}, // 1 MB with the PAX record: tar's own limit,
		{"many entries", maxImportEntries + 1, 40, "entries, more than"},
	} {
		t.Run(c.what, func(t *testing.T) {
			bomb, size := bombArchive(t, c.n, c.length)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			err := importRecording(bomb, io.Discard)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d entries with %d-byte names, a %d-byte archive: %v after %v, %d MB allocated",
				c.n, c.length, size, err, took.Round(time.Millisecond), alloc>>20)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("want a refusal naming the %s, got %v", c.want, err)
			}
			if alloc > 2*maxImportAll {
				t.Errorf("the import allocated %d MB, more than twice its cap of %d MB", alloc>>20, maxImportAll>>20)
			}
			if took > 10*time.Second {
				t.Errorf("refusing it took %v", took)
			}
		})
	}
}
