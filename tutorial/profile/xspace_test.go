package profile

import (
	"math"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// pb is a minimal protobuf writer for hand-built test messages (field numbers from xplane.proto).
type pb struct{ b []byte }

func (p *pb) varint(num protowire.Number, v uint64) *pb {
	p.b = protowire.AppendTag(p.b, num, protowire.VarintType)
	p.b = protowire.AppendVarint(p.b, v)
	return p
}
func (p *pb) bytes(num protowire.Number, v []byte) *pb {
	p.b = protowire.AppendTag(p.b, num, protowire.BytesType)
	p.b = protowire.AppendBytes(p.b, v)
	return p
}
func (p *pb) str(num protowire.Number, s string) *pb { return p.bytes(num, []byte(s)) }
func (p *pb) msg(num protowire.Number, m *pb) *pb    { return p.bytes(num, m.b) }
func (p *pb) double(num protowire.Number, f float64) *pb {
	p.b = protowire.AppendTag(p.b, num, protowire.Fixed64Type)
	p.b = protowire.AppendFixed64(p.b, math.Float64bits(f))
	return p
}

// XStat builders.
func statInt(md int64, v int64) *pb      { return (&pb{}).varint(1, uint64(md)).varint(4, uint64(v)) }
func statUint(md int64, v uint64) *pb    { return (&pb{}).varint(1, uint64(md)).varint(3, v) }
func statDouble(md int64, v float64) *pb { return (&pb{}).varint(1, uint64(md)).double(2, v) }
func statStr(md int64, s string) *pb     { return (&pb{}).varint(1, uint64(md)).str(5, s) }
func statRef(md int64, ref int64) *pb    { return (&pb{}).varint(1, uint64(md)).varint(7, uint64(ref)) }

func statMD(id int64, name string) *pb {
	return (&pb{}).varint(1, uint64(id)).msg(2, (&pb{}).varint(1, uint64(id)).str(2, name))
}
func eventMD(id int64, name string) *pb {
	return (&pb{}).varint(1, uint64(id)).msg(2, (&pb{}).varint(1, uint64(id)).str(2, name))
}
func event(md int64, offsetPs, durPs int64, stats ...*pb) *pb {
	e := (&pb{}).varint(1, uint64(md)).varint(2, uint64(offsetPs)).varint(3, uint64(durPs))
	for _, s := range stats {
		e.msg(4, s)
	}
	return e
}

const (
	t0Ns = int64(1_764_633_600_000_000_000) // 2025-12-02 00:00:00 UTC, ns.
	us   = int64(1_000_000)                 // ps per µs.

	k1Name = "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64"
	k2Name = "loop_add_fusion"
	k1Det  = "regs:80 static_shared:0 dynamic_shared:49152 grid:264,1,1 block:128,1,1 occ_pct:50"
	k2Det  = "regs:32 static_shared:1024 dynamic_shared:0 grid:66,1,1 block:256,1,1 occ_pct:100"
	h2dDet = "kind_src:pinned kind_dst:device size:1048576 dest:0 async:1"
	d2hDet = "kind_src:device kind_dst:pageable size:4096 dest:0 async:0"
)

// testSpaceBytes builds an XSpace with a GPU plane (two streams: two overlapping kernels, an H2D and a D2H copy,
// plus a CUPTI overhead line) and a host plane:
//
//	k1  sm90_xmma_fprop…  [0, 100) µs   grid 264 block 128 theoretical occupancy 50%  hlo_op convolution.1
//	k2  loop_add_fusion   [50, 150) µs  grid 66  block 256 occ_pct 100 (from kernel_details)
//	H2D 1 MiB             [150, 160) µs
//	D2H 4 KiB             [200, 220) µs
//
// times relative to t0Ns. The GPU has 132 SMs, compute capability 9.0.
func testSpaceBytes() []byte {
	gpu := &pb{}
	gpu.varint(1, 1).str(2, "/device:GPU:0")
	for id, name := range map[int64]string{
		1: "kernel_details", 2: "memcpy_details", 3: "theoretical_occupancy_pct", 4: "hlo_op", 5: "core_count",
		6: "compute_cap_major", 7: "compute_cap_minor", 8: "correlation_id", 9: "gpu_device_name",
		10: k1Det, 11: h2dDet, 12: "hlo_module", 13: "clock_rate", 14: "memory_size",
	} {
		gpu.msg(5, statMD(id, name))
	}
	for id, name := range map[int64]string{1: k1Name, 2: k2Name, 3: "MemcpyH2D", 4: "MemcpyD2H", 5: "CUPTI overhead event"} {
		gpu.msg(4, eventMD(id, name))
	}
	stream7 := (&pb{}).varint(1, 7).str(2, "Stream #7(Kernel,MemcpyH2D)").varint(3, uint64(t0Ns))
	stream7.msg(4, event(1, 0, 100*us, statRef(1, 10), statDouble(3, 50), statStr(4, "convolution.1"),
		statStr(12, "jit_train_step"), statInt(8, 42)))
	stream7.msg(4, event(3, 150*us, 10*us, statRef(2, 11), statInt(8, 43)))
	stream8 := (&pb{}).varint(1, 8).str(2, "Stream #8(Kernel,MemcpyD2H)").varint(3, uint64(t0Ns+1000)) // 1 µs later.
	stream8.msg(4, event(2, 49*us, 100*us, statStr(1, k2Det)))
	stream8.msg(4, event(4, 199*us, 20*us, statStr(2, d2hDet)))
	overhead := (&pb{}).varint(1, 99).str(2, "CUPTI overhead").varint(3, uint64(t0Ns))
	overhead.msg(4, event(5, 0, 500*us))
	gpu.msg(3, stream7).msg(3, stream8).msg(3, overhead)
	gpu.msg(6, statInt(5, 132)).msg(6, statInt(6, 9)).msg(6, statInt(7, 0)).msg(6, statStr(9, "NVIDIA H200"))
	gpu.msg(6, statInt(13, 1_980_000)).msg(6, statUint(14, 150_000_000_000))

	host := &pb{}
	host.varint(1, 2).str(2, "/host:CPU")
	host.msg(5, statMD(1, "hlo_module"))
	host.msg(4, (&pb{}).varint(1, 1).msg(2, (&pb{}).varint(1, 1).str(2, "XlaModule:jit_train_step").str(4, "train step")))
	hl := (&pb{}).varint(1, 1234).str(2, "Host Threads/1234").varint(3, uint64(t0Ns+500)).varint(9, uint64(300*us))
	hl.msg(4, event(1, 0, 180*us, statStr(1, "jit_train_step")))
	host.msg(3, hl)

	space := &pb{}
	space.msg(1, gpu).msg(1, host).str(3, "a warning").str(4, "h200")
	return space.b
}

func mustDecode(t *testing.T, b []byte) *XSpace {
	t.Helper()
	s, err := DecodeXSpace(b)
	if err != nil {
		t.Fatalf("DecodeXSpace: %v", err)
	}
	return s
}

func TestDecodeXSpace(t *testing.T) {
	s := mustDecode(t, testSpaceBytes())
	if len(s.Planes) != 2 || !reflect.DeepEqual(s.Hostnames, []string{"h200"}) || !reflect.DeepEqual(s.Warnings, []string{"a warning"}) || len(s.Errors) != 0 {
		t.Fatalf("space: %d planes, hostnames %q, warnings %q, errors %q", len(s.Planes), s.Hostnames, s.Warnings, s.Errors)
	}
	gpu := s.Planes[0]
	if gpu.ID != 1 || gpu.Name != "/device:GPU:0" || len(gpu.Lines) != 3 || len(gpu.EventMetadata) != 5 || len(gpu.StatMetadata) != 14 || len(gpu.Stats) != 6 {
		t.Fatalf("gpu plane: id %d name %q lines %d event md %d stat md %d stats %d", gpu.ID, gpu.Name, len(gpu.Lines),
			len(gpu.EventMetadata), len(gpu.StatMetadata), len(gpu.Stats))
	}
	l := gpu.Lines[0]
	if l.ID != 7 || l.Name != "Stream #7(Kernel,MemcpyH2D)" || l.TimestampNs != t0Ns || len(l.Events) != 2 {
		t.Fatalf("line: %+v", l)
	}
	e := l.Events[0]
	if e.MetadataID != 1 || e.OffsetPs != 0 || e.DurationPs != 100*us || len(e.Stats) != 5 {
		t.Fatalf("event: %+v", e)
	}
	if got := gpu.EventName(&e); got != k1Name {
		t.Errorf("event name %q", got)
	}
	wantStats := map[string]string{"kernel_details": k1Det, "theoretical_occupancy_pct": "50", "hlo_op": "convolution.1",
		"hlo_module": "jit_train_step", "correlation_id": "42"}
	for _, st := range e.Stats {
		name := gpu.StatName(st)
		if got := gpu.StatString(st); got != wantStats[name] {
			t.Errorf("stat %q = %q, want %q", name, got, wantStats[name])
		}
	}
	if st := e.Stats[0]; st.Kind != StatRef || st.Ref != 10 {
		t.Errorf("kernel_details should be a ref stat: %+v", st)
	}
	if st := e.Stats[1]; st.Kind != StatDouble || st.Double != 50 {
		t.Errorf("theoretical occupancy should be a double 50: %+v", st)
	}
	if st, ok := gpu.FindStat("correlation_id", e.Stats, nil); !ok || st.Kind != StatInt64 || st.Int64 != 42 {
		t.Errorf("correlation_id: %+v %v", st, ok)
	}
	if st := gpu.Stats[5]; gpu.StatName(st) != "memory_size" || st.Kind != StatUint64 || st.Uint64 != 150_000_000_000 {
		t.Errorf("plane stat memory_size: %+v", st)
	}
	if got := gpu.Lines[1].StartNs(&gpu.Lines[1].Events[0]); got != t0Ns+50_000 {
		t.Errorf("k2 start %d ns, want %d", got, t0Ns+50_000)
	}
	host := s.Planes[1]
	if md := host.EventMetadata[1]; md == nil || md.Name != "XlaModule:jit_train_step" || md.DisplayName != "train step" {
		t.Errorf("host event metadata: %+v", md)
	}
	if hl := host.Lines[0]; hl.ID != 1234 || hl.DurationPs != 300*us || hl.TimestampNs != t0Ns+500 {
		t.Errorf("host line: %+v", hl)
	}
}

func TestDecodeXSpaceErrors(t *testing.T) {
	good := testSpaceBytes()
	if _, err := DecodeXSpace(good[:len(good)-3]); err == nil {
		t.Error("truncated XSpace decoded without error")
	}
	// A plane given as a varint instead of a message.
	if _, err := DecodeXSpace((&pb{}).varint(1, 5).b); err == nil {
		t.Error("wrong wire type accepted")
	}
	// Unknown fields are skipped (forward compatibility).
	b := append((&pb{}).varint(99, 1).str(98, "future").b, good...)
	if s, err := DecodeXSpace(b); err != nil || len(s.Planes) != 2 {
		t.Errorf("unknown fields: %v", err)
	}
	// Packed and unpacked child_id.
	md := (&pb{}).varint(1, 3).str(2, "parent").bytes(6, protowire.AppendVarint(protowire.AppendVarint(nil, 4), 5)).varint(6, 6)
	m, err := decodeXEventMetadata(md.b)
	if err != nil || !reflect.DeepEqual(m.ChildIDs, []int64{4, 5, 6}) {
		t.Errorf("child ids %v, %v", m.ChildIDs, err)
	}
}
