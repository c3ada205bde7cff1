package all

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/lessontest"
	"github.com/gpu-course/whygpu/lessons/batching"
	"github.com/gpu-course/whygpu/lessons/bigpicture"
	"github.com/gpu-course/whygpu/lessons/capstone"
	"github.com/gpu-course/whygpu/lessons/datamovement"
	"github.com/gpu-course/whygpu/lessons/dataparallel"
	"github.com/gpu-course/whygpu/lessons/feeding"
	"github.com/gpu-course/whygpu/lessons/memory"
	"github.com/gpu-course/whygpu/lessons/precision"
	"github.com/gpu-course/whygpu/lessons/race"
	"github.com/gpu-course/whygpu/lessons/roofline"
	"github.com/gpu-course/whygpu/lessons/smallgpt"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
	"github.com/gpu-course/whygpu/pkg/teach/recall"
)

// questions is every prediction a lesson notebook asks, by the name a notebook cell uses.
var questions = map[string]predict.Question{
	"race.PredictSplit": race.PredictSplit, "race.PredictHookFLOPs": race.PredictHookFLOPs, "race.PredictDecodeBudgets": race.PredictDecodeBudgets,
	"roofline.PredictRidge": roofline.PredictRidge, "roofline.PredictMatmul": roofline.PredictMatmul,
	"roofline.PredictFlatBatch": roofline.PredictFlatBatch, "datamovement.PredictBusOverHBM": datamovement.PredictBusOverHBM,
	"batching.PredictGPUFlat":       batching.PredictGPUFlat,
	"batching.PredictNarrowSpeedup": batching.PredictNarrowSpeedup, "batching.PredictWidth": batching.PredictWidth,
	"datamovement.PredictUpload": datamovement.PredictUpload, "datamovement.PredictSync": datamovement.PredictSync,
	"precision.PredictBF16": precision.PredictBF16, "precision.PredictUnderflow": precision.PredictUnderflow,
	"precision.PredictInt8": precision.PredictInt8, "precision.PredictTF32": precision.PredictTF32,
	"precision.PredictDecode8": precision.PredictDecode8, "memory.PredictUpdateRate": memory.PredictUpdateRate,
	"memory.PredictGrowth": memory.PredictGrowth, "memory.PredictLargest": memory.PredictLargest,
	"feeding.PredictOneWorker": feeding.PredictOneWorker, "feeding.PredictEightWorkers": feeding.PredictEightWorkers,
	"memory.PredictStateH100": memory.PredictStateH100, "memory.PredictUpdateShare": memory.PredictUpdateShare,
	"feeding.PredictFused":  feeding.PredictFused,
	"bigpicture.PredictMFU": bigpicture.PredictMFU, "bigpicture.PredictToy": bigpicture.PredictToy, "bigpicture.PredictSpeedup": bigpicture.PredictSpeedup,
	"smallgpt.PredictLossFall": smallgpt.PredictLossFall, "smallgpt.PredictGEMMShare": smallgpt.PredictGEMMShare, "smallgpt.PredictContext": smallgpt.PredictContext,
	"capstone.PredictHere": capstone.PredictHere, "capstone.PredictBest": capstone.PredictBest, "capstone.PredictEnergy": capstone.PredictEnergy,
	"dataparallel.PredictAllReduce": dataparallel.PredictAllReduce, "dataparallel.PredictAdam": dataparallel.PredictAdam, "dataparallel.PredictLinks": dataparallel.PredictLinks,
}

// cards is every recall card computed from the learner's numbers, by the name a notebook cell uses.
var cards = map[string]predict.Card{
	"race.MineHook": race.MineHook, "roofline.MineRidge": roofline.MineRidge, "batching.MineNarrow": batching.MineNarrow,
	"datamovement.MineUpload": datamovement.MineUpload, "precision.MineBF16": precision.MineBF16, "memory.MineLargest": memory.MineLargest,
	"feeding.MineWorkers": feeding.MineWorkers, "bigpicture.MineMFU": bigpicture.MineMFU, "smallgpt.MineTokens": smallgpt.MineTokens,
	"capstone.MineBest": capstone.MineBest, "dataparallel.MineAdam": dataparallel.MineAdam,
}

