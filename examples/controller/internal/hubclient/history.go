package hubclient

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rolloutkit/rolloutkit/hubplan"
)

// ListHistory lists the ControllerRevisions of the add-ons' revision
// histories (hubplan.HistoryOf) in namespace, the controller's: those of
// add-on addOn, or of every add-on when addOn is "".
func ListHistory(ctx context.Context, c client.Reader, namespace, addOn string) ([]*appsv1.ControllerRevision, error) {
	var list appsv1.ControllerRevisionList
	selector := client.ListOption(client.HasLabels{hubplan.HistoryLabel})
	what := "the add-ons' revision histories"
	if addOn != "" {
		selector, what = client.MatchingLabels{hubplan.HistoryLabel: addOn}, fmt.Sprintf("the revision history of %q", addOn)
	}
	if err := c.List(ctx, &list, client.InNamespace(namespace), selector); err != nil {
		return nil, fmt.Errorf("reading %s (ControllerRevisions in namespace %s): %w", what, namespace, err)
	}
	return Pointers(list.Items), nil
}
