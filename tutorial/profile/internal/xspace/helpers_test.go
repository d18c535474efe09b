package xspace

// The shared test XSpace (xspacetest), under the short names this package's tests use.

import xt "github.com/gomlx-tutorials/trainopt/tutorial/profile/internal/xspace/xspacetest"

var testSpaceBytes = xt.SpaceBytes

const (
	t0Ns, us       = xt.T0Ns, xt.Us
	k1Name, k2Name = xt.K1Name, xt.K2Name
	k1Det          = xt.K1Det
)
