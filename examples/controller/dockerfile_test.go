package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pinScript is hack/pin-base-images.sh.
var pinScript = filepath.Join("..", "..", "hack", "pin-base-images.sh")

// pinnedImage is an image reference pinned by digest, with the tag it was
// resolved from.
var pinnedImage = regexp.MustCompile(`^[a-z0-9./-]+:[A-Za-z0-9._-]+@sha256:[0-9a-f]{64}$`)

// TestDockerfilePinned: every stage of the controller's image starts from
// an image pinned by digest, named by an ARG ..._IMAGE line that
// hack/pin-base-images.sh rewrites.
func TestDockerfilePinned(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("Dockerfile")
	require.NoError(t, err)
	images := map[string]string{}
	var froms []string
	for _, line := range strings.Split(string(data), "\n") {
		if name, value, ok := strings.Cut(strings.TrimPrefix(line, "ARG "), "="); ok && strings.HasPrefix(line, "ARG ") && strings.HasSuffix(name, "_IMAGE") {
			images[name] = value
		}
		if f, ok := strings.CutPrefix(line, "FROM "); ok {
			froms = append(froms, strings.Fields(f)[0])
		}
	}
	require.Len(t, froms, 2, "the Dockerfile's stages")
	for _, from := range froms {
		image := from
		if arg, ok := strings.CutPrefix(from, "${"); ok {
			image = images[strings.TrimSuffix(arg, "}")]
		}
		assert.Regexp(t, pinnedImage, image, "FROM %s", from)
	}
}

// TestPinBaseImages runs hack/pin-base-images.sh on a copy of the
// Dockerfile, with a crane that answers a new digest for the Go image and
// the pinned one for distroless: the first ARG line is rewritten and the
// second kept, each said. A crane that answers no digest fails the script
// and changes nothing.
func TestPinBaseImages(t *testing.T) {
	t.Parallel()
	orig, err := os.ReadFile("Dockerfile")
	require.NoError(t, err)
	const newDigest = "sha256:" + "ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12"
	base := regexp.MustCompile(`(?m)^ARG BASE_IMAGE=.*@(sha256:[0-9a-f]{64})$`).FindSubmatch(orig)
	require.NotNil(t, base, "no pinned ARG BASE_IMAGE line")
	for _, tt := range []struct {
		name  string
		crane string // the fake crane's script
		code  int
		out   string // what stdout says
		want  func(t *testing.T, got string)
	}{
		{"new digest", `case "$2" in golang:*) echo ` + newDigest + `;; *) echo ` + string(base[1]) + `;; esac`, 0,
			"BUILD_IMAGE: golang:1.26: sha256:", func(t *testing.T, got string) {
				assert.Contains(t, got, "ARG BUILD_IMAGE=golang:1.26@"+newDigest+"\n")
				assert.Contains(t, got, "ARG BASE_IMAGE=gcr.io/distroless/static:nonroot@"+string(base[1])+"\n")
				assert.Equal(t, strings.Count(string(orig), "\n"), strings.Count(got, "\n"), "lines added or removed")
				assert.Contains(t, got, "FROM ${BUILD_IMAGE} AS build\n")
			}},
		{"no digest", `echo "UNAUTHORIZED: authentication required"`, 1, "", func(t *testing.T, got string) {
			assert.Equal(t, string(orig), got, "the Dockerfile changed")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file, crane := filepath.Join(dir, "Dockerfile"), filepath.Join(dir, "crane")
			require.NoError(t, os.WriteFile(file, orig, 0o644))
			require.NoError(t, os.WriteFile(crane, []byte("#!/bin/sh\n"+tt.crane+"\n"), 0o755))
			cmd := exec.Command("bash", pinScript, file)
			cmd.Env = append(os.Environ(), "CRANE="+crane)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err := cmd.Run()
			code := 0
			if exit := (*exec.ExitError)(nil); errors.As(err, &exit) {
				code = exit.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.code, code, errOut.String())
			assert.Contains(t, out.String(), tt.out)
			got, err := os.ReadFile(file)
			require.NoError(t, err)
			tt.want(t, string(got))
		})
	}
}

// TestDockerfileBuildCommand: the Dockerfile builds the binary with
// hack/build-controller.sh alone, whose go build is static, trimmed and
// stamped, as .ci/run and hack/release.sh build it.
func TestDockerfileBuildCommand(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("Dockerfile")
	require.NoError(t, err)
	var runs []string
	for _, line := range strings.Split(string(data), "\n") {
		if r, ok := strings.CutPrefix(line, "RUN "); ok {
			runs = append(runs, r)
		}
	}
	assert.Contains(t, runs, "hack/build-controller.sh examples/controller/bin/rolloutkit-controller")
	for _, r := range runs {
		assert.NotContains(t, r, "go -C examples/controller build", "a build beside hack/build-controller.sh's")
	}
	script, err := os.ReadFile(filepath.Join("..", "..", "hack", "build-controller.sh"))
	require.NoError(t, err)
	for _, want := range []string{"CGO_ENABLED=0 go -C examples/controller build -trimpath -buildvcs=false", "internal/buildinfo", ".version=${VERSION}", ".revision=${REVISION}"} {
		assert.Contains(t, string(script), want)
	}
}
