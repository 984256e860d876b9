package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
)

var chartDir = filepath.Join("..", "..", "..", "..", "examples", "controller", "charts", "rolloutkit")

// TestChartPackage packages the controller's chart as a release does and
// reads the archive back with Helm's loader: the release's version and
// appVersion, every template and the CRDs in it, and the same bytes when
// packaged again with the same epoch.
func TestChartPackage(t *testing.T) {
	t.Parallel()
	dir, again := t.TempDir(), t.TempDir()
	args := []string{"-version", "0.2.0", "-app-version", "v0.2.0", "-epoch", "1733356800"}
	path, err := run(append(args, "-o", dir, chartDir), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "rolloutkit-0.2.0.tgz"), path)

	archived, err := loader.Load(path)
	require.NoError(t, err)
	source, err := loader.Load(chartDir)
	require.NoError(t, err)
	assert.Equal(t, "0.2.0", archived.Metadata.Version)
	assert.Equal(t, "v0.2.0", archived.Metadata.AppVersion)
	assert.Equal(t, source.Metadata.Name, archived.Metadata.Name)
	assert.Equal(t, names(source.Templates), names(archived.Templates), "templates")
	assert.Equal(t, names(source.Files), names(archived.Files), "files (the CRDs, the alert rules)")
	assert.NotEmpty(t, archived.Files, "files")

	path2, err := run(append(args, "-o", again, chartDir), io.Discard)
	require.NoError(t, err)
	first, err := os.ReadFile(path)
	require.NoError(t, err)
	second, err := os.ReadFile(path2)
	require.NoError(t, err)
	assert.Equal(t, first, second, "the archive packaged twice with one epoch")
}

// TestChartPackageRefuses shows the command's errors.
func TestChartPackageRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no chart", []string{}, "want one argument, the chart's directory; got 0"},
		{"a bad version", []string{"-version", "v0.2.0", "-o", "OUT", chartDir}, `-version "v0.2.0": want a semantic version without a v`},
		{"no such chart", []string{"-o", "OUT", filepath.Join("no", "such", "chart")}, "packaging no/such/chart"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			for i, a := range tt.args {
				if a == "OUT" {
					tt.args[i] = out
				}
			}
			_, err := run(tt.args, io.Discard)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// names returns the names of files, in their order.
func names(files []*common.File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Name
	}
	return out
}
