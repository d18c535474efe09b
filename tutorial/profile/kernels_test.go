package profile

import (
	"errors"
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

func TestSummarize(t *testing.T) {
	space := mustDecode(t, testSpaceBytes())
	// Window [0, 200) µs.
	s, err := summarize(space, SummaryOptions{Window: Window{StartNs: t0Ns, EndNs: t0Ns + 200_000}, Steps: 2})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want float64
	}{
		{"window µs", s.WindowUs, 200},
		{"kernel count", float64(s.KernelCount), 2},
		{"kernel time µs", s.KernelTimeUs, 200},
		{"busy µs (union of [0,100) and [50,150))", s.BusyUs, 150},
		{"busy %", s.BusyPct, 75},
		// SM efficiency: k1 264/132 = 2 blocks/SM (capped 1), k2 66/132 = 0.5: [0,50) 1, [50,100) min(2.5,1), [100,150) 0.5.
		{"SM efficiency %", s.SMEfficiencyPct, 100 * (50 + 50 + 25) / 200.0},
		// Occupancy: k1 min(264·128/132/2048, 0.5) = 0.125, k2 min(66·256/132/2048, 1) = 0.0625, equal durations.
		{"achieved occupancy %", s.AchievedOccupancyPct, 100 * (0.125 + 0.0625) / 2},
		{"tensor-core %", s.TensorCorePct, 50},
		{"H2D bytes", float64(s.H2D.Bytes), 1 << 20},
		{"H2D µs", s.H2D.TimeUs, 10},
		// D2H [200, 220) is outside the window.
		{"D2H count", float64(s.D2H.Count), 0},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if s.WindowSource != "given" || s.GPU.SMCount != 132 {
		t.Errorf("window source %q, SMs %d", s.WindowSource, s.GPU.SMCount)
	}
	if len(s.Kernels) != 2 || s.Kernels[0].Name != k1Name && s.Kernels[0].Name != k2Name {
		t.Fatalf("kernels: %+v", s.Kernels)
	}
	var ks1 KernelStat
	for _, k := range s.Kernels {
		if k.Name == k1Name {
			ks1 = k
		}
	}
	if ks1.Count != 1 || ks1.TotalUs != 100 || ks1.MeanUs != 100 || ks1.MinUs != 100 || ks1.MaxUs != 100 || ks1.HloOp != "convolution.1" ||
		ks1.Category != "convolution" || !ks1.TensorCore || ks1.Registers != 80 || !near(ks1.AchievedOccPct, 12.5) {
		t.Errorf("k1 stat: %+v", ks1)
	}
	cats := map[string]float64{}
	for _, c := range s.Categories {
		cats[c.Category] = c.Pct
	}
	if cats["convolution"] != 50 || cats["fusion"] != 50 {
		t.Errorf("categories: %+v", s.Categories)
	}
	if got := s.PerStepUs(s.KernelTimeUs); got != 100 {
		t.Errorf("kernel time per step %v", got)
	}

	// Default window: the span of GPU events, [0, 220) µs.
	s2, err := summarize(space, SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s2.WindowSource != "events" || !near(s2.WindowUs, 220) || !near(s2.BusyPct, 100*150/220.0) || s2.D2H.Bytes != 4096 {
		t.Errorf("event window: %s %v µs busy %v%% d2h %d", s2.WindowSource, s2.WindowUs, s2.BusyPct, s2.D2H.Bytes)
	}

	// No GPU plane.
	if _, err := summarize(space, SummaryOptions{Device: 3}); !errors.Is(err, ErrNoGPUPlane) {
		t.Errorf("device 3: %v", err)
	}
}

// Kernel time inside the window never exceeds the window, however kernels overlap it.
func TestSummarizeClipsToWindow(t *testing.T) {
	space := mustDecode(t, testSpaceBytes())
	for _, w := range [][2]int64{{75, 125}, {0, 1}, {99, 101}, {140, 149}, {-50, 10}, {0, 150}} {
		s, err := summarize(space, SummaryOptions{Window: Window{StartNs: t0Ns + w[0]*1000, EndNs: t0Ns + w[1]*1000}})
		if err != nil {
			t.Fatal(err)
		}
		if s.BusyUs > s.WindowUs+1e-9 || s.BusyPct > 100+1e-9 || s.SMEfficiencyPct > 100+1e-9 {
			t.Errorf("window %v: busy %v µs of %v µs (%v%%), SM eff %v%%", w, s.BusyUs, s.WindowUs, s.BusyPct, s.SMEfficiencyPct)
		}
		if w == [2]int64{75, 125} && (!near(s.BusyPct, 100) || !near(s.KernelTimeUs, 25+50)) {
			t.Errorf("window [75,125): busy %v%%, kernel time %v µs", s.BusyPct, s.KernelTimeUs)
		}
	}
	// A window that misses every kernel (clocks not aligned) falls back to the events' span, with a note.
	s, err := summarize(space, SummaryOptions{Window: Window{StartNs: t0Ns + 10_000_000, EndNs: t0Ns + 20_000_000}})
	if err != nil {
		t.Fatal(err)
	}
	if s.WindowSource != "events" || len(s.Notes) == 0 {
		t.Errorf("misaligned window: source %q notes %q", s.WindowSource, s.Notes)
	}
}

func TestIntervalMath(t *testing.T) {
	iv := []interval{{0, 10, 0}, {5, 15, 0}, {20, 30, 0}, {25, 26, 0}, {30, 31, 0}}
	if got := unionLength(iv); got != 15+10+1 {
		t.Errorf("union %d", got)
	}
	if got := unionLength(nil); got != 0 {
		t.Errorf("empty union %d", got)
	}
	// Capped sweep: [0,10) 0.5, [5,15) 0.75 → 0.5·5 + 1·5 + 0.75·5.
	if got := cappedIntegral([]interval{{0, 10, 0.5}, {5, 15, 0.75}}); !near(got, 2.5+5+3.75) {
		t.Errorf("capped integral %v", got)
	}
	// Back-to-back intervals at equal timestamps do not double count.
	if got := cappedIntegral([]interval{{0, 10, 1}, {10, 20, 1}}); !near(got, 20) {
		t.Errorf("adjacent intervals %v", got)
	}
}

func TestTensorCoreRules(t *testing.T) {
	cases := map[string]bool{
		"sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x256x64":   true,
		"sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize96x128x32_stage4":                     true,
		"cutlass3x_sm90_tensorop_s64x128x16gemm_bf16_bf16_f32_bf16_bf16_128x128x64_1x1x1_0_tnn": true,
		"cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8":                    true,
		"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn":                           true,
		"volta_h884gemm_64x64_ldg8_nn":                                                          true,
		"nvjet_tst_128x256_64x4_2x1_v_bz_coopA_NTN":                                             true,
		"void cutlass::Kernel2<cutlass_sm90_wgmma_f16>":                                         true,
		"triton_gemm_dot_123":       true,
		"gemm_fusion_dot_4":         true,
		"conv2d_c1_k1_nhwc_kernel":  false, // cuDNN depthwise.
		"wgrad2d_c1_k1_nhwc_kernel": false,
		"ampere_sgemm_128x64_tn":    false, // f32 SIMT GEMM.
		"void cudnn::detail::implicit_convolve_sgemm<float, float>": false,
		"loop_add_fusion":       false,
		"input_reduce_fusion_3": false,
	}
	for name, want := range cases {
		if got := isTensorCoreKernel(name, ""); got != want {
			t.Errorf("IsTensorCoreKernel(%q) = %v, want %v", name, got, want)
		}
	}
	if !isTensorCoreKernel("fusion_12", "gemm_fusion_dot.12") {
		t.Error("HLO op name should count")
	}
}

func TestKernelCategory(t *testing.T) {
	cases := []struct{ name, op, want string }{
		{"conv2d_c1_k1_nhwc_kernel", "", "convolution"},
		{"wgrad2d_c1_k1_nhwc_kernel", "", "convolution"},
		{"sm90_xmma_dgrad_implicit_gemm_bf16", "", "convolution"},
		{"loop_convert_fusion", "", "fusion"},
		{"input_reduce_fusion_2", "", "reduction"},
		{"input_transpose_fusion", "", "transpose"},
		{"nvjet_tst_128x256", "", "matmul"},
		{"fusion_3", "cudnn-conv.7", "convolution"},
		{"copy_fusion", "", "copy"},
		{"some_kernel", "", "other"},
	}
	for _, c := range cases {
		if got := kernelCategory(c.name, c.op); got != c.want {
			t.Errorf("KernelCategory(%q, %q) = %q, want %q", c.name, c.op, got, c.want)
		}
	}
}
