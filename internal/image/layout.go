package main

import (
	"archive/tar"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// RefName is the annotation of the layout's index that names the image's
// tag (the version), as the OCI image layout spec has it.
const RefName = "org.opencontainers.image.ref.name"

// Summary is what Write wrote.
type Summary struct {
	// Digest is the image manifest's.
	Digest string
	// OS and Arch are the image's platform.
	OS, Arch string
	// LayerSize is the layer's compressed size, BinarySize the binary's,
	// and TarSize the layout tar's, in bytes.
	LayerSize, BinarySize, TarSize int64
}

// Write writes the image of o as an OCI image layout, in the tar file
// out: the layout is made in a directory of its own, then put in the tar
// with its files in name order and dated o.Created.
func Write(o Options, out string) (Summary, error) {
	img, err := Image(o)
	if err != nil {
		return Summary{}, err
	}
	dir, err := os.MkdirTemp("", "rolloutkit-image-")
	if err != nil {
		return Summary{}, err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return Summary{}, fmt.Errorf("the layout: %w", err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{RefName: o.Version})); err != nil {
		return Summary{}, fmt.Errorf("the layout: %w", err)
	}
	size, err := tarDir(dir, out, o.Created)
	if err != nil {
		return Summary{}, fmt.Errorf("-o %q: %w", out, err)
	}
	sum, err := summarize(img, size)
	if err != nil {
		return Summary{}, err
	}
	bin, err := os.Stat(o.Binary)
	if err != nil {
		return Summary{}, err
	}
	sum.BinarySize = bin.Size()
	return sum, nil
}

// summarize describes img, whose layout tar is size bytes.
func summarize(img v1.Image, size int64) (Summary, error) {
	d, err := img.Digest()
	if err != nil {
		return Summary{}, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return Summary{}, err
	}
	layers, err := img.Layers()
	if err != nil {
		return Summary{}, err
	}
	s := Summary{Digest: d.String(), OS: cf.OS, Arch: cf.Architecture, TarSize: size}
	for _, l := range layers {
		n, err := l.Size()
		if err != nil {
			return Summary{}, err
		}
		s.LayerSize += n
	}
	return s, nil
}

// tarDir writes the files under dir into the tar file out, in name order,
// each dated at, owned by root, and returns the tar's size.
func tarDir(dir, out string, at time.Time) (int64, error) {
	f, err := os.Create(out)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error { // WalkDir walks in name order
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: filepath.ToSlash(rel), ModTime: at.UTC(), Format: tar.FormatPAX, Mode: 0o644, Typeflag: tar.TypeReg}
		if d.IsDir() {
			hdr.Name, hdr.Mode, hdr.Typeflag = hdr.Name+"/", 0o755, tar.TypeDir
			return tw.WriteHeader(hdr)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr.Size = info.Size()
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		return copyFile(tw, path)
	})
	if err != nil {
		return 0, err
	}
	if err := tw.Close(); err != nil {
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	info, err := os.Stat(out)
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
