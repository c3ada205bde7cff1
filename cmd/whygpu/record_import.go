package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/gpu-course/whygpu/lessons/roofline"
	"github.com/gpu-course/whygpu/lessons/smallgpt"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/view/stepcharts"
)

// The archive scripts/gpu-record.sh brings back from a GPU machine (recording.tar.gz):
//
//	recording/summary.txt, preflight.txt, plan.txt, record.txt, compare.json, … what ran where, how long
//	recording/reference/<gpu-slug>/record.json              the manifest (Manifest)
//	recording/reference/<gpu-slug>/<lesson>/<name>.json/.svg each experiment's results and chart
//
// importRecording checks it and puts it where lessons read recordings.
const (
	archiveTop       = "recording"
	maxImportFile    = 32 << 20  // bytes per file in an archive
	maxImportAll     = 256 << 20 // bytes in all, names included
	maxImportEntries = 4096      // entries (files and folders): a recording of every experiment has a few hundred
	maxImportName    = 512       // bytes in an entry's name: the longest a recording writes is under 150
	maxRunLog        = 1 << 20   // a run log larger than this is left out of lessons/reference (it stays in the archive)
)

// importRecording unpacks the archive file into experiments.ReferenceDir()/<gpu-slug>/ and checks,
// before anything is written, that it is whole: one device, a manifest that parses, every recorded
// experiment's results present and loadable, and every result's provenance naming that device and
// model, a date, and the GoMLX, Go and PJRT versions of a live run. It merges the manifest with one
// already there (a second call's group adds to the first's), keeps the run's logs under
// <gpu-slug>/runs/<time>/, then reads every experiment back the way lessons do (experiments.Recorded)
// and prints the model-vs-recording lines the lessons will show.
func importRecording(file string, w io.Writer) error {
	files, err := readArchive(file)
	if err != nil {
		return fmt.Errorf("record -import: %s: %w", file, err)
	}
	slug, man, err := archiveManifest(files)
	if err != nil {
		return fmt.Errorf("record -import: %s: %w", file, err)
	}
	ok, install, err := checkArchive(file, files, slug, man, w)
	if err != nil {
		return err
	}
	devDir := filepath.Join(experiments.ReferenceDir(), slug)
	merged := loadManifest(filepath.Join(devDir, "record.json"))
	if merged.Model != "" && merged.Model != man.Model {
		return fmt.Errorf("record -import: %s already holds a recording of %q, not %q", devDir, merged.Model, man.Model)
	}
	runDir, logs := runLogs(devDir, man, files)
	targets := []string{filepath.Join(devDir, "record.json")}
	for rel := range install {
		targets = append(targets, filepath.Join(devDir, filepath.FromSlash(rel)))
	}
	for rel := range logs {
		targets = append(targets, filepath.Join(runDir, rel))
	}
	for _, p := range targets {
		if err := noSymlinkUnder(experiments.ReferenceDir(), p); err != nil {
			return fmt.Errorf("record -import: %w", err)
		}
	}
	if err := installResults(devDir, install, merged, man, ok); err != nil {
		return err
	}
	for rel, b := range logs {
		if err := writeFile(filepath.Join(runDir, rel), b); err != nil {
			return fmt.Errorf("record -import: %w", err)
		}
	}
	names := slices.Sorted(maps.Keys(logs))
	fmt.Fprintf(w, "import: %d experiment(s) of %s (%s, recorded %s) → %s; run logs → %s (%s)\n",
		len(ok), man.Model, man.Device, man.Updated.Format("2006-01-02"), devDir, runDir, strings.Join(names, ", "))
	return readBack(w, man, ok)
}

