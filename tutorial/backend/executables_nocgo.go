//go:build !(cgo && linux)

package backend

import "errors"

// InstallExecutableCache needs cgo on Linux (it patches the loaded plugin's function table).
func InstallExecutableCache(pluginPath string, cache *ExecutableCache) error {
	return errors.New("executable cache: needs a cgo build on Linux")
}

func uninstallExecutableCache() {}
