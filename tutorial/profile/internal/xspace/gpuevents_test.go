package xspace

import "testing"

func TestGPUDevices(t *testing.T) {
	devs := GPUDevices(mustDecode(t, testSpaceBytes()))
	if len(devs) != 1 {
		t.Fatalf("%d GPU devices", len(devs))
	}
	d := devs[0]
	if d.Ordinal != 0 || d.BaseNs != t0Ns || len(d.Events) != 4 || d.Skipped != 0 {
		t.Fatalf("device: ordinal %d base %d events %d skipped %d", d.Ordinal, d.BaseNs, len(d.Events), d.Skipped)
	}
	want := DeviceInfo{Name: "NVIDIA H200", SMCount: 132, ClockRateKHz: 1_980_000, ComputeCapability: "9.0",
		MemoryBytes: 150_000_000_000, MaxThreadsPerSM: 2048}
	if d.Info != want {
		t.Errorf("device info %+v, want %+v", d.Info, want)
	}
	k1, h2d, k2, d2h := d.Events[0], d.Events[2], d.Events[1], d.Events[3]
	if k1.Name != k1Name || k1.Kind != KindKernel || k1.StartPs != 0 || k1.DurPs != 100*us || k1.Grid != [3]int{264, 1, 1} ||
		k1.Block != [3]int{128, 1, 1} || k1.Registers != 80 || k1.DynamicShared != 49152 || k1.TheoreticalOccPct != 50 ||
		k1.HloOp != "convolution.1" || k1.HloModule != "jit_train_step" || k1.CorrelationID != 42 {
		t.Errorf("k1: %+v", k1)
	}
	if k2.Name != k2Name || k2.Kind != KindKernel || k2.StartPs != 50*us || k2.Grid != [3]int{66, 1, 1} || k2.Block != [3]int{256, 1, 1} ||
		k2.StaticShared != 1024 || k2.TheoreticalOccPct != 100 {
		t.Errorf("k2: %+v", k2)
	}
	if h2d.Kind != KindMemcpyH2D || h2d.Bytes != 1<<20 || h2d.StartPs != 150*us || h2d.DurPs != 10*us {
		t.Errorf("h2d: %+v", h2d)
	}
	if d2h.Kind != KindMemcpyD2H || d2h.Bytes != 4096 || d2h.StartPs != 200*us {
		t.Errorf("d2h: %+v", d2h)
	}
}

func TestMemcpyKind(t *testing.T) {
	cases := []struct {
		name, details string
		want          EventKind
	}{
		{"MemcpyH2D", "", KindMemcpyH2D},
		{"MemcpyD2H", "", KindMemcpyD2H},
		{"MemcpyP2P", "", KindMemcpyD2D},
		{"MemcpyOther", "kind_src:pinned kind_dst:device size:8 dest:0 async:1", KindMemcpyH2D},
		{"MemcpyOther", "kind_src:device kind_dst:pinned size:8 dest:0 async:1", KindMemcpyD2H},
		{"MemcpyOther", "kind_src:device kind_dst:device size:8 dest:0 async:1", KindMemcpyD2D},
		{"MemcpyOther", "kind:unknown size:8 dest:0 async:1", KindMemcpyOther},
	}
	for _, c := range cases {
		if got := memcpyKind(c.name, c.details); got != c.want {
			t.Errorf("memcpyKind(%q, %q) = %v, want %v", c.name, c.details, got, c.want)
		}
	}
}