// checkArchive checks every result of the archive before anything is written: each recorded
// experiment's results decode strictly, carry the manifest's provenance and a median time. It
// returns the experiments to import and their files (results and charts) by path under the device's
// directory; failed and skipped experiments are listed on w and left out.
func checkArchive(file string, files map[string][]byte, slug string, man *Manifest, w io.Writer) ([]ManifestEntry, map[string][]byte, error) {
	refPrefix := path.Join(archiveTop, "reference", slug) + "/"
	stage, err := os.MkdirTemp("", "whygpu-import-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(stage)
	var ok []ManifestEntry
	install := map[string][]byte{} // path under <slug>/ → contents
	for _, e := range man.Experiments {
		if e.Error != "" || e.Skipped != "" {
			fmt.Fprintf(w, "  %-8s %-40s %s%s\n", map[bool]string{true: "failed", false: "skipped"}[e.Error != ""], e.ID, e.Error, e.Skipped)
			continue
		}
		rs, b, err := stagedResults(files, refPrefix, e, stage)
		if err != nil {
			return nil, nil, fmt.Errorf("record -import: %s: %s: %w", file, e.ID, err)
		}
		for i, r := range rs {
			if err := checkProvenance(r.Provenance, man, slug); err != nil {
				return nil, nil, fmt.Errorf("record -import: %s: %s, result %d (%s): %w", file, e.ID, i, r.Label, err)
			}
			if r.Stats.Median <= 0 {
				return nil, nil, fmt.Errorf("record -import: %s: %s, result %d (%s): no median time", file, e.ID, i, r.Label)
			}
		}
		install[e.File] = b
		if want := strings.TrimSuffix(e.File, ".json") + ".svg"; e.Chart != "" && e.Chart != want {
			return nil, nil, fmt.Errorf("record -import: %s: %s: chart %q is not its results' own chart %q", file, e.ID, e.Chart, want)
		}
		if e.Chart != "" {
			if svg, found := files[refPrefix+e.Chart]; found {
				install[e.Chart] = svg
			} else {
				e.Chart = ""
			}
		}
		ok = append(ok, e)
	}
	if len(ok) == 0 {
		return nil, nil, fmt.Errorf("record -import: %s recorded no experiment (%d failed or skipped): nothing to import", file, len(man.Experiments))
	}
	return ok, install, nil
}

// installResults writes the checked results and charts under devDir and the manifest there merged
// with this recording's: its stamp, the experiments recorded before, and ok put over them.
func installResults(devDir string, install map[string][]byte, merged, man *Manifest, ok []ManifestEntry) error {
	for rel, b := range install {
		if err := writeFile(filepath.Join(devDir, filepath.FromSlash(rel)), b); err != nil {
			return fmt.Errorf("record -import: %w", err)
		}
	}
	exps := merged.Experiments
	*merged = *man
	merged.Experiments = exps
	for _, e := range ok {
		merged.put(e)
	}
	if err := writeJSON(filepath.Join(devDir, "record.json"), merged); err != nil {
		return fmt.Errorf("record -import: %w", err)
	}
	return nil
}

// runLogs picks the archive's top-level files (the run's logs, each at most maxRunLog bytes) to
// copy to devDir/runs/<recording time>/, and returns that directory and the logs by name.
func runLogs(devDir string, man *Manifest, files map[string][]byte) (string, map[string][]byte) {
	runDir := filepath.Join(devDir, "runs", man.Updated.UTC().Format("20060102T150405Z"))
	logs := map[string][]byte{}
	for name, b := range files {
		rel := strings.TrimPrefix(name, archiveTop+"/")
		if strings.Contains(rel, "/") || len(b) > maxRunLog {
			continue
		}
		logs[rel] = b
	}
	return runDir, logs
}

// noSymlinkUnder refuses a path p under root when anything on the way from root to p that exists
// already (a device's folder, a lesson's folder, the file) is a symbolic link: an import writes into
// lessons/reference/ and nowhere else, whatever was planted there.
func noSymlinkUnder(root, p string) error {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s is not under %s", p, root)
	}
	at := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, part)
		info, err := os.Lstat(at)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink: an import writes only real files and folders under %s (remove the link, then import again)", at, root)
		}
	}
	return nil
}

// readBack reads every imported experiment the way lessons do and prints what they will show
// beside the GPU model.
func readBack(w io.Writer, man *Manifest, ok []ManifestEntry) error {
	versus := 0
	for _, e := range ok {
		lesson, name, _ := strings.Cut(e.ID, "/")
		all, err := experiments.Recorded(lesson, name)
		if err != nil {
			return fmt.Errorf("record -import: lessons cannot read %s: %w", e.ID, err)
		}
		rs := experiments.Filter(all, func(r results.Result) bool { return r.Provenance.Model == man.Model })
		if len(rs) != e.Results || !rs[0].Provenance.Recorded {
			return fmt.Errorf("record -import: lessons read %d result(s) of %s recorded on %s, want %d", len(rs), e.ID, man.Model, e.Results)
		}
		lines := stepcharts.ModelVersus(rs)
		switch e.ID {
		case "02-roofline/ridge-batch":
			lines = append(lines, roofline.ModelVersus(rs)...)
		case "09-small-gpt/train":
			for _, row := range smallgpt.ModelVersusRows(rs) {
				lines = append(lines, row[len(row)-1])
			}
		}
		variant := ""
		if e.Variant != "" {
			variant = " (" + e.Variant + ")"
		}
		fmt.Fprintf(w, "  read %-40s %3d result(s)%s\n", e.ID, len(rs), variant)
		for _, l := range lines {
			fmt.Fprintf(w, "      %s\n", l)
		}
		versus += len(lines)
	}
	fmt.Fprintf(w, "import: lessons read all %d experiment(s); %d model-vs-recording line(s)\n", len(ok), versus)
	return nil
}

