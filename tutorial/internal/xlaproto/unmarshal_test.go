package xlaproto

import (
	"strings"
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/internal/xlaproto/autotunepb"
	"github.com/gomlx-tutorials/trainopt/tutorial/internal/xlaproto/xplanepb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A known field of the wrong wire type is refused at any depth (proto.Unmarshal keeps it as an unknown field),
// inside lists and map values too; unknown field numbers, and the messages named lenient, are let through.
func TestUnmarshalWireTypes(t *testing.T) {
	varint := func(b []byte, num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
	}
	msg := func(b []byte, num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
	}
	line := varint(nil, 2, 7)                                        // XLine.name as an integer.
	mapEntry := msg(varint(nil, 1, 3), 2, varint(nil, 2, 1))         // event_metadata {3: {name: 1}}.
	tma := msg(nil, 8, []byte{})                                     // TritonGemmKey.is_tma_allowed as a message.
	entry := msg(nil, 2, msg(nil, 1, msg(nil, 2, msg(nil, 2, tma)))) // value.optimal_config.backend_config.triton
	triton := (*autotunepb.AutotuneResult_TritonGemmKey)(nil).ProtoReflect().Descriptor().FullName()
	cases := []struct {
		name    string
		data    []byte
		m       proto.Message
		lenient []protoreflect.FullName
		want    string
	}{
		{"top level", varint(nil, 1, 5), &xplanepb.XSpace{}, nil, "trainopt.xlaproto.xplane.XSpace.planes (field 1)"},
		{"in a list", msg(nil, 1, msg(nil, 3, line)), &xplanepb.XSpace{}, nil, "XLine.name (field 2)"},
		{"in a map value", msg(nil, 1, msg(nil, 4, mapEntry)), &xplanepb.XSpace{}, nil, "XEventMetadata.name"},
		{"unknown number", msg(nil, 1, varint(nil, 99, 1)), &xplanepb.XSpace{}, nil, ""},
		{"strict", entry, &autotunepb.AutotuneEntry{}, nil, "TritonGemmKey.is_tma_allowed (field 8)"},
		{"lenient", entry, &autotunepb.AutotuneEntry{}, []protoreflect.FullName{triton}, ""},
	}
	for _, c := range cases {
		err := Unmarshal(c.data, c.m, c.lenient...)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
}
