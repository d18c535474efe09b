package xspace

// XLA's profiler hands back an XSpace: a serialized protobuf (tensorflow.profiler.XSpace). GoMLX has no protoc step
// and the tutorial must not grow one just to read a trace, so this file decodes the wire format directly with
// google.golang.org/protobuf/encoding/protowire into plain Go structs.
//
// Field numbers are those of xla/tsl/profiler/protobuf/xplane.proto (package tensorflow.profiler, proto3):
//
//	XSpace         { planes=1 (XPlane), errors=2, warnings=3, hostnames=4 (string) }
//	XPlane         { id=1, name=2, lines=3 (XLine), event_metadata=4 (map<int64,XEventMetadata>),
//	                 stat_metadata=5 (map<int64,XStatMetadata>), stats=6 (XStat) }
//	XLine          { id=1, display_id=10, name=2, display_name=11, timestamp_ns=3, duration_ps=9, events=4;
//	                 reserved 5..8 }
//	XEvent         { metadata_id=1, oneof{offset_ps=2, num_occurrences=5}, duration_ps=3, stats=4 }
//	XStat          { metadata_id=1, oneof{double_value=2 (fixed64), uint64_value=3, int64_value=4,
//	                 str_value=5, bytes_value=6, ref_value=7 (uint64)} }
//	XEventMetadata { id=1, name=2, display_name=4, metadata=3 (bytes), stats=5 (XStat), child_id=6 (packed int64) }
//	XStatMetadata  { id=1, name=2, description=3 }
//
// A proto map field is encoded as a repeated message {key=1, value=2}. Unknown fields are skipped, so newer
// producers (more fields) still decode.

import (
	"fmt"
	"math"

	"github.com/gomlx-tutorials/trainopt/tutorial/internal/pbwire"
	"google.golang.org/protobuf/encoding/protowire"
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

// The XStat value kinds, in xplane.proto's order.
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

// DecodeXSpace parses a serialized tensorflow.profiler.XSpace.
func DecodeXSpace(b []byte) (*XSpace, error) {
	s := &XSpace{}
	err := pbwire.Each(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1:
			if typ != protowire.BytesType {
				return pbwire.WireTypeError("XSpace.planes", typ)
			}
			p, err := decodeXPlane(data)
			if err != nil {
				return fmt.Errorf("plane %d: %w", len(s.Planes), err)
			}
			s.Planes = append(s.Planes, p)
		case 2, 3, 4:
			if typ != protowire.BytesType {
				return pbwire.WireTypeError("XSpace strings", typ)
			}
			switch num {
			case 2:
				s.Errors = append(s.Errors, string(data))
			case 3:
				s.Warnings = append(s.Warnings, string(data))
			case 4:
				s.Hostnames = append(s.Hostnames, string(data))
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("decoding XSpace: %w", err)
	}
	return s, nil
}

func decodeXPlane(b []byte) (*XPlane, error) {
	p := &XPlane{EventMetadata: map[int64]*XEventMetadata{}, StatMetadata: map[int64]*XStatMetadata{}}
	err := pbwire.Each(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1:
			p.ID = int64(v)
		case 2:
			p.Name = string(data)
		case 3:
			l, err := decodeXLine(data)
			if err != nil {
				return fmt.Errorf("line %d: %w", len(p.Lines), err)
			}
			p.Lines = append(p.Lines, l)
		case 4:
			key, val, err := decodeMapEntry(data)
			if err != nil {
				return fmt.Errorf("event_metadata: %w", err)
			}
			md, err := decodeXEventMetadata(val)
			if err != nil {
				return fmt.Errorf("event_metadata[%d]: %w", key, err)
			}
			if md.ID == 0 {
				md.ID = key
			}
			p.EventMetadata[key] = md
		case 5:
			key, val, err := decodeMapEntry(data)
			if err != nil {
				return fmt.Errorf("stat_metadata: %w", err)
			}
			md, err := decodeXStatMetadata(val)
			if err != nil {
				return fmt.Errorf("stat_metadata[%d]: %w", key, err)
			}
			if md.ID == 0 {
				md.ID = key
			}
			p.StatMetadata[key] = md
		case 6:
			st, err := decodeXStat(data)
			if err != nil {
				return fmt.Errorf("plane stat: %w", err)
			}
			p.Stats = append(p.Stats, st)
		}
		return nil
	}, pbwire.Types{1: protowire.VarintType, 2: protowire.BytesType, 3: protowire.BytesType, 4: protowire.BytesType,
		5: protowire.BytesType, 6: protowire.BytesType})
	return p, err
}

