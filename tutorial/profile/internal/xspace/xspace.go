package xspace

// XLA's profiler hands back an XSpace: a serialized protobuf (tensorflow.profiler.XSpace of
// xla/tsl/profiler/protobuf/xplane.proto). protoc-gen-go's code for it (tutorial/internal/xlaproto/xplanepb, whose
// xplane.proto lists the messages and field numbers) decodes it; this file turns that into the plain Go mirror
// below, which the rest of tutorial/profile reads: stats as a kind and a value rather than a oneof, events by
// value, metadata maps that are never nil.

import (
	"cmp"
	"fmt"

	"github.com/gomlx-tutorials/trainopt/tutorial/internal/xlaproto"
	"github.com/gomlx-tutorials/trainopt/tutorial/internal/xlaproto/xplanepb"
)

// XSpace is a container of parallel XPlanes (one per device, one for host threads, ...).
type XSpace struct {
	Planes    []*XPlane
	Errors    []string
	Warnings  []string
	Hostnames []string
}

// XPlane is a set of timelines (XLines) from one profiling source, e.g. "/device:GPU:0" or "/host:CPU".
// Event and stat names live in the metadata maps; events and stats only carry ids.
type XPlane struct {
	ID            int64
	Name          string
	Lines         []*XLine
	EventMetadata map[int64]*XEventMetadata
	StatMetadata  map[int64]*XStatMetadata
	Stats         []XStat // Plane-level stats, e.g. device capabilities (core_count, clock_rate, ...).
}

// XLine is one timeline: a host thread, or a GPU stream ("Stream #7(Kernel,MemcpyH2D)").
type XLine struct {
	ID          int64
	DisplayID   int64
	Name        string
	DisplayName string
	TimestampNs int64 // Start of the line, ns since the Unix epoch; event offsets are relative to it.
	DurationPs  int64
	Events      []XEvent
}

// XEvent is one interval on a line. Either OffsetPs (a trace event) or NumOccurrences (an aggregate) is set.
type XEvent struct {
	MetadataID     int64
	OffsetPs       int64
	NumOccurrences int64
	DurationPs     int64
	Stats          []XStat
}

// StatKind says which member of XStat's value oneof is set.
type StatKind uint8

// The XStat value kinds, in xplane.proto's order: each is its oneof member's field number less one.
const (
	StatNone StatKind = iota
	StatDouble
	StatUint64
	StatInt64
	StatStr
	StatBytes
	StatRef // The value is the name of StatMetadata[Ref]: how XLA interns repeated strings such as kernel_details.
)

// XStat is a named value (the name is the plane's StatMetadata[MetadataID].Name).
type XStat struct {
	MetadataID int64
	Kind       StatKind
	Double     float64
	Uint64     uint64
	Int64      int64
	Str        string
	Bytes      []byte
	Ref        uint64
}

// XEventMetadata names an event kind (e.g. a kernel name) shared by all events with the same metadata id.
type XEventMetadata struct {
	ID          int64
	Name        string
	DisplayName string
	Metadata    []byte
	Stats       []XStat
	ChildIDs    []int64
}

// XStatMetadata names a stat kind; ref-valued stats also point to one to reuse its Name as their string value.
type XStatMetadata struct {
	ID          int64
	Name        string
	Description string
}

// DecodeXSpace parses a serialized tensorflow.profiler.XSpace. Unknown fields are skipped, so newer producers
// (more fields) still decode; a known field of the wrong wire type is an error (xlaproto.Unmarshal).
func DecodeXSpace(b []byte) (*XSpace, error) {
	var pb xplanepb.XSpace
	if err := xlaproto.Unmarshal(b, &pb); err != nil {
		return nil, fmt.Errorf("decoding XSpace: %w", err)
	}
	s := &XSpace{Errors: pb.Errors, Warnings: pb.Warnings, Hostnames: pb.Hostnames}
	for _, p := range pb.Planes {
		s.Planes = append(s.Planes, plane(p))
	}
	return s, nil
}

