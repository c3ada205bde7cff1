package data

import (
	"math"
	"sync"
	"time"
)

// Pipeline is an input pipeline: Workers goroutines ("loader workers", like PyTorch's DataLoader
// num_workers) each produce batches by doing CostPerBatch of real CPU work (a decode-like loop, see
// CPUWork), into a queue holding up to Prefetch ready batches.
type Pipeline struct {
	Workers      int           // loader goroutines; 0 picks 1
	Prefetch     int           // ready batches the queue holds; 0 picks 2
	CostPerBatch time.Duration // CPU work to produce one batch
}

// WithDefaults fills in the zero fields: 1 worker, 2 prefetched batches.
func (p Pipeline) WithDefaults() Pipeline {
	if p.Workers <= 0 {
		p.Workers = 1
	}
	if p.Prefetch <= 0 {
		p.Prefetch = 2
	}
	return p
}

// Batch is one batch a loader made: X inputs and Y targets, row-major, values in [-1, 1).
type Batch struct{ X, Y []float32 }

// Loader is a started Pipeline: its workers fill the queue until Stop.
type Loader struct {
	queue chan Batch
	stop  chan struct{}
	wg    sync.WaitGroup
}

// Start starts p's workers (defaults filled in), each making batches of xLen inputs and yLen targets
// from its own seed sequence, and returns at once: the first batch is ready after CostPerBatch.
func (p Pipeline) Start(xLen, yLen int) *Loader {
	p = p.WithDefaults()
	l := &Loader{queue: make(chan Batch, p.Prefetch), stop: make(chan struct{})}
	for k := 0; k < p.Workers; k++ {
		l.wg.Add(1)
		go func(k int) {
			defer l.wg.Done()
			seed := uint64(k+1) << 32
			for {
				b := Batch{X: make([]float32, xLen), Y: make([]float32, yLen)}
				decode(b.X, b.Y, p.CostPerBatch, seed)
				seed++
				select {
				case l.queue <- b:
				case <-l.stop:
					return
				}
			}
		}(k)
	}
	return l
}

// Next waits for a ready batch and returns it.
func (l *Loader) Next() Batch { return <-l.queue }

// Stop stops the workers and waits until they have returned.
func (l *Loader) Stop() {
	close(l.stop)
	l.wg.Wait()
}

// decode fills x and y with values in [-1, 1) by doing about cost of CPU work: a stand-in for decoding
// and augmenting a batch (integer hashing and float arithmetic over the batch, several rounds).
func decode(x, y []float32, cost time.Duration, seed uint64) {
	n := len(x) + len(y)
	rounds := 1
	if cost > 0 && n > 0 {
		rounds = max(1, int(cost.Seconds()*workRate()/float64(n)))
	}
	decodeRounds(x, y, rounds, seed)
}

// decodeRounds is the decode loop itself: rounds passes of hashing and blending over x and y.
func decodeRounds(x, y []float32, rounds int, seed uint64) {
	state := seed*0x9e3779b97f4a7c15 + 1
	for r := 0; r < rounds; r++ {
		for _, buf := range [][]float32{x, y} {
			for i := range buf {
				state ^= state << 13
				state ^= state >> 7
				state ^= state << 17
				v := float32(state>>40)/(1<<24)*2 - 1
				buf[i] = 0.5*buf[i] + 0.5*v
			}
		}
	}
}

// CPUWork does about d of real single-core computation (the decode loop of Pipeline on a scratch
// buffer) and returns a checksum so the work cannot be optimized away. It is calibrated once per
// process on an idle moment; on a busy machine it takes longer, as real decoding would.
func CPUWork(d time.Duration) float64 {
	x := make([]float32, 4096)
	decode(x, nil, d, 1)
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return s
}

// workRate is how many decode element-updates per second one core does, measured once (best of 3).
var workRate = sync.OnceValue(func() float64 {
	x := make([]float32, 4096)
	best := math.Inf(1)
	const rounds = 200
	for range 3 {
		t0 := time.Now()
		decodeRounds(x, nil, rounds+1, 1)
		best = math.Min(best, time.Since(t0).Seconds()/(rounds+1))
	}
	return float64(len(x)) / best
})
