package mobilenet

import (
	"strings"
	"testing"
)

func TestFormulationRoundTrip(t *testing.T) {
	for _, c := range []Config{
		{},
		{ReductionRow: 1024, MaskedReLU6: true},
		{NormalizeFloat32: true, Depthwise: DepthwiseForm{Input: InputGradShifted, Kernel: KernelGradShiftedProducts}, StemChannels: 8},
		{Stem: StemPatches, ReductionRow: 256, PointwiseDot: true},
		{Stem: StemSpaceToDepth, StemChannels: 8},
		{Depthwise: DepthwiseForm{Kernel: KernelGradBatchGroup}},
		{Depthwise: DepthwiseForm{Forward: ForwardShifted}},
		{Depthwise: DepthwiseForm{Forward: ForwardTriton, Input: InputGradTriton, Kernel: KernelGradTriton, Prologue: PrologueBNReLU6}},
		{Depthwise: DepthwiseForm{Kernel: KernelGradTriton, Tiling: TilingRows}},
		{Depthwise: DepthwiseForm{Forward: ForwardTriton, Tiling: TilingRows, RowTile: RowTile{Channels: 64, Width: 8, Rows: 4, PerThread: 2, Unroll: 3}}},
		{Depthwise: DepthwiseForm{Forward: ForwardTritonStats, Tiling: TilingRows, RowTile: RowTile{CarrySums: true}}},
		{Depthwise: DepthwiseForm{Forward: ForwardTritonStats, Tiling: TilingRows, RowTile: RowTile{PerLayer: true, Unroll: 2}}},
		{ExpandGrad: ExpandGradFused, Depthwise: DepthwiseForm{Input: InputGradTriton, Forward: ForwardTriton, Prologue: PrologueBNReLU6Backward}},
		{ExpandGrad: ExpandGradDistributed, Depthwise: FastestDepthwise()},
		{Sums: SumsGram, ReductionRow: 256, Depthwise: FastestDepthwise()},
		{ProjectPrologue: true, Depthwise: FastestDepthwise()},
		{ProjectPrologue: true, ProjectSums: true, Depthwise: FastestDepthwise()},
		{ProjectPrologue: true, ProjectTile: ProjectTile{Pixels: 128, Channels: 32, Programs: 1024, Warps: 8, Stages: 3},
			Depthwise: FastestDepthwise()},
		{ExpandGrad: ExpandGradFused, ExpandGradTile: ExpandGradTile{Pixels: 32, Warps: 8},
			Depthwise: DepthwiseForm{Input: InputGradTriton, Forward: ForwardTriton, Prologue: PrologueBNReLU6Backward}},
		{Depthwise: DepthwiseForm{Forward: ForwardTritonStats, Input: InputGradTriton, Kernel: KernelGradInDx,
			Prologue: PrologueBNReLU6Backward, Tiling: TilingRows, RowTile: RowTile{Unroll: 2}}},
		{Depthwise: FastestDepthwise()}, // fast start's form: the options it combines must be a valid formulation
		{Depthwise: func() DepthwiseForm { d := FastestDepthwise(); d.Epilogue = EpilogueBNReLU6Backward; return d }()},
	} {
		text := c.Formulation()
		var back Config
		if err := back.SetFormulation(text); err != nil {
			t.Fatalf("SetFormulation(%q): %v", text, err)
		}
		if back != c {
			t.Errorf("round trip of %+v through %q gave %+v", c, text, back)
		}
	}
	if got := (Config{}).Formulation(); got != "" {
		t.Errorf("plain model's formulation = %q, want empty", got)
	}
	want := "reduction-row=1024,relu6=masked,bn=float32,dw-input-grad=shifted,stem-channels=8"
	c := Default()
	if err := c.SetFormulation(" reduction-row=1024, relu6=masked,bn=float32,dw-input-grad=shifted,stem-channels=8 "); err != nil {
		t.Fatal(err)
	}
	if got := c.Formulation(); got != want {
		t.Errorf("Formulation() = %q, want %q", got, want)
	}
	if c.NumClasses != 10 || c.Width != 1 || c.Dropout != 0.2 {
		t.Errorf("SetFormulation changed what the model is: %+v", c)
	}
}

