// Package xspacetest builds XSpace protos for the tests of tutorial/profile/internal/xspace and tutorial/profile,
// with the generated types of tutorial/internal/xlaproto/xplanepb: one GPU plane with two streams of kernels and
// copies, and a host plane ([SpaceBytes]), plus the constants the tests compare against. It exists so that both
// packages' tests decode the same bytes; it does not import xspace, so that xspace's own tests can use it.
package xspacetest

import (
	"github.com/gomlx-tutorials/trainopt/tutorial/internal/xlaproto/xplanepb"
	"google.golang.org/protobuf/proto"
)

type (
	stat   = xplanepb.XStat
	events = []*xplanepb.XEvent
)

// StatInt is an int64-valued XStat.
func StatInt(md int64, v int64) *stat {
	return &stat{MetadataId: md, Value: &xplanepb.XStat_Int64Value{Int64Value: v}}
}

func statUint(md int64, v uint64) *stat {
	return &stat{MetadataId: md, Value: &xplanepb.XStat_Uint64Value{Uint64Value: v}}
}
func statDouble(md int64, v float64) *stat {
	return &stat{MetadataId: md, Value: &xplanepb.XStat_DoubleValue{DoubleValue: v}}
}
func statStr(md int64, s string) *stat {
	return &stat{MetadataId: md, Value: &xplanepb.XStat_StrValue{StrValue: s}}
}
func statRef(md int64, ref uint64) *stat {
	return &stat{MetadataId: md, Value: &xplanepb.XStat_RefValue{RefValue: ref}}
}

func event(md int64, offsetPs, durPs int64, stats ...*stat) *xplanepb.XEvent {
	return &xplanepb.XEvent{MetadataId: md, Data: &xplanepb.XEvent_OffsetPs{OffsetPs: offsetPs}, DurationPs: durPs,
		Stats: stats}
}

// metadata builds a plane's metadata maps from id → name.
func metadata(p *xplanepb.XPlane, events, stats map[int64]string) *xplanepb.XPlane {
	p.EventMetadata, p.StatMetadata = map[int64]*xplanepb.XEventMetadata{}, map[int64]*xplanepb.XStatMetadata{}
	for id, name := range events {
		p.EventMetadata[id] = &xplanepb.XEventMetadata{Id: id, Name: name}
	}
	for id, name := range stats {
		p.StatMetadata[id] = &xplanepb.XStatMetadata{Id: id, Name: name}
	}
	return p
}

// Bytes serializes a message (deterministically: map entries by key).
func Bytes(m proto.Message) []byte {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
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
	gpu := metadata(&xplanepb.XPlane{Id: 1, Name: "/device:GPU:0"},
		map[int64]string{1: K1Name, 2: K2Name, 3: "MemcpyH2D", 4: "MemcpyD2H", 5: "CUPTI overhead event"},
		map[int64]string{
			1: "kernel_details", 2: "memcpy_details", 3: "theoretical_occupancy_pct", 4: "hlo_op", 5: "core_count",
			6: "compute_cap_major", 7: "compute_cap_minor", 8: "correlation_id", 9: "gpu_device_name",
			10: K1Det, 11: H2DDet, 12: "hlo_module", 13: "clock_rate", 14: "memory_size",
		})
	gpu.Lines = []*xplanepb.XLine{
		{Id: 7, Name: "Stream #7(Kernel,MemcpyH2D)", TimestampNs: T0Ns, Events: events{
			event(1, 0, 100*Us, statRef(1, 10), statDouble(3, 50), statStr(4, "convolution.1"),
				statStr(12, "jit_train_step"), StatInt(8, 42)),
			event(3, 150*Us, 10*Us, statRef(2, 11), StatInt(8, 43)),
		}},
		{Id: 8, Name: "Stream #8(Kernel,MemcpyD2H)", TimestampNs: T0Ns + 1000, Events: events{ // 1 µs later.
			event(2, 49*Us, 100*Us, statStr(1, K2Det)),
			event(4, 199*Us, 20*Us, statStr(2, D2HDet)),
		}},
		{Id: 99, Name: "CUPTI overhead", TimestampNs: T0Ns, Events: events{event(5, 0, 500*Us)}},
	}
	gpu.Stats = []*stat{StatInt(5, 132), StatInt(6, 9), StatInt(7, 0), statStr(9, "NVIDIA H200"),
		StatInt(13, 1_980_000), statUint(14, 150_000_000_000)}

	host := metadata(&xplanepb.XPlane{Id: 2, Name: "/host:CPU"}, nil, map[int64]string{1: "hlo_module"})
	host.EventMetadata[1] = &xplanepb.XEventMetadata{Id: 1, Name: "XlaModule:jit_train_step", DisplayName: "train step"}
	host.Lines = []*xplanepb.XLine{{Id: 1234, Name: "Host Threads/1234", TimestampNs: T0Ns + 500, DurationPs: 300 * Us,
		Events: events{event(1, 0, 180*Us, statStr(1, "jit_train_step"))}}}

	return Bytes(&xplanepb.XSpace{Planes: []*xplanepb.XPlane{gpu, host}, Warnings: []string{"a warning"},
		Hostnames: []string{"h200"}})
}
