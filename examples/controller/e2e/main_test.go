package e2e_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
)

// shared is what the package's tests share (suite): the one
// package-level variable, since TestMain, which releases it, can hand the
// tests nothing.
var shared suite

func TestMain(m *testing.M) {
	// Each manager logs to its test; this quiets the library-wide root, and
	// addon-framework's klog.
	ctrl.SetLogger(logr.Discard())
	klog.SetLogger(logr.Discard())
	code := m.Run()
	if err := shared.release(); err != nil {
		fmt.Fprintf(os.Stderr, "releasing what the tests shared: %v\n", err)
		code = max(code, 1)
	}
	os.Exit(code)
}
