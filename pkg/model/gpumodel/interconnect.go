package gpumodel

import (
	"fmt"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
)

// Link is a model of the connection gradients travel over when several GPUs train one model: its
// nominal bandwidth per direction, the fraction of it a collective reaches and the latency of one
// message, each a range (optimistic end first).
type Link struct {
	Name       string  // e.g. "NVLink 4 (H200)"
	BytesPerS  float64 // nominal bytes/s one GPU sends (and receives) at once, per direction
	Efficiency Range   // fraction of BytesPerS a ring all-reduce reaches (Low: the larger fraction)
	Latency    Range   // seconds per message step (Low: the smaller)
	Source     string  // where the numbers come from
	// NVLS is the fraction of BytesPerS an all-reduce reaches as algorithm bandwidth (bytes ÷ time)
	// when the switch does the reduction (NVLink SHARP on NVSwitch systems: each GPU sends its data
	// once and receives the sum once); zero where the link has no such switch.
	NVLS Range
	// ToDevice and ToHost are the fractions of BytesPerS a large pinned copy reaches in each
	// direction over a host link (zero: Efficiency both ways).
	ToDevice, ToHost Range
}

// The links the course compares. The fractions and latencies are typical of published NCCL
// all-reduce benchmarks (nccl-tests "bus bandwidth" for large messages; a few µs per step); they
// are assumptions, not measurements.
var (
	// NVLinkH200: the H200 SXM datasheet's 900 GB/s NVLink is the sum of both directions, 450 GB/s
	// each way.
	NVLinkH200 = Link{Name: datasheet.H200.NVLink + " (H200 SXM)", BytesPerS: datasheet.H200.NVLinkBytes, Efficiency: Range{0.85, 0.75}, Latency: Range{0.47e-6, 0.7e-6},
		NVLS:   Range{0.64, 0.56},
		Source: "H200 SXM datasheet: 900 GB/s NVLink (both directions); a ring reaches 75–85% of 450 GB/s (8 × H100, NCCL_ALGO=RING: busbw 365–370 GB/s, NVIDIA/nccl#1455); NVLS (the NVSwitch reduces) reaches 56–64% of 450 GB/s as algorithm bandwidth (NCCL's maintainer: algbw ≈ 275 GB/s on 8 GPUs, NVIDIA/nccl-tests#212); latency per ring step 0.47 µs on NVLink (NCCL's tuning model, src/graph/tuning.cc) to 1.5× that; NVLS 25–37.5 µs per all-reduce (tuning.cc); the faster of the two for each size, as NCCL chooses: ring up to about 1 MiB on 8 GPUs, NVLS from about 2 MiB (8 × H200, NCCL 2.27.7, stas00/ml-engineering)"}
	// Net400G is a 400 Gb/s network port per GPU (InfiniBand NDR or 400 GbE with RDMA).
	Net400G = Link{Name: "400 Gb/s network", BytesPerS: 400e9 / 8, Efficiency: Range{0.9, 0.7}, Latency: Range{5e-6, 20e-6},
		Source: "400 Gb/s = 50 GB/s per direction; 70–90% reached, 5–20 µs per step (assumed)"}
	// Net100G is a 100 Gb/s network port per GPU.
	Net100G = Link{Name: "100 Gb/s network", BytesPerS: 100e9 / 8, Efficiency: Range{0.9, 0.7}, Latency: Range{5e-6, 30e-6},
		Source: "100 Gb/s = 12.5 GB/s per direction; 70–90% reached, 5–30 µs per step (assumed)"}
)

// Links are the modeled links, fastest first.
var Links = []Link{NVLinkH200, Net400G, Net100G}

// NCCL's tuning model (NVIDIA/nccl src/graph/tuning.cc) predicts each algorithm and protocol's
// time as a base latency plus per-step hardware latency plus bytes over its bandwidth, and picks the
// fastest for each call's size and GPU count. The constants the model takes from it (µs): ring
// with the low-latency protocol (LL) 3.6 base, its bandwidth a quarter of the link's; ring with
// the simple protocol 8.4 base and 3.4 per step on NVLink (0.47 per step with LL); the pessimistic
// end takes 1.5× each latency (the course's assumption). Those ring constants are from an older
// tuning.cc (NCCL 2.7 era); NVLS's latency on one node, 25 µs, is the current one's (hwLatencies,
// NVLink, NVLS/Simple, read at NVIDIA/nccl 5067397, 2026-06), 37.5 µs at the pessimistic end. With it
// NVLS wins only from about 1.5 MiB on 8 GPUs, as measured on 8 × H200 (NCCL 2.27.7 picks ring/LL up
// to 1 MiB, NVLS from 2 MiB: stas00/ml-engineering); the course's 8–15 µs before it won every size.
var (
	ringLL     = [2]float64{3.6e-6, 0.47e-6}
	ringSimple = [2]float64{8.4e-6, 3.4e-6}
	nvlsLat    = Range{25e-6, 37.5e-6}
)

