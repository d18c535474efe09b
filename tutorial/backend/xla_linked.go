//go:build ((linux && (amd64 || arm64)) || (darwin && arm64) || (windows && amd64)) && !noxla

package backend

// Same build constraint as github.com/gomlx/gomlx/backends/default/xla.go: where that file links the XLA
// backend (and its auto-installer), this one controls it.

import "github.com/gomlx/go-xla/compute/xla"

// xlaLinked tells whether the "xla" backend is compiled in.
const xlaLinked = true

// xlaEnableAutoInstall is needed because go-xla reads GOMLX_NO_AUTO_INSTALL only once, in its init():
// setting the variable at run time would not stop a download.
func xlaEnableAutoInstall(on bool) { xla.EnableAutoInstall(on) }

// xlaAutoInstall runs go-xla's installer for one plugin ("" = its default set); it may download.
func xlaAutoInstall(plugin string) error {
	if plugin == "" {
		return xla.AutoInstall()
	}
	return xla.AutoInstallPlugin(plugin)
}
