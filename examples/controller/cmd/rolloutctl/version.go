package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/examples/controller/internal/buildinfo"
	"github.com/rolloutkit/rolloutkit/examples/controller/internal/versionlease"
)

// defaultControllerNamespace is where config/default installs the
// controller: where version looks for its replicas' reports unless
// --namespace names another.
const defaultControllerNamespace = "rolloutkit-system"

// versionOutputs are the formats of version -o, the default first.
func versionOutputs() []string { return []string{"text", "json", "yaml"} }

// versions is what version reports: the client's build and, unless
// --client, the controller's replicas as they reported on the hub.
type versions struct {
	Client     buildinfo.Info     `json:"clientVersion"`
	Controller *controllerVersion `json:"controller,omitempty"`
}

// controllerVersion is the controller's replicas, read from the Lease.
type controllerVersion struct {
	// Lease is NAMESPACE/NAME of the Lease read.
	Lease    string                 `json:"lease"`
	Replicas []versionlease.Replica `json:"replicas"`
}

// fresh returns the replicas that are not stale.
func (v *controllerVersion) fresh() []versionlease.Replica {
	return slices.DeleteFunc(slices.Clone(v.Replicas), func(r versionlease.Replica) bool { return r.Stale })
}

// newVersionCommand is version: the client's build, and the
// controller's, as each replica reports it on the hub.
func newVersionCommand(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Show the version and VCS revision of this client and of the controller's replicas on the hub",
		Long: "Show the version and VCS revision of this client and of each replica of the controller, as it reports them on the\n" +
			"Lease " + versionlease.Name + " in the controller's namespace (--namespace; default " + defaultControllerNamespace + ").\n" +
			"Exit code 1 when no replica has reported lately: the controller is not running there, or cannot reach the hub.",
		Args: cobra.NoArgs,
	}
	output := cmd.Flags().StringP("output", "o", "text", "output: text, json or yaml")
	mustComplete(cmd, "output", cobra.FixedCompletions(versionOutputs(), cobra.ShellCompDirectiveNoFileComp))
	clientOnly := cmd.Flags().Bool("client", false, "the client's version only: do not read the hub")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		if !slices.Contains(versionOutputs(), *output) {
			return badUsage("version: -o %q: want %s", *output, strings.Join(versionOutputs(), ", "))
		}
		v := versions{Client: buildinfo.Read()}
		var readErr error
		if !*clientOnly {
			cl, err := c.client()
			if err != nil {
				return err
			}
			if v.Controller, readErr = c.controllerVersion(cmd.Context(), cl); v.Controller == nil {
				return readErr
			}
		}
		if err := writeVersions(c.stdout, v, *output, c.now()); err != nil {
			return err
		}
		if readErr != nil {
			return readErr
		}
		return v.Controller.noneFresh()
	}
	return cmd
}

// controllerNamespace is the namespace --namespace names, or the default.
func (c *cli) controllerNamespace() string {
	if ns := *c.hub.Namespace; ns != "" {
		return ns
	}
	return defaultControllerNamespace
}

// controllerVersion reads the replicas' reports. A report that cannot be
// read is an error beside the others (non-nil result); a Lease that
// cannot be read is an error alone.
func (c *cli) controllerVersion(ctx context.Context, cl client.Reader) (*controllerVersion, error) {
	ns := c.controllerNamespace()
	rs, err := versionlease.Read(ctx, cl, ns, c.now(), versionlease.DefaultStaleAfter)
	if rs == nil && err != nil {
		return nil, err
	}
	return &controllerVersion{Lease: ns + "/" + versionlease.Name, Replicas: rs}, err
}

// noneFresh is the error of a controller none of whose replicas has
// reported lately (nil: one has; a nil v, not read, is none).
func (v *controllerVersion) noneFresh() error {
	if v == nil || len(v.fresh()) > 0 {
		return nil
	}
	return refused("no replica of the controller has reported its version on lease %s in the last %s: "+
		"is the controller running, with -leader-elect-namespace=%s? (--namespace names another)",
		v.Lease, versionlease.DefaultStaleAfter, strings.SplitN(v.Lease, "/", 2)[0])
}

// writeVersions writes v as text (for a person, times as of now), JSON or
// YAML.
func writeVersions(w io.Writer, v versions, format string, now time.Time) error {
	switch format {
	case "text":
		return writeVersionsText(w, v, now)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	y, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Errorf("writing the versions as YAML: %w", err)
	}
	_, err = w.Write(y)
	return err
}

func writeVersionsText(w io.Writer, v versions, now time.Time) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Client: %s\n", v.Client)
	if cv := v.Controller; cv != nil {
		fmt.Fprintf(&b, "Controller (lease %s): %s\n", cv.Lease, cv.summary())
		for _, r := range cv.Replicas {
			fmt.Fprintf(&b, "  %s: %s, %s\n", r.Name, r.Info, reported(r, now))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// reported says when a replica last reported, and whether that is stale.
func reported(r versionlease.Replica, now time.Time) string {
	at := r.RenewTime.UTC().Format("2006-01-02 15:04:05 MST")
	ago := now.Sub(r.RenewTime.Time).Truncate(time.Second)
	if r.Stale {
		return fmt.Sprintf("stale: last reported %s (%s ago; stopped without saying so, or cannot reach the hub)", at, ago)
	}
	return fmt.Sprintf("reported %s (%s ago)", at, ago)
}

// summary is one line about the replicas reporting: their version, or
// their versions in the middle of an upgrade.
func (v *controllerVersion) summary() string {
	fresh := v.fresh()
	if len(fresh) == 0 {
		if len(v.Replicas) == 0 {
			return "no replica has reported"
		}
		return "no replica has reported lately"
	}
	var versions []string
	for _, r := range fresh {
		if s := r.Version + " (" + r.Revision + ")"; !slices.Contains(versions, s) {
			versions = append(versions, s)
		}
	}
	slices.Sort(versions)
	if len(versions) == 1 {
		return fmt.Sprintf("%s on %d replica(s)", versions[0], len(fresh))
	}
	return fmt.Sprintf("%d versions on %d replicas, an upgrade in progress: %s", len(versions), len(fresh), strings.Join(versions, ", "))
}
