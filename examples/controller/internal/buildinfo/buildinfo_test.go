package buildinfo_test

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/buildinfo"
)

func TestFromBuildInfo(t *testing.T) {
	t.Parallel()
	const rev = "a79262b1c0de5f0e6c2b4f1a9d3e8c7b6a5f4e3d"
	vcs := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/rolloutkit/rolloutkit/examples/controller",
		Version: "v0.0.0-20261204220234-a79262b1c0de+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}}
	for _, tt := range []struct {
		name  string
		bi    *debug.BuildInfo
		stamp buildinfo.Stamp
		want  buildinfo.Info
		line  string
	}{
		{"from the VCS", vcs, buildinfo.Stamp{}, buildinfo.Info{Version: "v0.0.0-20261204220234-a79262b1c0de+dirty", Revision: rev, Modified: true, GoVersion: "go1.26.8"},
			"v0.0.0-20261204220234-a79262b1c0de+dirty (revision " + rev + ", modified, go1.26.8)"},
		{"stamped at release", vcs, buildinfo.Stamp{Version: "v0.2.0", Revision: "0123456789abcdef0123456789abcdef01234567", Modified: "false"},
			buildinfo.Info{Version: "v0.2.0", Revision: "0123456789abcdef0123456789abcdef01234567", GoVersion: "go1.26.8"},
			"v0.2.0 (revision 0123456789abcdef0123456789abcdef01234567, go1.26.8)"},
		{"version stamped alone", vcs, buildinfo.Stamp{Version: "v0.2.0"}, buildinfo.Info{Version: "v0.2.0", Revision: rev, Modified: true, GoVersion: "go1.26.8"},
			"v0.2.0 (revision " + rev + ", modified, go1.26.8)"},
		{"no VCS (a Docker build, go run)", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, buildinfo.Stamp{},
			buildinfo.Info{Version: "(devel)", Revision: buildinfo.Unknown, GoVersion: "go1.26.8"}, "(devel) (revision unknown, go1.26.8)"},
		{"no build information", nil, buildinfo.Stamp{}, buildinfo.Info{Version: "(devel)", Revision: buildinfo.Unknown, GoVersion: runtime.Version()},
			"(devel) (revision unknown, " + runtime.Version() + ")"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := buildinfo.FromBuildInfo(tt.bi, tt.stamp)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.line, got.String())
		})
	}
}

// TestRead: a test binary has build information but no VCS stamp.
func TestRead(t *testing.T) {
	t.Parallel()
	got := buildinfo.Read()
	assert.Equal(t, runtime.Version(), got.GoVersion)
	assert.NotEmpty(t, got.Version)
	assert.NotEmpty(t, got.Revision)
}
