package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// built is the image under test: its layout tar, the binary it was
// packed from, and the build it says it is.
type built struct {
	tar, binary       string
	version, revision string
	modified          bool
	created           time.Time
}

// The environment that names a release's image for TestImageLayout to
// read back instead of its own (hack/release.sh sets them all).
const (
	envImage    = "ROLLOUTKIT_IMAGE"
	envBinary   = "ROLLOUTKIT_IMAGE_BINARY"
	envVersion  = "ROLLOUTKIT_IMAGE_VERSION"
	envRevision = "ROLLOUTKIT_IMAGE_REVISION"
	envModified = "ROLLOUTKIT_IMAGE_MODIFIED"
	envCreated  = "ROLLOUTKIT_IMAGE_CREATED"
)

// underTest returns the image that hack/release.sh names in the
// environment or, when it names none, builds one: the controller built
// with the one build command, hack/build-controller.sh, stamped with a
// test version, packed by the program.
func underTest(t *testing.T) built {
	t.Helper()
	if os.Getenv(envImage) != "" {
		b := built{tar: os.Getenv(envImage), binary: os.Getenv(envBinary), version: os.Getenv(envVersion),
			revision: os.Getenv(envRevision), modified: os.Getenv(envModified) == "true"}
		var err error
		b.created, err = time.Parse(time.RFC3339, os.Getenv(envCreated))
		require.NoError(t, err, "$%s", envCreated)
		require.NotEmpty(t, b.binary, "$%s", envBinary)
		require.NotEmpty(t, b.version, "$%s", envVersion)
		require.NotEmpty(t, b.revision, "$%s", envRevision)
		return b
	}
	b := built{binary: filepath.Join(t.TempDir(), "rolloutkit-controller"), version: "v9.8.7-test",
		revision: "0123456789abcdef0123456789abcdef01234567", created: time.Date(2026, 12, 4, 22, 2, 34, 0, time.UTC)}
	cmd := exec.Command("bash", filepath.Join("..", "..", "hack", "build-controller.sh"), b.binary)
	cmd.Env = append(os.Environ(), "VERSION="+b.version, "REVISION="+b.revision, "MODIFIED=false", "GOOS=linux")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "hack/build-controller.sh: %s", out)
	b.tar = filepath.Join(t.TempDir(), "controller.oci.tar")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(b.args(b.tar), &stdout, &stderr), stderr.String())
	t.Log(strings.TrimSpace(stdout.String()))
	return b
}

// args are the program's flags that pack b into out.
func (b built) args(out string) []string {
	return []string{"-binary", b.binary, "-version", b.version, "-revision", b.revision, "-created", b.created.Format(time.RFC3339), "-o", out}
}

// TestImageLayout reads an image's OCI layout tar back (a release's, or
// one it builds as a release does): one image, named by its version; its
// config runs the binary as 65532:65532 with the OCI labels and the
// commit's time; exactly one layer, holding exactly the binary, which has
// time zones and CA roots built in and, run with -version, says the
// version and revision stamped. A second pack of the binary gives the
// same bytes.
func TestImageLayout(t *testing.T) {
	t.Parallel()
	b := underTest(t)
	img := readLayout(t, b.tar, b.version)
	m, err := img.Manifest()
	require.NoError(t, err)
	assert.Equal(t, types.OCIManifestSchema1, m.MediaType)
	assert.Equal(t, types.OCIConfigJSON, m.Config.MediaType)
	cf, err := img.ConfigFile()
	require.NoError(t, err)
	assert.Equal(t, []string{"/rolloutkit-controller"}, cf.Config.Entrypoint)
	assert.Empty(t, cf.Config.Cmd)
	assert.Equal(t, "65532:65532", cf.Config.User)
	assert.Equal(t, map[string]string{"org.opencontainers.image.version": b.version, "org.opencontainers.image.revision": b.revision,
		"org.opencontainers.image.source": "https://github.com/rolloutkit/rolloutkit", "org.opencontainers.image.created": b.created.UTC().Format(time.RFC3339)},
		cf.Config.Labels)
	assert.Equal(t, "linux", cf.OS)
	assert.Equal(t, runtime.GOARCH, cf.Architecture)
	assert.True(t, b.created.Equal(cf.Created.Time), "created %s", cf.Created)

	require.Len(t, m.Layers, 1, "layers")
	assert.Equal(t, types.OCILayer, m.Layers[0].MediaType)
	got := layerFile(t, img, b.created)
	want, err := os.ReadFile(b.binary)
	require.NoError(t, err)
	require.Equal(t, sha256.Sum256(want), sha256.Sum256(got), "the layer's file is not the binary")

	extracted := filepath.Join(t.TempDir(), "rolloutkit-controller")
	require.NoError(t, os.WriteFile(extracted, got, 0o755))
	requireEmbedded(t, extracted)
	version, err := exec.Command(extracted, "-version").CombinedOutput()
	require.NoError(t, err, "%s", version)
	modified := ""
	if b.modified {
		modified = ", modified"
	}
	assert.Equal(t, "controller "+b.version+" (revision "+b.revision+modified+", "+runtime.Version()+")\n", string(version))

	again := filepath.Join(t.TempDir(), "again.oci.tar")
	var stderr bytes.Buffer
	require.Equal(t, 0, run(b.args(again), io.Discard, &stderr), stderr.String())
	x, err := os.ReadFile(b.tar)
	require.NoError(t, err)
	y, err := os.ReadFile(again)
	require.NoError(t, err)
	assert.Equal(t, sha256.Sum256(x), sha256.Sum256(y), "two packs of one binary differ")
}

