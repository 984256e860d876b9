// Command chartpackage packages a Helm chart as helm package does, with
// Helm's own Go SDK (action.Package), so that a release builds its chart
// where no helm binary is installed:
//
//	go run ./cmd/chartpackage -version 0.2.0 -app-version v0.2.0 -epoch 1733356800 -o dist ../../examples/controller/charts/rolloutkit
//
// It prints the archive's path. -epoch (seconds since 1970, the release
// commit's time) sets every file time in the archive, so that packaging
// the same commit twice gives the same bytes, as the release's image
// does.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v4/pkg/action"
)

func main() {
	path, err := run(os.Args[1:], os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chartpackage:", err)
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		os.Exit(2)
	}
	fmt.Println(path)
}

// run parses args, packages the chart they name, and returns the archive's
// path.
func run(args []string, stderr io.Writer) (string, error) {
	fs := flag.NewFlagSet("chartpackage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	p := action.NewPackage()
	fs.StringVar(&p.Version, "version", "", "the chart's version (semver, no v); empty: Chart.yaml's")
	fs.StringVar(&p.AppVersion, "app-version", "", "the chart's appVersion, the controller's image tag; empty: Chart.yaml's")
	fs.StringVar(&p.Destination, "o", ".", "the directory to write the archive to")
	epoch := fs.Int64("epoch", -1, "seconds since 1970 to stamp every file in the archive with; -1: the files' own times")
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if fs.NArg() != 1 {
		return "", fmt.Errorf("want one argument, the chart's directory; got %d", fs.NArg())
	}
	if p.Version != "" {
		if _, err := semver.StrictNewVersion(p.Version); err != nil {
			return "", fmt.Errorf("-version %q: want a semantic version without a v, such as 0.2.0: %w", p.Version, err)
		}
	}
	if *epoch >= 0 {
		t := time.Unix(*epoch, 0).UTC()
		p.SourceDateEpoch = &t
	}
	path, err := p.Run(fs.Arg(0), nil)
	if err != nil {
		return "", fmt.Errorf("packaging %s: %w", fs.Arg(0), err)
	}
	return path, nil
}
