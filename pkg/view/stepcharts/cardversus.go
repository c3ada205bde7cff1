package stepcharts

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// NoRecordingYet is CardVersus's one line while lessons/reference/ holds no recording.
const NoRecordingYet = "model vs recording: no recording yet under lessons/reference/<gpu>/ — see lessons/AUTHORING.md, “Measurements, experiments and recorded GPU results”, for recording on a lent GPU"

// CardVersus is the model card's "model vs recording" list: for every recording under
// lessons/reference/<device>/<lesson>/<name>.json (read from disk, so it does not depend on which
// lessons are imported), the GPU model against each recorded training step of the course
// (ModelVersus), one line per result, prefixed with the device and lesson/name. A recording without
// such a step gets one line saying the model is not compared with it. With nothing recorded the
// list is the one line NoRecordingYet.
func CardVersus() ([]string, error) {
	var out []string
	for _, dev := range experiments.RecordedDevices() {
		files, err := filepath.Glob(filepath.Join(experiments.ReferenceDir(), dev, "*", "*.json"))
		if err != nil {
			return out, err
		}
		for _, p := range files {
			rs, err := results.Load(p)
			if err != nil {
				return out, err
			}
			id := filepath.Base(filepath.Dir(p)) + "/" + strings.TrimSuffix(filepath.Base(p), ".json")
			lines := ModelVersus(rs)
			if len(lines) == 0 {
				lines = []string{fmt.Sprintf("recorded (%d results); none is the course's training step, so the card does not compare the model with it", len(rs))}
			}
			for _, l := range lines {
				out = append(out, dev+" · "+id+": "+l)
			}
		}
	}
	if len(out) == 0 {
		return []string{NoRecordingYet}, nil
	}
	return out, nil
}