// AllReduce is the band of an all-reduce of bytes over n GPUs on l as NCCL runs it: the fastest of
// ring with the LL protocol (small messages: latency-bound), ring with the simple protocol (large
// messages on a link without switch reduction) and NVLS (large messages on NVSwitch systems), by
// the middle of each band. It returns the algorithm it chose.
func (l Link) AllReduce(bytes float64, n int) (low, high time.Duration, algo string) {
	if n < 2 {
		return 0, 0, "none"
	}
	steps := float64(2 * (n - 1))
	sent := 2 * float64(n-1) / float64(n) * bytes
	type cand struct {
		name   string
		lo, hi float64
	}
	// A step costs at least the link's own latency: NCCL's per-step constants are NVLink's, and a
	// network hop takes longer (the link's Latency band).
	ll := Range{max(ringLL[1], l.Latency.Low), max(1.5*ringLL[1], l.Latency.High)}
	simple := Range{max(ringSimple[1], l.Latency.Low), max(1.5*ringSimple[1], l.Latency.High)}
	cands := []cand{
		{"ring (LL)", ringLL[0] + steps*ll.Low + 4*sent/(l.Efficiency.Low*l.BytesPerS),
			1.5*ringLL[0] + steps*ll.High + 4*sent/(l.Efficiency.High*l.BytesPerS)},
		{"ring (simple)", ringSimple[0] + steps*simple.Low + sent/(l.Efficiency.Low*l.BytesPerS),
			1.5*ringSimple[0] + steps*simple.High + sent/(l.Efficiency.High*l.BytesPerS)},
	}
	if l.NVLS.Low > 0 {
		cands = append(cands, cand{"NVLS", nvlsLat.Low + bytes/(l.NVLS.Low*l.BytesPerS), nvlsLat.High + bytes/(l.NVLS.High*l.BytesPerS)})
	}
	best := cands[0]
	for _, c := range cands[1:] {
		if c.lo*c.hi < best.lo*best.hi {
			best = c
		}
	}
	return seconds(best.lo), seconds(best.hi), best.name
}

// AllReduceRule says, in one paragraph, how AllReduce models an all-reduce: the rule a table of its
// bands prints beside them.
func AllReduceRule() string {
	return fmt.Sprintf("All-reduce as NCCL runs it (a model, not a measurement): the fastest of a ring with the LL protocol "+
		"(%.1f µs + 2·(n−1) steps × %.2f µs or the link's step latency if longer + 4 × 2·(n−1)/n · bytes ÷ (efficiency · bandwidth): "+
		"small messages), a ring with the simple protocol (%.1f µs + 2·(n−1) × %.1f µs or the link's latency + 2·(n−1)/n · bytes ÷ "+
		"(efficiency · bandwidth)) and, on NVSwitch systems, NVLS (%.0f µs + bytes ÷ (NVLS share · bandwidth)); the pessimistic end "+
		"takes 1.5× NCCL's latencies, or the link's pessimistic step latency where longer (NCCL's tuning model, src/graph/tuning.cc; "+
		"its LL128 protocol, which NCCL also weighs for mid-size messages, is left out).",
		ringLL[0]*1e6, ringLL[1]*1e6, ringSimple[0]*1e6, ringSimple[1]*1e6, nvlsLat.Low*1e6)
}

// RingAllReduce is the model's band for summing bytes of gradients across n GPUs with a ring
// all-reduce: a reduce-scatter and an all-gather of n−1 steps each, every GPU sending
// bytes/n per step, so each GPU sends 2·(n−1)/n · bytes in all:
//
//	time = 2·(n−1)/n · bytes / (efficiency · bandwidth) + 2·(n−1) · latency
//
// For n < 2 there is nothing to exchange: zero.
func (l Link) RingAllReduce(bytes float64, n int) (low, high time.Duration) {
	if n < 2 {
		return 0, 0
	}
	sent := 2 * float64(n-1) / float64(n) * bytes
	steps := float64(2 * (n - 1))
	at := func(eff, lat float64) time.Duration {
		return time.Duration((sent/(eff*l.BytesPerS) + steps*lat) * 1e9)
	}
	return at(l.Efficiency.Low, l.Latency.Low), at(l.Efficiency.High, l.Latency.High)
}

// Label is how a band of this link is shown: "NVLink 4 (H200 SXM) model, 8 GPUs: 1.2 ms – 2.0 ms
// (a band, not a measurement)".
func (l Link) Label(bytes float64, n int) string {
	lo, hi := l.RingAllReduce(bytes, n)
	return fmt.Sprintf("%s model, %d GPUs: %s – %s (a band, not a measurement)", l.Name, n, round3(lo), round3(hi))
}

func round3(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d >= time.Microsecond:
		return d.Round(10 * time.Nanosecond).String()
	}
	return d.String()
}