func TestFormulationErrors(t *testing.T) {
	for text, want := range map[string]string{
		"relu6":                "want key=value",
		"width=0.5":            "key one of reduction-row (a number), relu6 (clip|masked)",
		"relu6=fast":           "relu6 is one of clip, masked",
		"dw-kernel-grad=fft":   "dw-kernel-grad is one of auto, batch-group, shifted",
		"reduction-row=-1":     "whole number ≥ 0",
		"reduction-row=wide":   "whole number ≥ 0",
		"stem-channels=2":      "fewer than the image's 3 channels",
		"relu6=masked,bn=f16":  "bn is one of compute, float32",
		"dw-prologue=bn-relu6": "needs dw-forward=triton",
		"dw-prologue=bn-relu6,dw-forward=shifted,dw-input-grad=triton": "needs dw-forward=triton",
		"dw-prologue=on":                                           "dw-prologue is one of none, bn-relu6",
		"dw-tiling=rows,dw-input-grad=triton":                      "dw-tiling=rows is how the Triton kernels walk the image, so it needs dw-forward=triton",
		"dw-tiling=tiles":                                          "dw-tiling is one of gather, rows",
		"stem=s2d":                                                 "stem is one of conv, patches, space-to-depth",
		"dw-row-channels=48":                                       "a power of two from 8 to 128, got 48",
		"dw-row-per-thread=32":                                     "a power of two from 1 to 16, got 32",
		"dw-row-rows=65":                                           "a number from 1 to 64, got 65",
		"dw-row-unroll=9,dw-tiling=rows":                           "a number from 1 to 8, got 9",
		"dw-row-unroll=2,dw-forward=triton":                        "need dw-tiling=rows",
		"dw-row-width=16,dw-forward=triton":                        "need dw-tiling=rows",
		"dw-row-carry=sums,dw-forward=triton":                      "need dw-tiling=rows",
		"dw-row-carry=outputs,dw-tiling=rows":                      "dw-row-carry is one of rows, sums",
		"dw-row-tiles=per-layer,dw-forward=triton":                 "need dw-tiling=rows",
		"dw-row-tiles=auto,dw-tiling=rows":                         "dw-row-tiles is one of one, per-layer",
		"expand-grad=fused,dw-forward=triton,dw-input-grad=triton": "needs it",
		"expand-grad=fused,dw-forward=triton,dw-prologue=bn-relu6": "needs it",
		"expand-grad=cudnn":                                        "expand-grad is one of xla, fused, distributed",
		"expand-grad=distributed,dw-forward=triton-stats":          "expand-grad=distributed starts from the gradient",
		"expand-grad=distributed,expand-grad-pixels=32":            "so they need it",
		"project-prologue=bn-relu6":                                "needs dw-forward=triton (or triton-stats)",
		"project-prologue=fused,dw-forward=triton":                 "project-prologue is one of none, bn-relu6",
		"expand-grad-pixels=32,dw-forward=triton":                  "need it",
		"expand-grad=fused,expand-grad-pixels=48":                  "a power of two from 16 to 128",
		"expand-grad=fused,expand-grad-warps=16":                   "a power of two from 1 to 8",
		"dw-kernel-grad=in-dx":                                     "needs dw-prologue=bn-relu6-backward, dw-input-grad=triton and dw-tiling=rows",
		"dw-kernel-grad=in-dx,dw-forward=triton,dw-input-grad=triton,dw-prologue=bn-relu6-backward":                                "and dw-tiling=rows",
		"dw-kernel-grad=in-dx,dw-forward=triton,dw-input-grad=triton,dw-prologue=bn-relu6,dw-tiling=rows":                          "needs dw-prologue",
		"dw-tiling=rows,dw-forward=triton,dw-row-tiles=per-layer,dw-row-per-thread=2":                                              "cannot go with dw-row-channels",
		"dw-epilogue=bn-relu6-backward,dw-forward=triton,dw-input-grad=triton,dw-kernel-grad=triton,dw-prologue=bn-relu6-backward": "needs dw-kernel-grad=in-dx",
		"dw-epilogue=bn-relu6":                  "dw-epilogue is one of none, bn-relu6-backward",
		"project-warps=8,dw-forward=triton":     "project-prologue=bn-relu6's kernels, so they need it",
		"project-pixels=96":                     "a power of two from 16 to 256, got 96",
		"project-programs=8":                    "a power of two from 16 to 8192, got 8",
		"project-sums=kernel,dw-forward=triton": "project-prologue=bn-relu6's forward kernel, so it needs it",
		"project-sums=on":                       "project-sums is one of xla, kernel",
		"project-stages=5":                      "a number from 1 to 4, got 5",
	} {
		var c Config
		err := c.SetFormulation(text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("SetFormulation(%q) = %v, want an error containing %q", text, err, want)
		}
	}
}

// TestStemFormulation pins the text of the stem's forms: recorded results name them ("stem=patches"), so the
// names must keep meaning the same Config.
func TestStemFormulation(t *testing.T) {
	for text, want := range map[string]StemForm{
		"stem=conv": StemConv, "stem=patches": StemPatches, "stem=space-to-depth": StemSpaceToDepth,
	} {
		var c Config
		if err := c.SetFormulation(text); err != nil {
			t.Fatalf("SetFormulation(%q): %v", text, err)
		}
		if c != (Config{Stem: want}) {
			t.Errorf("SetFormulation(%q) gave %+v, want Stem %v", text, c, want)
		}
		wantText := text
		if want == StemConv {
			wantText = ""
		}
		if got := c.Formulation(); got != wantText {
			t.Errorf("Formulation() of %q = %q, want %q", text, got, wantText)
		}
	}
	if got := (Config{Stem: StemSpaceToDepth, StemChannels: 8}).Formulation(); got != "stem-channels=8,stem=space-to-depth" {
		t.Errorf("Formulation() = %q", got)
	}
	if err := (Config{NumClasses: 10, Width: 1, Stem: StemSpaceToDepth + 1}).Validate(); err == nil {
		t.Errorf("Validate accepted stem form %d", StemSpaceToDepth+1)
	}
}