// inPredictionPass are the lessons the prediction pass covered; a lesson that lands later is reported
// (t.Log) until its author adds its predictions, then belongs here.
var inPredictionPass = map[string]bool{"01": true, "02": true, "03": true, "04": true, "05": true, "06": true, "07": true, "08": true, "09": true, "10": true, "11": true}

var mineCall = regexp.MustCompile(`display\.RecallMine\(([a-z]+\.[A-Za-z0-9]+)\)`)

var predictCall = regexp.MustCompile(`display\.(Predict|Reveal)\(([a-z]+\.[A-Za-z0-9]+)`)

// TestEveryLessonPredictsTwice: each lesson notebook asks at least two predictions, each before a
// cell that reveals it, every question is complete, its key is unique and starts with the lesson's
// number, and a measurement that was never made says which cell to run instead of failing.
func TestEveryLessonPredictsTwice(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir()) // nothing kept: every Answer must fail cleanly
	keys := map[string]string{}
	for name, q := range questions {
		if err := q.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if other, dup := keys[q.Key]; dup {
			t.Errorf("%s and %s share the key %q", name, other, q.Key)
		}
		keys[q.Key] = name
		if q.Model != "" && !modeled(q) && !saysNotMeasured(q.Text) {
			t.Errorf("%s: its reveal says %q, but its text does not say it is answered by a model, a datasheet or a formula", name, q.Model)
		}
		if q.Model == "" && (modeled(q) || saysNotMeasured(q.Text)) {
			// Review M1 (2026-12-04): a reveal headed "measured:" over a datasheet's or a model's number.
			t.Errorf("%s: its text says the answer is not a measurement, but its reveal would print \"measured:\" (set Model)", name)
		}
		if modeled(q) {
			// A GPU question answered by the course's model or a datasheet: it needs no measurement, and its
			// reveal says where the answer comes from, by its Model label ("datasheet (not a measurement)")
			// or by a Why that starts with "Model".
			if v, err := q.Answer(); err != nil || v <= 0 || (q.Model == "" && !strings.HasPrefix(q.Why, "Model")) {
				t.Errorf("%s: a modeled answer must be positive and say it is not a measurement (a Model label, or a Why starting with \"Model\"): %v %v %q", name, v, err, q.Why)
			}
		} else if _, err := q.Answer(); err == nil {
			t.Errorf("%s: answered with nothing measured", name)
		} else if !strings.Contains(err.Error(), "run") {
			t.Errorf("%s: with nothing measured the error does not say what to run: %v", name, err)
		}
	}
	for name, c := range cards {
		if !strings.HasPrefix(c.Key, strings.SplitN(questionKeyOf(name), "/", 2)[0]) {
			t.Errorf("%s: key %q", name, c.Key)
		}
		if _, _, err := c.Make(); err == nil || !strings.Contains(err.Error(), "run") {
			t.Errorf("%s: with nothing measured: %v, want an error saying what to run", name, err)
		}
	}
	nbs, _ := filepath.Glob("../../notebooks/[01][0-9]-*.ipynb")
	for _, path := range nbs {
		lesson := filepath.Base(path)[:2]
		if lesson == "00" {
			continue // the set-up check measures nothing to predict
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var nb struct {
			Cells []struct {
				Type   string   `json:"cell_type"`
				Source []string `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(b, &nb); err != nil {
			t.Fatal(err)
		}
		mine := 0
		for _, c := range nb.Cells {
			for _, m := range mineCall.FindAllStringSubmatch(strings.Join(c.Source, ""), -1) {
				if _, ok := cards[m[1]]; !ok {
					t.Errorf("%s: %s is not in this test's list of cards", filepath.Base(path), m[1])
				}
				mine++
			}
		}
		if mine == 0 && inPredictionPass[lesson] {
			t.Errorf("%s: no recall card computed from the learner's numbers (display.RecallMine)", filepath.Base(path))
		}
		asked := map[string]int{} // question → cell of its Predict
		revealed := 0
		for i, c := range nb.Cells {
			for _, m := range predictCall.FindAllStringSubmatch(strings.Join(c.Source, ""), -1) {
				q, ok := questions[m[2]]
				if !ok {
					t.Errorf("%s cell %d: %s is not in this test's list of questions", filepath.Base(path), i, m[2])
					continue
				}
				if !strings.HasPrefix(q.Key, lesson+"/") {
					t.Errorf("%s cell %d: %s has key %q, not of lesson %s", filepath.Base(path), i, m[2], q.Key, lesson)
				}
				if m[1] == "Predict" {
					asked[m[2]] = i
				} else if at, ok := asked[m[2]]; !ok || at >= i {
					t.Errorf("%s cell %d: reveals %s before asking it", filepath.Base(path), i, m[2])
				} else {
					revealed++
				}
			}
		}
		if len(asked) < 2 || revealed < 2 {
			if !inPredictionPass[lesson] {
				// A lesson that landed after the prediction pass: say so without blocking its author.
				t.Logf("%s: %d predictions asked, %d revealed: add two (lessons/AUTHORING.md, \"Adding a prediction\")", filepath.Base(path), len(asked), revealed)
				continue
			}
			t.Errorf("%s: %d predictions asked, %d revealed; every lesson needs at least two of each", filepath.Base(path), len(asked), revealed)
		}
	}
}

// modeled says whether q is a GPU question the course's model answers (its text says so: "(answered
// by … a model)").
// saysNotMeasured reports whether a question's text says its answer comes from a model, a datasheet
// or a formula rather than a measurement ("GPU (datasheet model): …", "by the formula").
func saysNotMeasured(text string) bool {
	for _, w := range []string{"(answered by", "datasheet model", "by the formula", "(a model)"} {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

func modeled(q predict.Question) bool {
	return strings.Contains(q.Text, "(answered by") && strings.Contains(q.Text, "a model)")
}

// questionKeyOf is the lesson number of a card's package, from the questions of the same package.
func questionKeyOf(card string) string {
	pkg := strings.SplitN(card, ".", 2)[0]
	for name, q := range questions {
		if strings.HasPrefix(name, pkg+".") {
			return q.Key
		}
	}
	return ""
}

// TestEveryLessonsDeckAndExperiments checks what every lesson has, in one table: its recall deck
// (valid, its own, each section shown by its notebook and each display.Recall naming a section) and
// the experiments its notebook and `whygpu record` use. A lesson's own tests check what only it knows.
func TestEveryLessonsDeckAndExperiments(t *testing.T) {
	for _, l := range []struct {
		lesson      string
		deck        *recall.Deck
		experiments experiments.List
		names       []string
	}{
		{race.Lesson, race.Deck, race.Experiments, []string{race.StepSweepName, race.SmallLargeName}},
		{roofline.Lesson, roofline.Deck, roofline.Experiments, []string{"points"}},
		{batching.Lesson, batching.Deck, batching.Experiments, []string{batching.BatchSweepName, batching.WidthSweepName}},
		{datamovement.Lesson, datamovement.Deck, datamovement.Experiments, []string{"transfer-sweep", "resident", "sync-variants", "unsynced"}},
		{precision.Lesson, precision.Deck, precision.Experiments, []string{"matmul-dtypes", "mixed-precision"}},
		{memory.Lesson, memory.Deck, memory.Experiments, []string{"batch-memory"}},
		{feeding.Lesson, feeding.Deck, feeding.Experiments, []string{"workers-sweep", "launch-bound", "oversubscription"}},
		{bigpicture.Lesson, bigpicture.Deck, bigpicture.Experiments, []string{"step-rate", "batch1-inference"}},
		{smallgpt.Lesson, smallgpt.Deck, smallgpt.Experiments, []string{"train", "context-sweep", "step-parts"}},
		{dataparallel.Lesson, dataparallel.Deck, dataparallel.Experiments, []string{"allreduce"}},
		{capstone.Lesson, capstone.Deck, capstone.Experiments, []string{"step"}},
	} {
		t.Run(l.lesson, func(t *testing.T) {
			lessontest.Experiments(t, l.experiments, l.lesson, l.names...)
			lessontest.Deck(t, l.deck, l.lesson)
			lessontest.RecallSections(t, l.deck)
		})
	}
}
