package e2e_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
)

// shared is the package's shared hub (sharedEnv): the one package-level
// variable, since TestMain, which stops it, can hand the tests nothing.
var shared sharedHub

func TestMain(m *testing.M) {
	// Each manager logs to its test; this quiets the library-wide root, and
	// addon-framework's klog.
	ctrl.SetLogger(logr.Discard())
	klog.SetLogger(logr.Discard())
	code := m.Run()
	if err := shared.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stopping the shared hub: %v\n", err)
		code = max(code, 1)
	}
	os.Exit(code)
}
