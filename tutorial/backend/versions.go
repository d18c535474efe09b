package backend

import "github.com/gomlx-tutorials/trainopt/tutorial/artifact"

// VersionInfo holds the versions that decide what a benchmark means (see artifact.VersionInfo).
type VersionInfo = artifact.VersionInfo

// Versions reads the module versions linked into this binary; any that cannot be read is "unknown".
func Versions() VersionInfo { return artifact.ReadVersions() }
