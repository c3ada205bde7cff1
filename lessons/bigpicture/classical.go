package bigpicture

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Boosting is a small gradient-boosted model the learner trains on the CPU: Rounds decision stumps
// (trees of depth 1) fitted one after another to the residuals of a synthetic tabular regression
// of Rows rows and Features features, each feature cut into Bins histogram bins, as LightGBM and
// XGBoost's "hist" method do.
type Boosting struct {
	Rows, Features, Bins, Rounds int
	LearningRate                 float64
}

// DefaultBoosting trains in a few tens of milliseconds on a laptop core.
var DefaultBoosting = Boosting{Rows: 20000, Features: 16, Bins: 32, Rounds: 30, LearningRate: 0.3}

// Validate refuses sizes that would not train in seconds.
func (b Boosting) Validate() error {
	switch {
	case b.Rows < 100 || b.Rows > 1_000_000:
		return fmt.Errorf("%s: %d rows refused: use 100…1,000,000", Lesson, b.Rows)
	case b.Features < 1 || b.Features > 256:
		return fmt.Errorf("%s: %d features refused: use 1…256", Lesson, b.Features)
	case b.Bins < 2 || b.Bins > 256:
		return fmt.Errorf("%s: %d bins refused: use 2…256 (a bin index is one byte)", Lesson, b.Bins)
	case b.Rounds < 1 || b.Rounds > 1000:
		return fmt.Errorf("%s: %d rounds refused: use 1…1000", Lesson, b.Rounds)
	case b.LearningRate <= 0 || b.LearningRate > 1:
		return fmt.Errorf("%s: learning rate %g refused: use a value in (0, 1]", Lesson, b.LearningRate)
	case float64(b.Rows)*float64(b.Features)*float64(b.Rounds) > 2e9:
		return fmt.Errorf("%s: rows × features × rounds = %.3g refused: at most 2e9 histogram updates keep it in seconds", Lesson, float64(b.Rows)*float64(b.Features)*float64(b.Rounds))
	}
	return nil
}

// Boosted is a trained model's report.
type Boosted struct {
	Boosting
	Train            time.Duration // wall time of the rounds (binning included)
	MSEStart, MSEEnd float64       // mean squared error before the first stump and after the last
	Updates          float64       // histogram updates: rows × features × rounds
}

// Train builds the data (a seeded, non-linear target of the first features plus noise), bins each
// feature by quantiles, and fits the stumps: per round, per feature, a histogram of the residuals
// by bin (a scatter-add to a bin the data picks), then the best split's two leaf values.
func (b Boosting) Train() (Boosted, error) {
	if err := b.Validate(); err != nil {
		return Boosted{}, err
	}
	rng := rand.New(rand.NewPCG(8, 8))
	x := make([][]float64, b.Features)
	for f := range x {
		x[f] = make([]float64, b.Rows)
		for i := range x[f] {
			x[f][i] = rng.NormFloat64()
		}
	}
	y := make([]float64, b.Rows)
	for i := range y {
		v := 0.5 * rng.NormFloat64()
		if x[0][i] > 0.3 {
			v += 2
		}
		if b.Features > 1 && x[1][i] < -0.5 {
			v -= 1.5
		}
		if b.Features > 2 {
			v += math.Abs(x[2][i])
		}
		y[i] = v
	}
	t0 := time.Now()
	bins := make([][]uint8, b.Features)
	sorted := make([]float64, b.Rows)
	for f := range bins {
		copy(sorted, x[f])
		sort.Float64s(sorted)
		edges := make([]float64, b.Bins-1)
		for k := range edges {
			edges[k] = sorted[(k+1)*b.Rows/b.Bins]
		}
		bins[f] = make([]uint8, b.Rows)
		for i, v := range x[f] {
			bins[f][i] = uint8(sort.SearchFloat64s(edges, v))
		}
	}
	pred := make([]float64, b.Rows)
	mean := 0.0
	for _, v := range y {
		mean += v
	}
	mean /= float64(b.Rows)
	for i := range pred {
		pred[i] = mean
	}
	out := Boosted{Boosting: b, MSEStart: mse(y, pred), Updates: float64(b.Rows) * float64(b.Features) * float64(b.Rounds)}
	res := make([]float64, b.Rows)
	sum := make([]float64, b.Bins)
	cnt := make([]float64, b.Bins)
	for range b.Rounds {
		total := 0.0
		for i := range res {
			res[i] = y[i] - pred[i]
			total += res[i]
		}
		bestGain, bestF, bestK, bestL, bestR := 0.0, -1, 0, 0.0, 0.0
		for f := range bins {
			clear(sum)
			clear(cnt)
			for i, k := range bins[f] {
				sum[k] += res[i]
				cnt[k]++
			}
			ls, lc := 0.0, 0.0
			for k := 0; k < b.Bins-1; k++ {
				ls, lc = ls+sum[k], lc+cnt[k]
				rc := float64(b.Rows) - lc
				if lc == 0 || rc == 0 {
					continue
				}
				rs := total - ls
				if gain := ls*ls/lc + rs*rs/rc; gain > bestGain {
					bestGain, bestF, bestK, bestL, bestR = gain, f, k, ls/lc, rs/rc
				}
			}
		}
		if bestF < 0 {
			break
		}
		for i, k := range bins[bestF] {
			if int(k) <= bestK {
				pred[i] += b.LearningRate * bestL
			} else {
				pred[i] += b.LearningRate * bestR
			}
		}
	}
	out.Train = time.Since(t0)
	out.MSEEnd = mse(y, pred)
	return out, nil
}

