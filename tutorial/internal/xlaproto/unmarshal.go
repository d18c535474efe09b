package xlaproto

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Unmarshal is proto.Unmarshal that also refuses a known field that came with another wire type (a plane sent as
// an integer, say). protobuf keeps such a field among the message's unknown fields and reads on, so that a file
// of another kind, or a corrupt one, would decode as a half-empty message instead of failing. The messages named
// in lenient are not checked (their own unknown fields only): an older producer gave one of their fields another
// type.
func Unmarshal(b []byte, m proto.Message, lenient ...protoreflect.FullName) error {
	if err := proto.Unmarshal(b, m); err != nil {
		return err
	}
	return checkWireTypes(m.ProtoReflect(), lenient)
}

// checkWireTypes walks m and the messages set in it, and fails on the first unknown field whose number is one of
// its message's fields.
func checkWireTypes(m protoreflect.Message, lenient []protoreflect.FullName) error {
	d := m.Descriptor()
	for b := m.GetUnknown(); len(b) > 0 && !slices.Contains(lenient, d.FullName()); {
		num, typ, n := protowire.ConsumeField(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		if f := d.Fields().ByNumber(num); f != nil {
			return fmt.Errorf("%s.%s (field %d): unexpected wire type %d", d.FullName(), f.Name(), num, typ)
		}
		b = b[n:]
	}
	var err error
	check := func(v protoreflect.Value) bool {
		err = checkWireTypes(v.Message(), lenient)
		return err == nil
	}
	m.Range(func(f protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case f.IsMap():
			if f.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool { return check(v) })
			}
		case f.Message() == nil:
		case f.IsList():
			for i := 0; i < v.List().Len() && check(v.List().Get(i)); i++ {
			}
		default:
			check(v)
		}
		return err == nil
	})
	return err
}
