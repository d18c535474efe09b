// Package xspacetest builds XSpace protos by hand for the tests of tutorial/profile/internal/xspace and
// tutorial/profile: one GPU plane with two streams of kernels and copies, and a host plane ([SpaceBytes]), plus
// the stat and event builders and the constants the tests compare against. It exists so that both packages'
// tests decode the same bytes; it does not import xspace, so that xspace's own tests can use it.
package xspacetest

import "github.com/gomlx-tutorials/trainopt/tutorial/internal/pbwire"

// XStat builders.
func StatInt(md int64, v int64) *pbwire.Msg {
	return new(pbwire.Msg).Varint(1, uint64(md)).Varint(4, uint64(v))
}
func StatUint(md int64, v uint64) *pbwire.Msg {
	return new(pbwire.Msg).Varint(1, uint64(md)).Varint(3, v)
}
func StatDouble(md int64, v float64) *pbwire.Msg {
	return new(pbwire.Msg).Varint(1, uint64(md)).Double(2, v)
}
func StatStr(md int64, s string) *pbwire.Msg { return new(pbwire.Msg).Varint(1, uint64(md)).Str(5, s) }
func StatRef(md int64, ref int64) *pbwire.Msg {
	return new(pbwire.Msg).Varint(1, uint64(md)).Varint(7, uint64(ref))
}

func StatMD(id int64, name string) *pbwire.Msg {
	return new(pbwire.Msg).Varint(1, uint64(id)).Msg(2, new(pbwire.Msg).Varint(1, uint64(id)).Str(2, name))
}
func EventMD(id int64, name string) *pbwire.Msg {
	return new(pbwire.Msg).Varint(1, uint64(id)).Msg(2, new(pbwire.Msg).Varint(1, uint64(id)).Str(2, name))
}
func Event(md int64, offsetPs, durPs int64, stats ...*pbwire.Msg) *pbwire.Msg {
	e := new(pbwire.Msg).Varint(1, uint64(md)).Varint(2, uint64(offsetPs)).Varint(3, uint64(durPs))
	for _, s := range stats {
		e.Msg(4, s)
	}
	return e
}

const (
	T0Ns = int64(1_764_633_600_000_000_000) // 2025-12-02 00:00:00 UTC, ns.
	Us   = int64(1_000_000)                 // ps per µs.

	K1Name = "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64"
	K2Name = "loop_add_fusion"
	K1Det  = "regs:80 static_shared:0 dynamic_shared:49152 grid:264,1,1 block:128,1,1 occ_pct:50"
	K2Det  = "regs:32 static_shared:1024 dynamic_shared:0 grid:66,1,1 block:256,1,1 occ_pct:100"
	H2DDet = "kind_src:pinned kind_dst:device size:1048576 dest:0 async:1"
	D2HDet = "kind_src:device kind_dst:pageable size:4096 dest:0 async:0"
)

// SpaceBytes builds an XSpace with a GPU plane (two streams: two overlapping kernels, an H2D and a D2H copy,
// plus a CUPTI overhead line) and a host plane:
//
//	k1  sm90_xmma_fprop…  [0, 100) µs   grid 264 block 128 theoretical occupancy 50%  hlo_op convolution.1
//	k2  loop_add_fusion   [50, 150) µs  grid 66  block 256 occ_pct 100 (from kernel_details)
//	H2D 1 MiB             [150, 160) µs
//	D2H 4 KiB             [200, 220) µs
//
// times relative to T0Ns. The GPU has 132 SMs, compute capability 9.0.
func SpaceBytes() []byte {
	gpu := new(pbwire.Msg)
	gpu.Varint(1, 1).Str(2, "/device:GPU:0")
	for id, name := range map[int64]string{
		1: "kernel_details", 2: "memcpy_details", 3: "theoretical_occupancy_pct", 4: "hlo_op", 5: "core_count",
		6: "compute_cap_major", 7: "compute_cap_minor", 8: "correlation_id", 9: "gpu_device_name",
		10: K1Det, 11: H2DDet, 12: "hlo_module", 13: "clock_rate", 14: "memory_size",
	} {
		gpu.Msg(5, StatMD(id, name))
	}
	for id, name := range map[int64]string{1: K1Name, 2: K2Name, 3: "MemcpyH2D", 4: "MemcpyD2H", 5: "CUPTI overhead event"} {
		gpu.Msg(4, EventMD(id, name))
	}
	stream7 := new(pbwire.Msg).Varint(1, 7).Str(2, "Stream #7(Kernel,MemcpyH2D)").Varint(3, uint64(T0Ns))
	stream7.Msg(4, Event(1, 0, 100*Us, StatRef(1, 10), StatDouble(3, 50), StatStr(4, "convolution.1"),
		StatStr(12, "jit_train_step"), StatInt(8, 42)))
	stream7.Msg(4, Event(3, 150*Us, 10*Us, StatRef(2, 11), StatInt(8, 43)))
	stream8 := new(pbwire.Msg).Varint(1, 8).Str(2, "Stream #8(Kernel,MemcpyD2H)").Varint(3, uint64(T0Ns+1000)) // 1 µs later.
	stream8.Msg(4, Event(2, 49*Us, 100*Us, StatStr(1, K2Det)))
	stream8.Msg(4, Event(4, 199*Us, 20*Us, StatStr(2, D2HDet)))
	overhead := new(pbwire.Msg).Varint(1, 99).Str(2, "CUPTI overhead").Varint(3, uint64(T0Ns))
	overhead.Msg(4, Event(5, 0, 500*Us))
	gpu.Msg(3, stream7).Msg(3, stream8).Msg(3, overhead)
	gpu.Msg(6, StatInt(5, 132)).Msg(6, StatInt(6, 9)).Msg(6, StatInt(7, 0)).Msg(6, StatStr(9, "NVIDIA H200"))
	gpu.Msg(6, StatInt(13, 1_980_000)).Msg(6, StatUint(14, 150_000_000_000))

	host := new(pbwire.Msg)
	host.Varint(1, 2).Str(2, "/host:CPU")
	host.Msg(5, StatMD(1, "hlo_module"))
	host.Msg(4, new(pbwire.Msg).Varint(1, 1).Msg(2, new(pbwire.Msg).Varint(1, 1).Str(2, "XlaModule:jit_train_step").Str(4, "train step")))
	hl := new(pbwire.Msg).Varint(1, 1234).Str(2, "Host Threads/1234").Varint(3, uint64(T0Ns+500)).Varint(9, uint64(300*Us))
	hl.Msg(4, Event(1, 0, 180*Us, StatStr(1, "jit_train_step")))
	host.Msg(3, hl)

	space := new(pbwire.Msg)
	space.Msg(1, gpu).Msg(1, host).Str(3, "a warning").Str(4, "h200")
	return space.B
}
