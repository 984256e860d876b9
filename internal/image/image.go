package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed parts.
const (
	// Path is where the binary is in the image, and the entrypoint.
	Path = "/rolloutkit-controller"
	// User is the user and group the image runs as: distroless's nonroot.
	User = "65532:65532"
	// DefaultSource is the label org.opencontainers.image.source.
	DefaultSource = "https://github.com/rolloutkit/rolloutkit"
)

// The OCI labels the image carries (the annotation keys of the image
// spec, as labels of the config).
const (
	LabelVersion  = "org.opencontainers.image.version"
	LabelRevision = "org.opencontainers.image.revision"
	LabelSource   = "org.opencontainers.image.source"
	LabelCreated  = "org.opencontainers.image.created"
)

// Options are what the image is made of.
type Options struct {
	// Binary is the path of the controller's static binary.
	Binary string
	// Version, Revision and Source are the OCI labels.
	Version, Revision, Source string
	// Created is the image's creation time, and the time of its one
	// file: the commit's.
	Created time.Time
}

// Image returns the image of o: on an empty base, one layer holding the
// binary, and a config that runs it as User, with the labels.
func Image(o Options) (v1.Image, error) {
	bin, err := os.ReadFile(o.Binary)
	if err != nil {
		return nil, fmt.Errorf("-binary: %w", err)
	}
	arch, err := elfArch(bin)
	if err != nil {
		return nil, fmt.Errorf("-binary %q: %w", o.Binary, err)
	}
	layerTar, err := binaryLayer(bin, o.Created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layerTar)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("the layer: %w", err)
	}
	created := v1.Time{Time: o.Created.UTC()}
	img, err := mutate.Append(mutate.MediaType(empty.Image, types.OCIManifestSchema1), mutate.Addendum{Layer: layer,
		History: v1.History{Created: created, CreatedBy: "internal/image: COPY rolloutkit-controller " + Path, Comment: o.Version}})
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", arch, created
	cf.Config.Entrypoint = []string{Path}
	cf.Config.User = User
	cf.Config.Labels = map[string]string{LabelVersion: o.Version, LabelRevision: o.Revision, LabelSource: o.Source,
		LabelCreated: created.Format(time.RFC3339)}
	return mutate.ConfigFile(img, cf)
}

// binaryLayer is the layer's tar: the binary at Path, owned by root,
// executable by all, dated at.
func binaryLayer(bin []byte, at time.Time) ([]byte, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: Path[1:], Mode: 0o755, Size: int64(len(bin)), ModTime: at.UTC(), Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(bin); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// elfArch returns the GOARCH of a Linux ELF binary, or an error when bin
// is none.
func elfArch(bin []byte) (string, error) {
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		return "", fmt.Errorf("want a Linux ELF binary (hack/build-controller.sh builds one): %w", err)
	}
	defer f.Close()
	arch, ok := map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64", elf.EM_PPC64: "ppc64le", elf.EM_S390: "s390x"}[f.Machine]
	if !ok {
		return "", fmt.Errorf("ELF machine %s: want amd64, arm64, ppc64le or s390x", f.Machine)
	}
	return arch, nil
}
