package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// The values a release stamps with the linker's -X flag (see the package
// documentation). They are variables only because -X can set nothing
// else; no code assigns them.
var (
	version  string
	revision string
	modified string // "true" or "false"
)

// Unknown is the value of a field that neither the build information nor
// the linker gave.
const Unknown = "unknown"

// Info is one build of the controller module.
type Info struct {
	// Version is the module's version: a release's tag (v0.2.0), a
	// pseudo-version go build derived from the VCS
	// (v0.0.0-20261204220234-a79262b1c0de, +dirty when modified), or
	// "(devel)" for a build that knew none.
	Version string `json:"version"`
	// Revision is the VCS revision built from, or Unknown.
	Revision string `json:"revision"`
	// Modified is true when the tree built from had uncommitted changes.
	Modified bool `json:"modified,omitempty"`
	// GoVersion is the Go toolchain's version, such as go1.26.8.
	GoVersion string `json:"goVersion"`
}

// Read returns the running binary's Info: its build information,
// overridden by what the linker stamped.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok { // a binary built without module support
		bi = nil
	}
	return FromBuildInfo(bi, Stamp{Version: version, Revision: revision, Modified: modified})
}

// Stamp is what the linker stamped: each field, when not empty, wins over
// the build information's.
type Stamp struct {
	Version, Revision string
	// Modified is "true" or "false".
	Modified string
}

// FromBuildInfo returns the Info of the build information bi (nil: none),
// with what stamp gives in place of its own.
func FromBuildInfo(bi *debug.BuildInfo, stamp Stamp) Info {
	info := Info{Version: "(devel)", Revision: Unknown, GoVersion: runtime.Version()}
	if bi != nil {
		info.GoVersion = bi.GoVersion
		if bi.Main.Version != "" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true" // go build writes "true" or "false"
			}
		}
	}
	if stamp.Version != "" {
		info.Version = stamp.Version
	}
	if stamp.Revision != "" {
		info.Revision = stamp.Revision
	}
	if stamp.Modified != "" {
		info.Modified = stamp.Modified == "true"
	}
	return info
}

// String is the Info as -version prints it, on one line:
// "v0.2.0 (revision a79262b1c0de..., go1.26.8)", with ", modified"
// after the revision of a tree with uncommitted changes.
func (i Info) String() string {
	modified := ""
	if i.Modified {
		modified = ", modified"
	}
	return fmt.Sprintf("%s (revision %s%s, %s)", i.Version, i.Revision, modified, i.GoVersion)
}
