package xspace

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
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
	if _, err := DecodeXSpace((&pb{}).Varint(1, 5).B); err == nil {
		t.Error("wrong wire type accepted")
	}
	// Unknown fields are skipped (forward compatibility).
	b := append((&pb{}).Varint(99, 1).Str(98, "future").B, good...)
	if s, err := DecodeXSpace(b); err != nil || len(s.Planes) != 2 {
		t.Errorf("unknown fields: %v", err)
	}
	// Packed and unpacked child_id.
	md := (&pb{}).Varint(1, 3).Str(2, "parent").Bytes(6, protowire.AppendVarint(protowire.AppendVarint(nil, 4), 5)).Varint(6, 6)
	m, err := decodeXEventMetadata(md.B)
	if err != nil || !reflect.DeepEqual(m.ChildIDs, []int64{4, 5, 6}) {
		t.Errorf("child ids %v, %v", m.ChildIDs, err)
	}
}
