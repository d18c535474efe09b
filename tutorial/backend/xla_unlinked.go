//go:build !(((linux && (amd64 || arm64)) || (darwin && arm64) || (windows && amd64)) && !noxla)

package backend

import "errors"

const xlaLinked = false

func xlaEnableAutoInstall(bool) {}

func xlaAutoInstall(string) error {
	return errors.New("this binary was built without the xla backend (noxla tag or unsupported platform)")
}
