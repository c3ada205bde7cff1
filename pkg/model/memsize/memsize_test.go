package memsize

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// Published per-parameter figures. Sources read for this test: 16 bytes per parameter for
// mixed-precision Adam (2 + 2 + 4 master + 4 + 4; rraushan-blog.pages.dev/ml/applied-ml/fsdp, and
// apxml.com's ZeRO-stages chapter, which gives the ZeRO paper's 2Ψ + 2Ψ + 12Ψ split).
func TestPerParam(t *testing.T) {
	for _, c := range []struct {
		p    Precision
		o    Optimizer
		want float64
	}{{BF16Mixed, Adam, 16}, {FP32, Adam, 16}, {FP32, SGD, 8}, {BF16Mixed, SGD, 8}} {
		if got := (Setting{Precision: c.p, Optimizer: c.o}).PerParam(); got != c.want {
			t.Errorf("%s %s: %g B/parameter, want %g", c.p, c.o, got, c.want)
		}
	}
}

// The ZeRO paper's figures. Read: its 1.5B-parameter model needs at least 24 GB of model state
// under mixed-precision Adam (summary at ai-papers.xuzou.cn/papers/zero_2019); a 7B model about
// 112 GB (rraushan-blog.pages.dev). The partitioned figures are the paper's Figure 1 example
// (Ψ = 7.5 B, N_d = 64, K = 12: 120, 31.4, 16.6 and 1.9 GB per device) — the formulas 4Ψ + KΨ/N_d,
// 2Ψ + (2+K)Ψ/N_d and (4+K)Ψ/N_d that produce them are the paper's.
func TestZeROFigures(t *testing.T) {
	for _, c := range []struct {
		name     string
		psi      float64
		stage    int
		dp       int
		wantGB   float64
		tolerate float64
	}{
		{"1.5B, no sharding", 1.5e9, 0, 1, 24, 0},
		{"7B, no sharding", 7e9, 0, 1, 112, 0},
		{"7.5B baseline", 7.5e9, 0, 64, 120, 0},
		{"7.5B ZeRO-1 (P_os)", 7.5e9, 1, 64, 31.4, 0.002},
		{"7.5B ZeRO-2 (P_os+g)", 7.5e9, 2, 64, 16.6, 0.003},
		{"7.5B ZeRO-3 (P_os+g+p)", 7.5e9, 3, 64, 1.9, 0.02},
	} {
		s := Setting{Precision: BF16Mixed, Optimizer: Adam, ZeRO: c.stage, DP: c.dp}
		w, g, o := s.StateBytes(c.psi)
		if got := (w + g + o) / 1e9; !near(got, c.wantGB, c.tolerate) {
			t.Errorf("%s: %.3f GB per device, want %g", c.name, got, c.wantGB)
		}
	}
}

// Parameter counts: lesson 09's GPT against gpt.GPT.NumParams is checked in lessons/memory
// (this package does not build graphs); GPT-2 small is 124 439 808 parameters with its 1024×768
// position table (HuggingFace's count), 123 653 376 without — the formula leaves out only the
// final layer norm (2d).
func TestParams(t *testing.T) {
	gpt2, _ := PresetNamed("GPT-2 small")
	if got, want := float64(gpt2.Params()), 124439808.0-1024*768; !near(got, want, 1e-4) {
		t.Errorf("GPT-2 small: Ψ = %.0f, want ≈ %.0f", got, want)
	}
	for _, c := range []struct {
		name   string
		lo, hi float64
	}{{"1.3B (GPT-3 XL shape)", 1.25e9, 1.35e9}, {"7B (GPT-3 6.7B shape)", 6.5e9, 6.9e9}} {
		p, ok := PresetNamed(c.name)
		if !ok {
			t.Fatalf("no preset %q", c.name)
		}
		if got := float64(p.Params()); got < c.lo || got > c.hi {
			t.Errorf("%s: Ψ = %.3g, want %.3g…%.3g", c.name, got, c.lo, c.hi)
		}
	}
}

// Activations per layer against Korthikanti et al. 2022, eq. (1): 34·s·b·h + 5·a·s²·b bytes in 16
// bits with dropout (the derivation read at gdymind.com, "Memory usage breakdown during
// Training": 1-byte dropout masks). Without dropout — the course's GPT has none — the two 1-byte
// masks of s·b·h, the a·s²·b mask and the 2-byte dropout output of the attention probabilities go
// away: 32·s·b·h + 2·a·s²·b. Selective recompute leaves 32·s·b·h (the paper's 34 less the masks),
// full recompute 2·s·b·h per layer (the paper's) plus one layer being recomputed.
func TestActivationsPerLayer(t *testing.T) {
	m := Model{Layers: 4, Width: 256, Heads: 8, Seq: 512, Vocab: 1000}
	b, s, h, a, L := 2.0, 512.0, 256.0, 8.0, 4.0
	logits := b * s * 1000 * 4
	korthikanti := 34*s*b*h + 5*a*s*s*b
	noDropout := korthikanti - (2*s*b*h + 3*a*s*s*b)
	for _, c := range []struct {
		r    Recompute
		want float64
	}{
		{NoRecompute, L*noDropout + logits},
		{Selective, L*(32*s*b*h) + logits},
		{Full, L*(2*s*b*h) + noDropout + logits},
	} {
		z, err := Setting{Model: m, MicroBatch: 2, Precision: BF16Mixed, Optimizer: Adam, Recompute: c.r}.Size()
		if err != nil {
			t.Fatal(err)
		}
		if got := z.Part(PartActivation).Bytes; !near(got, c.want, 1e-12) {
			t.Errorf("recompute %s: activations %.0f B, want %.0f", c.r, got, c.want)
		}
	}
}

// Sharding: each ZeRO stage lowers the per-device total (N_d > 1), never the activations.
func TestZeROStagesShrink(t *testing.T) {
	for _, p := range Presets() {
		s := p.Setting
		s.DP = 8
		prev := math.Inf(1)
		for stage := 0; stage <= 3; stage++ {
			s.ZeRO = stage
			z, err := s.Size()
			if err != nil {
				t.Fatal(err)
			}
			if stage < 3 && z.Total() >= prev { // stage 3 adds a gathered layer to the workspace, still less in all
				t.Errorf("%s ZeRO-%d: %.3g B is not below the previous stage's %.3g", p.Name, stage, z.Total(), prev)
			}
			prev = z.Total()
			if len(z.Formula()) == 0 || !strings.Contains(z.Part(PartParams).Formula, "Ψ") {
				t.Errorf("%s: formula text missing: %q", p.Name, z.Formula())
			}
		}
	}
}

func TestValidate(t *testing.T) {
	good, _ := PresetNamed("GPT-2 small")
	for _, c := range []struct {
		name string
		edit func(*Setting)
		says string
	}{
		{"heads do not divide the width", func(s *Setting) { s.Heads = 7 }, "multiple"},
		{"no layers", func(s *Setting) { s.Layers = 0 }, "layers"},
		{"ZeRO stage 4", func(s *Setting) { s.ZeRO = 4 }, "ZeRO stage"},
		{"negative devices", func(s *Setting) { s.DP = -1 }, "data-parallel"},
		{"huge batch", func(s *Setting) { s.MicroBatch = MaxBatch + 1 }, "micro-batch"},
		{"unknown recompute", func(s *Setting) { s.Recompute = 3 }, "recompute"},
	} {
		s := good.Setting
		c.edit(&s)
		_, err := s.Size()
		if !errors.Is(err, ErrSetting) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: error %v, want ErrSetting saying %q", c.name, err, c.says)
		}
	}
}
