package e2e_test

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
)

func TestMain(m *testing.M) {
	// Each manager logs to its test; this quiets the library-wide root, and
	// addon-framework's klog.
	ctrl.SetLogger(logr.Discard())
	klog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
