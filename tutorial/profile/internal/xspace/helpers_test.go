package xspace

// The shared test XSpace (xspacetest), under the short names this package's tests use.

import (
	"github.com/gomlx-tutorials/trainopt/tutorial/internal/pbwire"
	xt "github.com/gomlx-tutorials/trainopt/tutorial/profile/internal/xspace/xspacetest"
)

type pb = pbwire.Msg

var (
	statInt, statDouble, statStr, statRef = xt.StatInt, xt.StatDouble, xt.StatStr, xt.StatRef
	statMD, eventMD, event                = xt.StatMD, xt.EventMD, xt.Event
	testSpaceBytes                        = xt.SpaceBytes
)

const (
	t0Ns, us       = xt.T0Ns, xt.Us
	k1Name, k2Name = xt.K1Name, xt.K2Name
	k1Det, k2Det   = xt.K1Det, xt.K2Det
	h2dDet, d2hDet = xt.H2DDet, xt.D2HDet
)
