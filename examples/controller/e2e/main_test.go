package e2e_test

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
)

func TestMain(m *testing.M) {
	// Each manager logs to its test; this quiets the library-wide root.
	ctrl.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