// readArchive returns the regular files of a .tar.gz by name, refusing links, absolute or escaping
// names and oversized files.
func readArchive(file string) (map[string][]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("not a gzip archive (want the recording.tar.gz gpu-record.sh writes): %w", err)
	}
	tr := tar.NewReader(gz)
	files := map[string][]byte{}
	total, entries := 0, 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the archive (cut short?): %w", err)
		}
		if entries++; entries > maxImportEntries {
			return nil, fmt.Errorf("%d entries, more than %d: not a recording", entries, maxImportEntries)
		}
		if len(h.Name) > maxImportName {
			return nil, fmt.Errorf("an entry %q… with a name of %d bytes, more than %d: not a recording", h.Name[:60], len(h.Name), maxImportName)
		}
		if total += len(h.Name); total > maxImportAll {
			return nil, fmt.Errorf("more than %d bytes in all", maxImportAll)
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		switch {
		case h.Typeflag == tar.TypeDir:
			continue
		case h.Typeflag != tar.TypeReg:
			return nil, fmt.Errorf("%s: not a regular file (links are refused)", h.Name)
		case path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") || !strings.HasPrefix(name, archiveTop+"/"):
			return nil, fmt.Errorf("%s: outside %s/", h.Name, archiveTop)
		case h.Size > maxImportFile:
			return nil, fmt.Errorf("%s: %d bytes, more than %d", h.Name, h.Size, maxImportFile)
		}
		b, err := io.ReadAll(io.LimitReader(tr, maxImportFile+1))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", h.Name, err)
		}
		if total += len(b); total > maxImportAll {
			return nil, fmt.Errorf("more than %d bytes in all", maxImportAll)
		}
		files[name] = b
	}
	return files, nil
}

// archiveManifest finds the one device's manifest in the archive and parses it.
func archiveManifest(files map[string][]byte) (string, *Manifest, error) {
	var slugs []string
	for name := range files {
		rest, found := strings.CutPrefix(name, archiveTop+"/reference/")
		if slug, file, _ := strings.Cut(rest, "/"); found && file == "record.json" {
			slugs = append(slugs, slug)
		}
	}
	if len(slugs) != 1 {
		return "", nil, fmt.Errorf("want one %s/reference/<gpu>/record.json, found %d (was the recording cut before its first experiment? see summary.txt)", archiveTop, len(slugs))
	}
	slug := slugs[0]
	man := &Manifest{}
	dec := json.NewDecoder(bytes.NewReader(files[path.Join(archiveTop, "reference", slug, "record.json")]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(man); err != nil {
		return "", nil, fmt.Errorf("record.json: %w", err)
	}
	switch {
	case man.Device == "" || man.Model == "" || man.Updated.IsZero() || man.Build["go"] == "":
		return "", nil, fmt.Errorf("record.json lacks its device, model, date or build: %+v", man)
	case experiments.Slug(man.Model) != slug:
		return "", nil, fmt.Errorf("record.json names %q, whose folder is %s, not %s", man.Model, experiments.Slug(man.Model), slug)
	case len(man.Experiments) == 0:
		return "", nil, errors.New("record.json lists no experiment")
	}
	return slug, man, nil
}

// stagedResults decodes experiment e's results from the archive, strictly, and loads them through a
// file as lessons do.
func stagedResults(files map[string][]byte, prefix string, e ManifestEntry, stage string) ([]results.Result, []byte, error) {
	if e.File == "" || strings.Contains(e.File, "..") || path.IsAbs(e.File) || !strings.HasSuffix(e.File, ".json") {
		return nil, nil, fmt.Errorf("bad file %q in the manifest", e.File)
	}
	if want := path.Join(strings.Split(e.ID, "/")...) + ".json"; e.File != want {
		return nil, nil, fmt.Errorf("manifest file %q, want %q (where lessons look)", e.File, want)
	}
	b, found := files[prefix+e.File]
	if !found {
		return nil, nil, fmt.Errorf("%s is not in the archive", prefix+e.File)
	}
	// The schema: exactly results.Result's fields, as written (a result loaded by lessons is marked
	// recorded; the file itself must hold live measurements).
	var rs []results.Result
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rs); err != nil {
		return nil, nil, fmt.Errorf("%s does not hold results.Result values: %w", e.File, err)
	}
	if len(rs) != e.Results || len(rs) == 0 {
		return nil, nil, fmt.Errorf("%d result(s) in the file, the manifest says %d", len(rs), e.Results)
	}
	p := filepath.Join(stage, filepath.FromSlash(e.File))
	if err := writeFile(p, b); err != nil {
		return nil, nil, err
	}
	if loaded, err := results.Load(p); err != nil || len(loaded) != len(rs) {
		return nil, nil, fmt.Errorf("results.Load: %d result(s), %v", len(loaded), err)
	}
	return rs, b, nil
}

// checkProvenance refuses a result that does not name the manifest's device and model, its date,
// and the versions of a live run.
func checkProvenance(p results.Provenance, man *Manifest, slug string) error {
	switch {
	case p.Recorded:
		return errors.New("marked recorded: a recording holds live measurements only")
	case p.Device != man.Device || p.Model != man.Model:
		return fmt.Errorf("provenance %s (%s), the manifest %s (%s)", p.Device, p.Model, man.Device, man.Model)
	case experiments.Slug(p.Model) != slug:
		return fmt.Errorf("model %q does not belong in %s/", p.Model, slug)
	case p.Date.IsZero() || p.GoMLX == "" || p.Go == "" || p.PJRTVersion == "":
		return fmt.Errorf("provenance lacks its date or the GoMLX, Go or PJRT version: %+v", p)
	}
	return nil
}

// writeFile writes b to p, refusing to follow a symlink at p (noSymlinkUnder checks the folders).
func writeFile(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
