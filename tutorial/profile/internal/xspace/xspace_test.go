package xspace

import (
	"os"
	"reflect"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/internal/xlaproto/xplanepb"
	"github.com/gomlx-tutorials/trainopt/tutorial/profile/internal/xspace/xspacetest"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

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
	if _, err := DecodeXSpace(protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 5)); err == nil {
		t.Error("wrong wire type accepted")
	}
	// Unknown fields are skipped (forward compatibility).
	b := protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 1)
	b = append(field(b, 98, []byte("future")), good...)
	if s, err := DecodeXSpace(b); err != nil || len(s.Planes) != 2 {
		t.Errorf("unknown fields: %v", err)
	}
	// Packed and unpacked child_id: event_metadata {3: {id 3, name "parent", child_id [4 5] packed, child_id 6}}.
	md := xspacetest.Bytes(&xplanepb.XEventMetadata{Id: 3, Name: "parent", ChildId: []int64{4, 5}})
	md = protowire.AppendVarint(protowire.AppendTag(md, 6, protowire.VarintType), 6)
	entry := field(protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 3), 2, md)
	var ids []int64
	s, err := DecodeXSpace(field(nil, 1, field(nil, 4, entry)))
	if err == nil && s.Planes[0].EventMetadata[3] != nil {
		ids = s.Planes[0].EventMetadata[3].ChildIDs
	}
	if err != nil || !reflect.DeepEqual(ids, []int64{4, 5, 6}) {
		t.Errorf("child ids %v, %v", ids, err)
	}
}

// field appends a length-delimited field.
func field(b []byte, num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
}

// TestDecodeRealXSpace reads the real H200 capture of tutorial/profile's testdata both ways: as written, and
// re-encoded from the generated types (proto.Unmarshal, then Marshal), which must decode to the same mirror.
func TestDecodeRealXSpace(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/h200_gpu_test.xplane.pb")
	if err != nil {
		t.Fatal(err)
	}
	s := mustDecode(t, raw)
	var generated xplanepb.XSpace
	if err := proto.Unmarshal(raw, &generated); err != nil {
		t.Fatal(err)
	}
	if again := mustDecode(t, xspacetest.Bytes(&generated)); !reflect.DeepEqual(again, s) {
		t.Error("the re-encoded capture decodes differently")
	}
	devs := GPUDevices(s)
	if len(devs) != 1 || len(devs[0].Events) == 0 || devs[0].Info.SMCount != 132 {
		t.Fatalf("%d GPU planes; want one H200 (132 SMs) with events: %+v", len(devs), devs)
	}
	kernels := 0
	for _, e := range devs[0].Events {
		if e.Kind == KindKernel && e.Blocks() > 0 {
			kernels++
		}
	}
	t.Logf("%d planes, %d GPU events (%d kernels with a grid), %d skipped", len(s.Planes), len(devs[0].Events),
		kernels, devs[0].Skipped)
	if kernels == 0 {
		t.Error("no kernel with kernel_details")
	}
}
