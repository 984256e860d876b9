package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the program: 0 written, 1 failed, 2 bad flags.
func run(args []string, stdout, stderr io.Writer) int {
	o, out, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "image: %v\n", err)
		return 2
	}
	sum, err := Write(o, out)
	if err != nil {
		fmt.Fprintf(stderr, "image: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %s %s/%s, manifest %s, layer %d bytes compressed (%d uncompressed), layout tar %d bytes\n",
		out, o.Version, sum.OS, sum.Arch, sum.Digest, sum.LayerSize, sum.BinarySize, sum.TarSize)
	return 0
}

// parse reads the flags into Options and the output path, or returns
// every problem with them (flag.ErrHelp for -h).
func parse(args []string, stderr io.Writer) (Options, string, error) {
	var o Options
	var out, created string
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: image -binary FILE -version V -revision R -created TIME -o FILE.tar\n\n"+
			"Packs the controller's static binary into an OCI image on an empty base, written as an OCI layout in a tar file.\n"+
			"Exit codes: 0 written, 1 failed, 2 bad flags.\n\nflags:\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&o.Binary, "binary", "", "the controller's static binary (hack/build-controller.sh)")
	fs.StringVar(&o.Version, "version", "", "the label org.opencontainers.image.version, and the layout's ref name: the release's version, v0.2.0")
	fs.StringVar(&o.Revision, "revision", "", "the label org.opencontainers.image.revision: the commit built")
	fs.StringVar(&o.Source, "source", DefaultSource, "the label org.opencontainers.image.source: the repository")
	fs.StringVar(&created, "created", "", "the image's creation time, RFC 3339: the commit's time (git log -1 --format=%cI), for the same bytes from every build of it")
	fs.StringVar(&out, "o", "", "the tar file to write")
	if err := fs.Parse(args); err != nil {
		return o, "", err
	}
	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q: every option is a flag", fs.Args()))
	}
	for _, f := range []struct{ name, value string }{{"binary", o.Binary}, {"version", o.Version}, {"revision", o.Revision}, {"o", out}} {
		if f.value == "" {
			errs = append(errs, fmt.Errorf("-%s is required", f.name))
		}
	}
	t, err := time.Parse(time.RFC3339, created)
	if err != nil {
		errs = append(errs, fmt.Errorf("-created %q: want an RFC 3339 time, such as 2026-12-04T22:02:34Z (git log -1 --format=%%cI)", created))
	}
	o.Created = t
	return o, out, errors.Join(errs...)
}
