package artifact

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// VersionInfo holds the versions that decide what a benchmark means: results from different GoMLX /
// go-xla releases differ a lot (the pure-Go backend got 12-15x faster between v0.28.2 and v0.28.16).
type VersionInfo struct {
	Go, GoMLX, Compute, GoXLA string
}

// ReadVersions reads the module versions linked into this binary from runtime/debug.ReadBuildInfo; any that
// cannot be read (e.g. some test binaries, or a module not linked) is "unknown".
func ReadVersions() VersionInfo {
	v := VersionInfo{Go: runtime.Version(), GoMLX: "unknown", Compute: "unknown", GoXLA: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	for _, m := range bi.Deps {
		ver := m.Version
		if m.Replace != nil {
			ver = m.Replace.Version
			if ver == "" {
				ver = "replaced by " + m.Replace.Path
			}
		}
		switch m.Path {
		case "github.com/gomlx/gomlx":
			v.GoMLX = ver
		case "github.com/gomlx/compute":
			v.Compute = ver
		case "github.com/gomlx/go-xla":
			v.GoXLA = ver
		}
	}
	return v
}

// String formats the versions on one line, for logs and result files.
func (v VersionInfo) String() string {
	return fmt.Sprintf("%s, gomlx %s, compute %s, go-xla %s", v.Go, v.GoMLX, v.Compute, v.GoXLA)
}