func decodeXLine(b []byte) (*XLine, error) {
	l := &XLine{}
	err := pbwire.Each(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1:
			l.ID = int64(v)
		case 10:
			l.DisplayID = int64(v)
		case 2:
			l.Name = string(data)
		case 11:
			l.DisplayName = string(data)
		case 3:
			l.TimestampNs = int64(v)
		case 9:
			l.DurationPs = int64(v)
		case 4:
			e, err := decodeXEvent(data)
			if err != nil {
				return fmt.Errorf("event %d: %w", len(l.Events), err)
			}
			l.Events = append(l.Events, e)
		}
		return nil
	}, pbwire.Types{1: protowire.VarintType, 10: protowire.VarintType, 2: protowire.BytesType, 11: protowire.BytesType,
		3: protowire.VarintType, 9: protowire.VarintType, 4: protowire.BytesType})
	return l, err
}

func decodeXEvent(b []byte) (XEvent, error) {
	var e XEvent
	err := pbwire.Each(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1:
			e.MetadataID = int64(v)
		case 2:
			e.OffsetPs = int64(v)
		case 5:
			e.NumOccurrences = int64(v)
		case 3:
			e.DurationPs = int64(v)
		case 4:
			st, err := decodeXStat(data)
			if err != nil {
				return fmt.Errorf("stat %d: %w", len(e.Stats), err)
			}
			e.Stats = append(e.Stats, st)
		}
		return nil
	}, pbwire.Types{1: protowire.VarintType, 2: protowire.VarintType, 5: protowire.VarintType, 3: protowire.VarintType,
		4: protowire.BytesType})
	return e, err
}

func decodeXStat(b []byte) (XStat, error) {
	var s XStat
	err := pbwire.Each(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1:
			s.MetadataID = int64(v)
		case 2:
			s.Kind, s.Double = StatDouble, math.Float64frombits(v)
		case 3:
			s.Kind, s.Uint64 = StatUint64, v
		case 4:
			s.Kind, s.Int64 = StatInt64, int64(v)
		case 5:
			s.Kind, s.Str = StatStr, string(data)
		case 6:
			s.Kind, s.Bytes = StatBytes, append([]byte(nil), data...)
		case 7:
			s.Kind, s.Ref = StatRef, v
		}
		return nil
	}, pbwire.Types{1: protowire.VarintType, 2: protowire.Fixed64Type, 3: protowire.VarintType, 4: protowire.VarintType,
		5: protowire.BytesType, 6: protowire.BytesType, 7: protowire.VarintType})
	return s, err
}

func decodeXEventMetadata(b []byte) (*XEventMetadata, error) {
	m := &XEventMetadata{}
	err := pbwire.Each(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1:
			m.ID = int64(v)
		case 2:
			m.Name = string(data)
		case 4:
			m.DisplayName = string(data)
		case 3:
			m.Metadata = append([]byte(nil), data...)
		case 5:
			st, err := decodeXStat(data)
			if err != nil {
				return err
			}
			m.Stats = append(m.Stats, st)
		case 6:
			if typ == protowire.VarintType { // Unpacked encoding, accepted by proto3 parsers too.
				m.ChildIDs = append(m.ChildIDs, int64(v))
				return nil
			}
			for len(data) > 0 {
				x, n := protowire.ConsumeVarint(data)
				if n < 0 {
					return protowire.ParseError(n)
				}
				m.ChildIDs = append(m.ChildIDs, int64(x))
				data = data[n:]
			}
		}
		return nil
	}, pbwire.Types{1: protowire.VarintType, 2: protowire.BytesType, 4: protowire.BytesType, 3: protowire.BytesType,
		5: protowire.BytesType})
	return m, err
}

func decodeXStatMetadata(b []byte) (*XStatMetadata, error) {
	m := &XStatMetadata{}
	err := pbwire.Each(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1:
			m.ID = int64(v)
		case 2:
			m.Name = string(data)
		case 3:
			m.Description = string(data)
		}
		return nil
	}, pbwire.Types{1: protowire.VarintType, 2: protowire.BytesType, 3: protowire.BytesType})
	return m, err
}

// decodeMapEntry decodes a map<int64, Message> entry: key=1 (varint), value=2 (bytes).
func decodeMapEntry(b []byte) (key int64, value []byte, err error) {
	err = pbwire.Each(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1:
			key = int64(v)
		case 2:
			value = data
		}
		return nil
	}, pbwire.Types{1: protowire.VarintType, 2: protowire.BytesType})
	return
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
