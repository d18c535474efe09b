//go:build ((linux && (amd64 || arm64)) || (darwin && arm64) || (windows && amd64)) && !noxla

package backend

import (
	"testing"

	_ "github.com/gomlx-tutorials/trainopt/tutorial/backend/autotune"
	_ "github.com/gomlx-tutorials/trainopt/tutorial/internal/xlaproto/xplanepb"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// TestProtoRegistry: go-xla's generated copies of XLA's protos (linked with the XLA backend, as xla_linked.go
// says) and this module's own (tutorial/internal/xlaproto) register side by side in one binary. Had they shared a
// file path or a message's full name, protobuf-go would have panicked at init, before any test ran.
func TestProtoRegistry(t *testing.T) {
	for _, path := range []string{
		"xla/autotune_results.proto", "xla/autotuning.proto", "xla/tsl/protobuf/dnn.proto", // go-xla's
		"tutorial/internal/xlaproto/autotunepb/autotune.proto", "tutorial/internal/xlaproto/xplanepb/xplane.proto",
	} {
		if _, err := protoregistry.GlobalFiles.FindFileByPath(path); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	for _, name := range []protoreflect.FullName{"xla.AutotuneResults", "trainopt.xlaproto.autotune.AutotuneResults"} {
		if _, err := protoregistry.GlobalTypes.FindMessageByName(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
