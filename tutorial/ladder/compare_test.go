package ladder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
)

// The lines torch_ladder.py and jax_mobilenet.py wrote on the H200 (run27): a header, step 1, step 11 at 128
// and 256, two JAX batches; other lines are skipped.
func TestReadReferences(t *testing.T) {
	refs, err := ReadReferences("testdata/torch_h200.jsonl", "testdata/jax_h200.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		label string
		batch int
		sps   float64
	}{{"PyTorch step 1", 32, 663.7}, {"PyTorch step 11", 128, 9890.7}, {"PyTorch step 11", 256, 10481.6},
		{"JAX", 512, 12062.4}, {"JAX", 256, 11208.2}}
	if len(refs) != len(want) {
		t.Fatalf("got %d references, want %d: %+v", len(refs), len(want), refs)
	}
	for i, w := range want {
		if r := refs[i]; r.Label() != w.label || r.Batch != w.batch || r.SamplesPerSec != w.sps {
			t.Errorf("reference %d = %s batch %d %.1f/s, want %s batch %d %.1f/s", i, r.Label(), r.Batch,
				r.SamplesPerSec, w.label, w.batch, w.sps)
		}
	}
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	os.WriteFile(empty, []byte("{}\nnot json\n"), 0o644)
	if _, err := ReadReferences(empty); err == nil || !strings.Contains(err.Error(), "no PyTorch ladder or JAX results") {
		t.Errorf("a file without results: err = %v", err)
	}
	if _, err := ReadReferences(filepath.Join(t.TempDir(), "missing.jsonl")); err == nil {
		t.Error("a missing file: no error")
	}
}

// Compare takes PyTorch's strongest step at each batch (not the first listed) and JAX beside the fastest Go step;
// Seed lines up steps 1–6 with × step 1 in each column.
func TestCompareAndSeed(t *testing.T) {
	f := &File{Results: []Result{{ID: "1", Batch: 32, SamplesPerSec: 1000}, {ID: "6", Batch: 128, SamplesPerSec: 7500},
		{ID: "12@128", Batch: 128, SamplesPerSec: 10400}},
		Reference: []Reference{{Step: "1", Batch: 32, SamplesPerSec: 660}, {Step: "6", Batch: 128, SamplesPerSec: 2150},
			{Framework: PyTorch, Step: "11", Batch: 128, SamplesPerSec: 9900}, {Framework: JAX, Step: "jax", Batch: 128, SamplesPerSec: 7200}}}
	rows := f.Compare()
	if len(rows) != 2 || rows[1].Batch != 128 || rows[1].Go.ID != "12@128" || rows[1].Torch.Step != "11" || rows[1].JAX == nil {
		t.Fatalf("Compare = %+v", rows)
	}
	if html := CompareTable(rows, "c"); !strings.Contains(html, "1.05×") || !strings.Contains(html, "1.44×") {
		t.Errorf("CompareTable lacks Go ÷ PyTorch 1.05× and Go ÷ JAX 1.44×:\n%s", html)
	}
	seed := f.Seed()
	if len(seed) != 6 || seed[5].Go.ID != "6" || seed[5].GoX != 7.5 || seed[5].Torch.SamplesPerSec != 2150 ||
		seed[1].Go != nil || seed[5].OriginalX < 5.05 || seed[5].OriginalX > 5.06 {
		t.Errorf("Seed = %+v", seed)
	}
	if html := SeedTable(seed, "s"); !strings.Contains(html, "7.50×") || !strings.Contains(html, "3.26×") {
		t.Errorf("SeedTable lacks Go's 7.50× and PyTorch's 3.26×:\n%s", html)
	}
}

