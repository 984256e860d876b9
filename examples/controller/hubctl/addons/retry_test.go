package addons

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestOnlyConflicts(t *testing.T) {
	t.Parallel()
	gr := schema.GroupResource{Group: "addon.open-cluster-management.io", Resource: "managedclusteraddons"}
	conflict := apierrors.NewConflict(gr, "cluster-proxy", errors.New("the object has been modified"))
	other := apierrors.NewForbidden(gr, "cluster-proxy", errors.New("no"))
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"one conflict", conflict, true},
		{"wrapped", fmt.Errorf("placement %q: %w", "a/b", conflict), true},
		{"joined conflicts", errors.Join(conflict, fmt.Errorf("x: %w", errors.Join(conflict))), true},
		{"a conflict and something else", fmt.Errorf("p: %w", errors.Join(conflict, other)), false},
		{"something else", other, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, onlyConflicts(tc.err))
		})
	}
}
