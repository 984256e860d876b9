package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/hubplan/planreport"
)

// kinds are the resources plan reads, as `kubectl get` names them.
const kinds = "managedclusters,placements,placementdecisions,clustermanagementaddons,managedclusteraddons," +
	"managedclustersets,managedclustersetbindings,addonplacementscores"

// hub is what the YAML said about the hub: the objects of the kinds the
// planner uses, in the versions it uses (add-on objects of v1alpha1 are
// held converted to v1beta1, cluster sets of v1beta1 to v1beta2), and the
// AddOnRollouts and RolloutApprovals. Other kinds are counted and ignored.
type hub struct {
	clusters   []*clusterv1.ManagedCluster
	sets       []*clusterv1beta2.ManagedClusterSet
	bindings   []*clusterv1beta2.ManagedClusterSetBinding
	scores     []*clusterv1alpha1.AddOnPlacementScore
	placements []*clusterv1beta1.Placement
	decisions  []*clusterv1beta1.PlacementDecision
	cmas       []*addonv1beta1.ClusterManagementAddOn
	mcas       []*addonv1beta1.ManagedClusterAddOn
	rollouts   []*v1alpha1.AddOnRollout
	approvals  []*v1alpha1.RolloutApproval
	works      []*workv1.ManifestWork // nil: none listed
	// others are objects of every other kind, kept so that config objects
	// (e.g. a ManagedProxyConfiguration) can be hashed.
	others  []*unstructured.Unstructured
	ignored map[string]int // kind -> count
}

// planHub is what the planner reads of h. The objects are shared.
func (h *hub) planHub() *planreport.Hub {
	return &planreport.Hub{
		Clusters:                  h.clusters,
		ManagedClusterSets:        h.sets,
		ManagedClusterSetBindings: h.bindings,
		AddOnPlacementScores:      h.scores,
		Placements:                h.placements,
		Decisions:                 h.decisions,
		ClusterManagementAddOns:   h.cmas,
		ManagedClusterAddOns:      h.mcas,
		Configs:                   h.others,
		AddOnRollouts:             h.rollouts,
		RolloutApprovals:          h.approvals,
		Works:                     h.works,
	}
}

// readHub reads multi-document YAML (or JSON), with `kind: List` documents
// expanded, as `kubectl get ... -o yaml` prints it. It refuses input over
// limit bytes before parsing any of it.
func readHub(r io.Reader, limit int64) (*hub, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading input: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("input is larger than the limit of %d bytes (see -max-bytes)", limit)
	}
	const want = "want the YAML that `kubectl get " + kinds + " -A -o yaml` prints"
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("the input is empty: " + want)
	}
	d, err := newDecoder()
	if err != nil {
		return nil, err
	}
	h := &hub{ignored: map[string]int{}}
	docs, err := eachDocument(data, func(js []byte, where string) error { return h.add(d, js, where) })
	if err != nil {
		return nil, err
	}
	if docs == 0 {
		return nil, errors.New("the input holds only comments and empty documents: " + want)
	}
	h.sort()
	return h, nil
}

// eachDocument calls add with each YAML document of data as JSON, and
// returns how many there were, empty ones and comments left out.
func eachDocument(data []byte, add func(js []byte, where string) error) (int, error) {
	docs := 0
	yr := utilyaml.NewYAMLReader(bufio.NewReaderSize(bytes.NewReader(data), 64*1024))
	for n := 1; ; n++ {
		doc, err := yr.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return docs, fmt.Errorf("document %d: %w", n, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return docs, fmt.Errorf("document %d: not valid YAML: %w", n, err)
		}
		if bytes.Equal(js, []byte("null")) {
			continue // only comments
		}
		docs++
		if err := add(js, fmt.Sprintf("document %d", n)); err != nil {
			return docs, err
		}
	}
}

// add decodes one JSON object, or the items of a list, into the hub.
func (h *hub) add(d *decoder, js []byte, where string) error {
	if bytes.Equal(bytes.TrimSpace(js), []byte("null")) {
		return nil
	}
	obj, err := d.decode(js, where)
	if err != nil {
		return err
	}
	for i, it := range obj.items {
		if err := h.add(d, it, fmt.Sprintf("%s, items[%d]", where, i)); err != nil {
			return err
		}
	}
	switch {
	case obj.other != nil:
		h.others = append(h.others, obj.other)
		h.ignored[obj.gvk.Kind]++
	case obj.typed != nil:
		if err := h.addTyped(obj.typed, obj.gvk); err != nil {
			return fmt.Errorf("%s: %s: %w", where, named(obj.gvk.Kind, js), err)
		}
	}
	return nil
}

// addTyped adds an object of a kind plan uses, in the version the planner
// reads: add-ons of v1alpha1 converted to v1beta1, cluster sets of v1beta1
// to v1beta2.
func (h *hub) addTyped(obj runtime.Object, gvk schema.GroupVersionKind) error {
	switch o := obj.(type) {
	case *clusterv1.ManagedCluster:
		h.clusters = append(h.clusters, o)
	case *clusterv1beta2.ManagedClusterSet:
		h.sets = append(h.sets, clusterSetV1beta2(o, gvk))
	case *clusterv1beta2.ManagedClusterSetBinding:
		h.bindings = append(h.bindings, bindingV1beta2(o))
	case *clusterv1alpha1.AddOnPlacementScore:
		h.scores = append(h.scores, o)
	case *clusterv1beta1.Placement:
		h.placements = append(h.placements, o)
	case *clusterv1beta1.PlacementDecision:
		h.decisions = append(h.decisions, o)
	case *v1alpha1.AddOnRollout:
		h.rollouts = append(h.rollouts, o)
	case *v1alpha1.RolloutApproval:
		h.approvals = append(h.approvals, o)
	case *workv1.ManifestWork:
		h.works = append(h.works, o)
	default:
		return h.addAddon(obj)
	}
	return nil
}

// sort orders every list by namespace and name, so that output does not
// depend on the order of the input.
func (h *hub) sort() {
	sortObjects(h.clusters, func(o *clusterv1.ManagedCluster) metav1.Object { return o })
	sortObjects(h.sets, func(o *clusterv1beta2.ManagedClusterSet) metav1.Object { return o })
	sortObjects(h.bindings, func(o *clusterv1beta2.ManagedClusterSetBinding) metav1.Object { return o })
	sortObjects(h.scores, func(o *clusterv1alpha1.AddOnPlacementScore) metav1.Object { return o })
	sortObjects(h.placements, func(o *clusterv1beta1.Placement) metav1.Object { return o })
	sortObjects(h.decisions, func(o *clusterv1beta1.PlacementDecision) metav1.Object { return o })
	sortObjects(h.cmas, func(o *addonv1beta1.ClusterManagementAddOn) metav1.Object { return o })
	sortObjects(h.mcas, func(o *addonv1beta1.ManagedClusterAddOn) metav1.Object { return o })
	sortObjects(h.rollouts, func(o *v1alpha1.AddOnRollout) metav1.Object { return o })
	sortObjects(h.approvals, func(o *v1alpha1.RolloutApproval) metav1.Object { return o })
	sortObjects(h.works, func(o *workv1.ManifestWork) metav1.Object { return o })
	sortObjects(h.others, func(o *unstructured.Unstructured) metav1.Object { return o })
}

func sortObjects[T any](s []T, meta func(T) metav1.Object) {
	sort.SliceStable(s, func(i, j int) bool {
		a, b := meta(s[i]), meta(s[j])
		if a.GetNamespace() != b.GetNamespace() {
			return a.GetNamespace() < b.GetNamespace()
		}
		return a.GetName() < b.GetName()
	})
}
