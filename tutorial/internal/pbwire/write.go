package pbwire

// Writing, for tests: Msg builds a message field by field.

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Msg is a message being written; B holds its bytes. Each method appends one field and returns m, so that a
// message reads as a chain: (&pbtest.Msg{}).Varint(1, 7).Str(2, "name").B.
type Msg struct{ B []byte }

// Varint appends a varint field.
func (m *Msg) Varint(num protowire.Number, v uint64) *Msg {
	m.B = protowire.AppendTag(m.B, num, protowire.VarintType)
	m.B = protowire.AppendVarint(m.B, v)
	return m
}

// Bytes appends a length-delimited field.
func (m *Msg) Bytes(num protowire.Number, v []byte) *Msg {
	m.B = protowire.AppendTag(m.B, num, protowire.BytesType)
	m.B = protowire.AppendBytes(m.B, v)
	return m
}

// Str appends a string field.
func (m *Msg) Str(num protowire.Number, s string) *Msg { return m.Bytes(num, []byte(s)) }

// Msg appends an embedded message.
func (m *Msg) Msg(num protowire.Number, sub *Msg) *Msg { return m.Bytes(num, sub.B) }

// Double appends a double (fixed64) field.
func (m *Msg) Double(num protowire.Number, f float64) *Msg {
	m.B = protowire.AppendTag(m.B, num, protowire.Fixed64Type)
	m.B = protowire.AppendFixed64(m.B, math.Float64bits(f))
	return m
}
