package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	name, args := invokedAs(os.Args[0], os.Args[1:])
	os.Exit(run(ctx, args, env{name: name, stdout: os.Stdout, stderr: os.Stderr, connect: connect, now: time.Now}))
}

// Exit codes, as every example program has them.
const (
	exitDone     = 0 // done
	exitFailed   = 1 // refused, or the hub failed a request
	exitBadUsage = 2 // bad usage or input
)

// env is what the program is run with: the name it was invoked by, its
// outputs, how it reaches the hub, and its clock.
type env struct {
	// name is the command as a person types it: "rolloutctl", or
	// "kubectl rolloutkit" for the kubectl plugin. Usage, errors and the
	// commands status suggests name it.
	name           string
	stdout, stderr io.Writer
	// connect returns a client of the hub that the kubectl flags name.
	connect func(restConfigGetter) (client.Client, error)
	// now is the time to plan at.
	now func() time.Time
}

// restConfigGetter is what connect needs of the kubectl flags
// (genericclioptions.ConfigFlags): the hub's REST config.
type restConfigGetter interface {
	ToRESTConfig() (*rest.Config, error)
}

// invokedAs returns the name the program was invoked by (argv0 is
// os.Args[0]) as a person types it, and its arguments: kubectl runs the
// plugin kubectl-rolloutkit for "kubectl rolloutkit", and
// kubectl_complete-rolloutkit (a link to the same binary) to complete the
// words after it, which is cobra's hidden __complete command.
func invokedAs(argv0 string, args []string) (string, []string) {
	base := filepath.Base(argv0)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	if rest, ok := strings.CutPrefix(base, "kubectl_complete-"); ok {
		return "kubectl " + pluginName(rest), append([]string{"__complete"}, args...)
	}
	if rest, ok := strings.CutPrefix(base, "kubectl-"); ok {
		return "kubectl " + pluginName(rest), args
	}
	if base == "" || base == "." {
		return "rolloutctl", args
	}
	return base, args
}

// pluginName is the command kubectl runs the plugin file kubectl-NAME
// for: each "-" separates a word, each "_" is a "-" of the command.
func pluginName(file string) string {
	return strings.ReplaceAll(strings.ReplaceAll(file, "-", " "), "_", "-")
}

// exitError is an error that ends the program with its code; any other
// error ends it with exitFailed.
type exitError struct {
	code int
	err  error
}

// Error is the error's message, without its code.
func (e *exitError) Error() string { return e.err.Error() }

// Unwrap returns the error the code was given to.
func (e *exitError) Unwrap() error { return e.err }

// badUsage is an error of the user's input: exit code 2.
func badUsage(format string, args ...any) error {
	return &exitError{code: exitBadUsage, err: fmt.Errorf(format, args...)}
}

// refused is an error of an act that cannot be done on the hub as it is:
// exit code 1.
func refused(format string, args ...any) error {
	return &exitError{code: exitFailed, err: fmt.Errorf(format, args...)}
}

// run is the program; it returns the exit code.
func run(ctx context.Context, args []string, e env) int {
	if args == nil {
		args = []string{} // nil makes cobra read os.Args
	}
	if slices.Equal(args, []string{"-version"}) {
		args = []string{"--version"} // one dash, as the controller and testhub take it
	}
	root := newRootCommand(e)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitDone
	}
	fmt.Fprintf(e.stderr, "%s: %v\n", e.name, err)
	code := exitFailed
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if code == exitBadUsage && cmd != nil {
		fmt.Fprintf(e.stderr, "See '%s --help'.\n", cmd.CommandPath())
	}
	return code
}
