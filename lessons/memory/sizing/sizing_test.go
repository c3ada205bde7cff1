package sizing

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/model/memsize"
	"github.com/gpu-course/whygpu/pkg/teach/controls"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

func TestView(t *testing.T) {
	for _, p := range memsize.Presets() {
		form := Form(p.Name)
		vals := controls.Starting(form)
		if err := controls.Check(form, vals); err != nil {
			t.Fatalf("%s: the form's starting values are refused: %v", p.Name, err)
		}
		v := View(vals)
		if v.Err != nil || v.Plot == nil || !strings.Contains(v.Fold, "Ψ") || !strings.Contains(v.Caption, "formula") {
			t.Errorf("%s: view %+v", p.Name, v)
		}
		if v.Set["layers"] != vals["layers"] {
			t.Errorf("%s: the preset sends layers %q back, the form starts at %q", p.Name, v.Set["layers"], vals["layers"])
		}
		if !strings.Contains(v.Plot.Title.Text, "computed from the formula") {
			t.Errorf("%s: chart title %q does not say where its numbers come from", p.Name, v.Plot.Title.Text)
		}
	}
	// custom: the controls' values, a refusal shown as the view's error, the form kept
	vals := controls.Starting(Form("GPT-2 small"))
	vals["preset"], vals["heads"] = Custom, "7"
	if v := View(vals); v.Err == nil || !strings.Contains(v.Err.Error(), "multiple") || v.Set != nil {
		t.Errorf("heads 7 of width 768: %+v", v)
	}
	vals["heads"], vals["batch"], vals["zero"], vals["dp"] = "12", "64", "3", "8"
	v := View(vals)
	if v.Err != nil || !strings.Contains(v.Caption, "custom, b=64") || !strings.Contains(v.Fold, "Ψ = 124M") {
		t.Errorf("custom GPT-2 at micro-batch 64: %+v", v)
	}
	if s := SettingOf(vals); s.ZeRO != 3 || s.DP != 8 || s.Precision != memsize.BF16Mixed || !s.Tied {
		t.Errorf("SettingOf read %+v", s)
	}
}

// TestVerdictSaysTheSettingOnce: the caption is one line naming the setting once and the verdict; a
// refusal's details (which repeat the setting) go to the fold (issue 35 §6).
func TestVerdictSaysTheSettingOnce(t *testing.T) {
	xl, _ := memsize.PresetNamed("1.3B (GPT-3 XL shape)")
	s := xl.Setting
	refusal := Fits(s, 1<<30, "this machine (1 GiB)")
	if refusal == nil {
		t.Fatal("1.3B in 1 GiB: no refusal")
	}
	caption, fold := verdict(s, 46e9, refusal)
	if n := strings.Count(caption, s.String()); n != 1 || strings.Contains(caption, "\n") {
		t.Errorf("caption names the setting %d times (want once, one line): %q", n, caption)
	}
	for _, want := range []string{"fits an H200", "does not fit this machine", "formula"} {
		if !strings.Contains(caption, want) {
			t.Errorf("caption %q lacks %q", caption, want)
		}
	}
	if !strings.Contains(fold, "micro-batch") || !strings.Contains(fold, "needs") {
		t.Errorf("the fold does not say why this machine refuses and what to turn: %q", fold)
	}
	caption, fold = verdict(s, 46e9, nil)
	if !strings.Contains(caption, "fits an H200 and this machine") || fold != "" {
		t.Errorf("fits both: %q / %q", caption, fold)
	}
}

func TestFitsRefusesWithTheControl(t *testing.T) {
	seven, _ := memsize.PresetNamed("7B (GPT-3 6.7B shape)")
	s := seven.Setting
	s.ZeRO, s.DP, s.Recompute, s.MicroBatch = 0, 1, memsize.NoRecompute, 3
	err := Fits(s, 141e9, "the H200")
	if !errors.Is(err, workloads.ErrOutOfMemory) || !strings.Contains(err.Error(), "ZeRO") || !strings.Contains(err.Error(), "needs") {
		t.Errorf("7B unsharded on one H200: %v", err)
	}
	s.MicroBatch, s.ZeRO, s.DP = 64, 3, 64
	if err := Fits(s, 141e9, "the H200"); err == nil || !strings.Contains(err.Error(), "micro-batch") {
		t.Errorf("7B at micro-batch 64: %v, want the micro-batch named", err)
	}
	if err := Fits(seven.Setting, 141e9, "the H200"); err != nil {
		t.Errorf("the preset should fit an H200: %v", err)
	}
}
