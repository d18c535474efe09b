// Package pbwire reads (and, for tests, writes) protobuf messages field by field with protowire, for the
// two decoders that take XLA's binary protos without generated code: the XSpace decoder
// (tutorial/profile/internal/xspace) and the autotune-cache decoder (tutorial/backend/autotune).
//
// Why no generated code: each decoder reads a handful of fields of messages whose .proto files live in XLA and
// TSL, and checks each field's wire type, so a file of another kind (an XSpace handed to the autotune reader,
// a cut copy) is reported as such rather than half-read. Generated Go types would pull those .proto trees
// into the module for a few fields. read.go holds Each, the walker both decoders use; write.go holds Msg,
// the writer their tests build inputs with.
package pbwire

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Types lists the expected wire type of known fields; a mismatch is a corrupt (or different) message.
type Types map[protowire.Number]protowire.Type

// Each walks the top-level fields of a message. For varint and fixed fields v holds the value; for
// length-delimited fields data holds the bytes (aliasing b). Groups are skipped.
func Each(b []byte, fn func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error,
	types ...Types) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var (
			v    uint64
			data []byte
		)
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var v32 uint32
			v32, n = protowire.ConsumeFixed32(b)
			v = uint64(v32)
		case protowire.BytesType:
			data, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("field %d: %w", num, protowire.ParseError(n))
		}
		b = b[n:]
		if len(types) > 0 {
			if want, ok := types[0][num]; ok && want != typ {
				return WireTypeError(fmt.Sprintf("field %d", num), typ)
			}
		}
		if typ == protowire.StartGroupType || typ == protowire.EndGroupType {
			continue
		}
		if err := fn(num, typ, v, data); err != nil {
			return err
		}
	}
	return nil
}

// WireTypeError says that a field (what) came with the wrong wire type.
func WireTypeError(what string, typ protowire.Type) error {
	return fmt.Errorf("%s: unexpected wire type %d", what, typ)
}