// The summary's recorded file: its headline names the canonical file (or says it is missing) and step 1 against
// the fastest step; the comparison comes from the first file that has PyTorch's strongest step, captioned with it.
func TestRecordedFileSummary(t *testing.T) {
	c := artifact.Conditions{GPU: "NVIDIA H200", Date: "2026-12-04"}
	goOnly := RecordedFile{Path: "assets/results/" + CanonicalResults, File: &File{Conditions: c,
		Results: []Result{{ID: "1", Batch: 32, SamplesPerSec: 1000}, {ID: "12@128", Batch: 128, SamplesPerSec: 10400}}}}
	compared := RecordedFile{Path: "assets/results/h200-2026-12-03-run20.json", File: &File{Conditions: c,
		Results:   []Result{{ID: "12@128", Batch: 128, SamplesPerSec: 10400}},
		Reference: []Reference{{Framework: PyTorch, Step: "11", Batch: 128, SamplesPerSec: 9900}}}}
	h := goOnly.Headline()
	if !strings.HasPrefix(h, "the canonical H200 measurement: "+CanonicalResults+" — 2 configurations") ||
		!strings.Contains(h, "step 1 1000 samples/s → step 12@128 10400 samples/s (10.4×)") {
		t.Errorf("Headline of the canonical file = %q", h)
	}
	if h := compared.Headline(); !strings.Contains(h, "the canonical "+CanonicalResults+" is missing") ||
		strings.Contains(h, "step 1 ") {
		t.Errorf("Headline of a newer file without step 1 = %q", h)
	}
	rf := ComparedFile([]RecordedFile{goOnly, compared})
	if rf == nil || rf.Path != compared.Path {
		t.Fatalf("ComparedFile = %+v, want %s", rf, compared.Path)
	}
	if html := rf.ComparisonTable(); !strings.Contains(html, "1.05×") || !strings.Contains(html, "(h200-2026-12-03-run20.json, 2026-12-04)") {
		t.Errorf("ComparisonTable lacks Go ÷ PyTorch or its caption:\n%s", html)
	}
	// A newer call with step 11 at two batches wins over one at a single batch and over one with PyTorch's
	// earlier steps only; JAX comes from the first file that has it.
	early := RecordedFile{Path: "early.json", File: &File{Conditions: c, Results: compared.File.Results,
		Reference: []Reference{{Framework: PyTorch, Step: "8", Batch: 128, SamplesPerSec: 5300}}}}
	two := RecordedFile{Path: "two.json", File: &File{Conditions: c,
		Results: []Result{{ID: "12@128", Batch: 128, SamplesPerSec: 10600}, {ID: "12@256", Batch: 256, SamplesPerSec: 12700}},
		Reference: []Reference{{Framework: PyTorch, Step: "11", Batch: 128, SamplesPerSec: 9800},
			{Framework: PyTorch, Step: "11", Batch: 256, SamplesPerSec: 10400}}}}
	withJAX := compared
	withJAX.Path = "jax.json"
	withJAX.File = &File{Conditions: c, Results: compared.File.Results,
		Reference: append([]Reference{{Framework: JAX, Batch: 128, SamplesPerSec: 7200}}, compared.File.Reference...)}
	all := []RecordedFile{goOnly, early, withJAX, two}
	if rf := ComparedFile(all); rf == nil || rf.Path != "two.json" {
		t.Errorf("ComparedFile = %v, want two.json (step 11 at two batches)", rf)
	}
	if rf := ComparedFile([]RecordedFile{goOnly, early}); rf == nil || rf.Path != "early.json" {
		t.Errorf("ComparedFile without step 11 = %v, want early.json", rf)
	}
	if jf := JAXFile(all); jf == nil || jf.Path != "jax.json" {
		t.Errorf("JAXFile = %v, want jax.json", jf)
	} else if html := jf.JAXTable(); !strings.Contains(html, "7200") || strings.Contains(html, "9900") {
		t.Errorf("JAXTable shows JAX and not PyTorch's figures of that call:\n%s", html)
	}
	if html := goOnly.SeedLadderTable(); !strings.Contains(html, "Go and PyTorch on one NVIDIA H200") {
		t.Errorf("SeedLadderTable's caption:\n%s", html)
	}
}

// StoryTable's "× previous" is the rung before at the same batch, else the rung just below (9@256 follows 8).
func TestStoryTablePrevious(t *testing.T) {
	f := &File{Results: []Result{{ID: "1", Batch: 32, SamplesPerSec: 100, StepMedianMs: 10, DataWaitMs: 6},
		{ID: "8", Batch: 128, SamplesPerSec: 400, StepMedianMs: 10, ComputeMs: 9},
		{ID: "9@128", Batch: 128, SamplesPerSec: 500, StepMedianMs: 10, ComputeMs: 10},
		{ID: "9@256", Batch: 256, SamplesPerSec: 800, StepMedianMs: 10, ComputeMs: 10},
		{ID: "10@256", Batch: 256, SamplesPerSec: 1000, StepMedianMs: 10, ComputeMs: 10}}}
	html := f.StoryTable(map[string]string{"9": "bf16"}, "10@256")
	for _, want := range []string{"2.00×", // 9@256 ÷ 8
		"1.25×", // 10@256 ÷ 9@256 (and 9@128 ÷ 8)
		"data wait 60%", "bf16", "▶ 10@256"} {
		if !strings.Contains(html, want) {
			t.Errorf("StoryTable lacks %q:\n%s", want, html)
		}
	}
}

func TestShortDriver(t *testing.T) {
	for in, want := range map[string]string{
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)": "580.159.04",
		"535.104.05": "535.104.05", "": "", "unknown": "unknown",
	} {
		if got := ShortDriver(in); got != want {
			t.Errorf("ShortDriver(%q) = %q, want %q", in, got, want)
		}
	}
}
