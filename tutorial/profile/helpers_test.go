package profile

// The shared test XSpace (xspacetest) and its builders, under the short names this package's tests use.

import (
	"testing"

	"github.com/gomlx-tutorials/trainopt/tutorial/profile/internal/xspace"
	xt "github.com/gomlx-tutorials/trainopt/tutorial/profile/internal/xspace/xspacetest"
)

var statInt, testSpaceBytes, spaceBytes = xt.StatInt, xt.SpaceBytes, xt.Bytes

const (
	t0Ns                  = xt.T0Ns
	k1Name, k2Name, k1Det = xt.K1Name, xt.K2Name, xt.K1Det
	h2dDet                = xt.H2DDet
)

func mustDecode(t *testing.T, b []byte) *xspace.XSpace {
	t.Helper()
	s, err := xspace.DecodeXSpace(b)
	if err != nil {
		t.Fatalf("DecodeXSpace: %v", err)
	}
	return s
}