func mse(y, p []float64) float64 {
	s := 0.0
	for i := range y {
		d := y[i] - p[i]
		s += d * d
	}
	return s / float64(len(y))
}

// Line is the report in one sentence, with the GPU's side as a worked number: copying the data to
// an H200 over its host link alone, before any work.
func (r Boosted) Line() string {
	g := datasheet.H200
	data := float64(r.Rows) * float64(r.Features) * 4
	return fmt.Sprintf("%d stumps on %s rows × %d features trained in %s on one CPU core (measured now): error %.3g → %.3g, "+
		"%s histogram updates (a load, an add to a bin the data picks; almost no multiply-adds for a matrix unit). "+
		"Worked number: the same data in float32 is %s; copying it to an %s over %s takes %s at the nominal %s before any work, "+
		"and each round's %d-feature search is a few small, branchy kernels.",
		r.Rounds, units.SI(float64(r.Rows), ""), r.Features, units.Duration(r.Train.Seconds()), r.MSEStart, r.MSEEnd,
		units.SI(r.Updates, ""), units.Bytes(data), g.Short, g.PCIe, units.Duration(data/g.PCIeBytes), units.SI(g.PCIeBytes, "B/s"), r.Features)
}

// Embeddings is a recommender's embedding table, for the worked numbers of EmbeddingTable.
type Embeddings struct {
	IDs        float64 // rows: one per user, item or category
	Dim        int     // values per row
	Bytes      int     // bytes per value (4: float32)
	Batch      int     // samples per step
	Lookups    int     // rows looked up per sample (one per sparse feature)
	HostGBPerS float64 // the CPU socket's DRAM bandwidth (assumed)
}

// BigEmbeddings is a billion-row table of 128 float32 values, 26 lookups per sample (the sparse
// features of the Criteo click logs), batches of 4096, on a socket of 12 DDR5-4800 channels.
var BigEmbeddings = Embeddings{IDs: 1e9, Dim: 128, Bytes: 4, Batch: 4096, Lookups: 26, HostGBPerS: 12 * 4800e6 * 8 / 1e9}

// EmbeddingTable works the numbers: the table's bytes against an H200's memory, the bytes one step
// gathers, their FLOPs per byte, and the time to gather them in host memory and to ship the
// gathered rows to the GPU. Arithmetic on stated sizes and datasheet rates, not a measurement.
func EmbeddingTable(e Embeddings) units.Table {
	g := datasheet.H200
	row := float64(e.Dim * e.Bytes)
	table := e.IDs * row
	step := float64(e.Batch*e.Lookups) * row
	hostBW := e.HostGBPerS * 1e9
	gb := float64(g.MemoryBytes) / (1 << 30) // the datasheet's figure ("141 GB"), kept in binary units
	return units.Table{
		Origins: []units.Origin{units.Formula(fmt.Sprintf("stated sizes; %s datasheet memory and host link; host DRAM %s (assumed: 12 × DDR5-4800 × 8 B)", g.Short, units.SI(hostBW, "B/s")))},
		Header:  []string{"quantity", "worked number"},
		Rows: [][]string{
			{"table", fmt.Sprintf("%s rows × %d values × %d B = %s", units.SI(e.IDs, ""), e.Dim, e.Bytes, units.Bytes(table))},
			{g.Short + " memory", fmt.Sprintf("%.0f GB on the datasheet, which the course takes as %s (the device reports about that much): the table is %.1f× that (%.1f× if the datasheet's GB were decimal)", gb, units.Bytes(float64(g.MemoryBytes)), table/float64(g.MemoryBytes), table/(gb*1e9))},
			{"gathered per step", fmt.Sprintf("%d samples × %d lookups × %s = %s, from random rows", e.Batch, e.Lookups, units.Bytes(row), units.Bytes(step))},
			{"FLOPs per byte", "about 0.25 (one add per value to pool the rows): far below any ridge, so bandwidth-bound on any chip"},
			{"gather in host memory", units.Duration(step / hostBW)},
			{"gathered rows to the GPU over " + g.PCIe, units.Duration(step / g.PCIeBytes)},
		},
		Notes: []string{"Random 512-byte rows reach a fraction of DRAM's streaming bandwidth, so the gather is optimistic; the point is the orders of magnitude: the table does not fit, and its lookups have no arithmetic for a GPU to speed up."},
	}
}