// plane converts a generated XPlane into the mirror types; a metadata entry without an id takes its map key.
func plane(p *xplanepb.XPlane) *XPlane {
	out := &XPlane{ID: p.Id, Name: p.Name, Stats: stats(p.Stats),
		EventMetadata: make(map[int64]*XEventMetadata, len(p.EventMetadata)),
		StatMetadata:  make(map[int64]*XStatMetadata, len(p.StatMetadata))}
	for _, l := range p.Lines {
		line := &XLine{ID: l.Id, DisplayID: l.DisplayId, Name: l.Name, DisplayName: l.DisplayName,
			TimestampNs: l.TimestampNs, DurationPs: l.DurationPs}
		for _, e := range l.Events {
			line.Events = append(line.Events, XEvent{MetadataID: e.MetadataId, OffsetPs: e.GetOffsetPs(),
				NumOccurrences: e.GetNumOccurrences(), DurationPs: e.DurationPs, Stats: stats(e.Stats)})
		}
		out.Lines = append(out.Lines, line)
	}
	for key, md := range p.EventMetadata {
		out.EventMetadata[key] = &XEventMetadata{ID: cmp.Or(md.GetId(), key), Name: md.GetName(),
			DisplayName: md.GetDisplayName(), Metadata: md.GetMetadata(), Stats: stats(md.GetStats()),
			ChildIDs: md.GetChildId()}
	}
	for key, md := range p.StatMetadata {
		out.StatMetadata[key] = &XStatMetadata{ID: cmp.Or(md.GetId(), key), Name: md.GetName(),
			Description: md.GetDescription()}
	}
	return out
}

// statValue is XStat's value oneof: its members' field numbers, 2 (double_value) to 7 (ref_value), are in StatKind's
// order, one above it.
var statValue = (*xplanepb.XStat)(nil).ProtoReflect().Descriptor().Oneofs().ByName("value")

func stats(in []*xplanepb.XStat) []XStat {
	var out []XStat
	for _, s := range in {
		st := XStat{MetadataID: s.MetadataId, Double: s.GetDoubleValue(), Uint64: s.GetUint64Value(),
			Int64: s.GetInt64Value(), Str: s.GetStrValue(), Bytes: s.GetBytesValue(), Ref: s.GetRefValue()}
		if f := s.ProtoReflect().WhichOneof(statValue); f != nil {
			st.Kind = StatKind(f.Number() - 1)
		}
		out = append(out, st)
	}
	return out
}

// StatName returns the name of a stat of this plane ("" if unknown).
func (p *XPlane) StatName(s XStat) string {
	if md := p.StatMetadata[s.MetadataID]; md != nil {
		return md.Name
	}
	return ""
}

// EventName returns the name of an event of this plane (its metadata's name, or display name if the name is empty).
func (p *XPlane) EventName(e *XEvent) string {
	if md := p.EventMetadata[e.MetadataID]; md != nil {
		if md.Name != "" {
			return md.Name
		}
		return md.DisplayName
	}
	return ""
}

// StatString renders a stat's value as text, resolving ref values (interned strings) through StatMetadata.
func (p *XPlane) StatString(s XStat) string {
	switch s.Kind {
	case StatDouble:
		return fmt.Sprintf("%g", s.Double)
	case StatUint64:
		return fmt.Sprintf("%d", s.Uint64)
	case StatInt64:
		return fmt.Sprintf("%d", s.Int64)
	case StatStr:
		return s.Str
	case StatBytes:
		return fmt.Sprintf("<%d bytes>", len(s.Bytes))
	case StatRef:
		if md := p.StatMetadata[int64(s.Ref)]; md != nil {
			return md.Name
		}
		return fmt.Sprintf("<ref %d>", s.Ref)
	}
	return ""
}

// StatNumber returns a numeric stat as float64; ok is false for non-numeric stats.
func StatNumber(s XStat) (v float64, ok bool) {
	switch s.Kind {
	case StatDouble:
		return s.Double, true
	case StatUint64:
		return float64(s.Uint64), true
	case StatInt64:
		return float64(s.Int64), true
	}
	return 0, false
}

// FindStat returns the first stat named name among stats (event stats, then the event metadata's stats if md
// is given).
func (p *XPlane) FindStat(name string, stats []XStat, md *XEventMetadata) (XStat, bool) {
	for _, s := range stats {
		if p.StatName(s) == name {
			return s, true
		}
	}
	if md != nil {
		for _, s := range md.Stats {
			if p.StatName(s) == name {
				return s, true
			}
		}
	}
	return XStat{}, false
}

// StartNs is the event's start in nanoseconds since the Unix epoch. (Picoseconds since the epoch do not fit in an
// int64, so absolute times stay in ns; code that needs ps works relative to a base timestamp.)
func (l *XLine) StartNs(e *XEvent) int64 { return l.TimestampNs + e.OffsetPs/1000 }