// readLayout unpacks the layout tar and returns its one image, checking
// that the index names it by its version.
func readLayout(t *testing.T, file, version string) v1.Image {
	t.Helper()
	dir := t.TempDir()
	untar(t, file, dir)
	idx, err := layout.ImageIndexFromPath(dir)
	require.NoError(t, err)
	im, err := idx.IndexManifest()
	require.NoError(t, err)
	require.Len(t, im.Manifests, 1, "images in the layout")
	d := im.Manifests[0]
	assert.Equal(t, types.OCIManifestSchema1, d.MediaType)
	assert.Equal(t, map[string]string{RefName: version}, d.Annotations)
	img, err := idx.Image(d.Digest)
	require.NoError(t, err)
	return img
}

// untar writes the regular files of the tar file into dir.
func untar(t *testing.T, file, dir string) {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		require.NoError(t, err)
		path := filepath.Join(dir, filepath.FromSlash(hdr.Name))
		require.True(t, strings.HasPrefix(path, dir+string(filepath.Separator)), "entry %q leaves the layout", hdr.Name)
		if hdr.Typeflag == tar.TypeDir {
			require.NoError(t, os.MkdirAll(path, 0o755))
			continue
		}
		require.Equal(t, byte(tar.TypeReg), hdr.Typeflag, hdr.Name)
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, data, 0o644))
	}
}

// layerFile returns the one file of the image's one layer, checking that
// it is the controller, executable, at the root.
func layerFile(t *testing.T, img v1.Image, created time.Time) []byte {
	t.Helper()
	layers, err := img.Layers()
	require.NoError(t, err)
	rc, err := layers[0].Uncompressed()
	require.NoError(t, err)
	defer rc.Close()
	tr := tar.NewReader(rc)
	hdr, err := tr.Next()
	require.NoError(t, err)
	assert.Equal(t, "rolloutkit-controller", hdr.Name)
	assert.Equal(t, byte(tar.TypeReg), hdr.Typeflag)
	assert.Equal(t, int64(0o755), hdr.Mode)
	assert.True(t, created.Equal(hdr.ModTime), "the file's time %s", hdr.ModTime)
	data, err := io.ReadAll(tr)
	require.NoError(t, err)
	_, err = tr.Next()
	assert.ErrorIs(t, err, io.EOF, "a second file in the layer")
	return data
}

// requireEmbedded checks that the binary brings what an empty base
// lacks: the CA roots of golang.org/x/crypto/x509roots/fallback (a
// dependency its build information lists) and time/tzdata's zone
// database (a zip whose directory names the zones, none of which any
// other package of the controller holds).
func requireEmbedded(t *testing.T, bin string) {
	t.Helper()
	info, err := buildinfo.ReadFile(bin)
	require.NoError(t, err)
	var deps []string
	for _, d := range info.Deps {
		deps = append(deps, d.Path)
	}
	assert.Contains(t, deps, "golang.org/x/crypto/x509roots/fallback", "the binary's CA roots")
	data, err := os.ReadFile(bin)
	require.NoError(t, err)
	assert.True(t, bytes.Contains(data, []byte("America/Argentina/ComodRivadavia")), "the binary lacks time/tzdata's zones")
}

// TestFlags: bad flags exit 2 and say every problem; -h exits 0.
func TestFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"help", []string{"-h"}, 0, []string{"usage: image -binary FILE"}},
		{"nothing", nil, 2, []string{"-binary is required", "-version is required", "-revision is required", "-o is required", `-created "": want an RFC 3339 time`}},
		{"a bad time", []string{"-binary", "b", "-version", "v1", "-revision", "r", "-o", "x.tar", "-created", "yesterday"}, 2, []string{`-created "yesterday"`}},
		{"an argument", []string{"-binary", "b", "-version", "v1", "-revision", "r", "-o", "x.tar", "-created", "2026-12-04T22:02:34Z", "extra"}, 2, []string{`unexpected arguments ["extra"]`}},
		{"not a binary", []string{"-binary", "image_test.go", "-version", "v1", "-revision", "r", "-o", filepath.Join(t.TempDir(), "x.tar"), "-created", "2026-12-04T22:02:34Z"}, 1,
			[]string{`-binary "image_test.go": want a Linux ELF binary`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			assert.Equal(t, tt.code, run(tt.args, io.Discard, &stderr))
			for _, w := range tt.want {
				assert.Contains(t, stderr.String(), w)
			}
		})
	}
}
