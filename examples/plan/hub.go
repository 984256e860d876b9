package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	workv1 "open-cluster-management.io/api/work/v1"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1alpha1 "open-cluster-management.io/api/cluster/v1alpha1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	clusterv1beta2 "open-cluster-management.io/api/cluster/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
	"github.com/rolloutkit/rolloutkit/examples/internal/planreport"
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
	h := &hub{ignored: map[string]int{}}
	docs := 0
	yr := utilyaml.NewYAMLReader(bufio.NewReaderSize(bytes.NewReader(data), 64*1024))
	for n := 1; ; n++ {
		doc, err := yr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: not valid YAML: %w", n, err)
		}
		if bytes.Equal(js, []byte("null")) {
			continue // only comments
		}
		docs++
		if err := h.add(js, fmt.Sprintf("document %d", n)); err != nil {
			return nil, err
		}
	}
	if docs == 0 {
		return nil, errors.New("the input holds only comments and empty documents: " + want)
	}
	h.sort()
	return h, nil
}

// add decodes one JSON object, or the items of a List, into the hub.
func (h *hub) add(js []byte, where string) error {
	if bytes.Equal(bytes.TrimSpace(js), []byte("null")) {
		return nil
	}
	var tm metav1.TypeMeta
	if err := json.Unmarshal(js, &tm); err != nil {
		return fmt.Errorf("%s: want a Kubernetes object with apiVersion and kind: %w", where, err)
	}
	if tm.Kind == "List" || (len(tm.Kind) > 4 && strings.HasSuffix(tm.Kind, "List")) {
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(js, &list); err != nil {
			return fmt.Errorf("%s: %s: items: %w", where, tm.Kind, err)
		}
		for i, it := range list.Items {
			if err := h.add(it, fmt.Sprintf("%s, items[%d]", where, i)); err != nil {
				return err
			}
		}
		return nil
	}
	what := tm.Kind // the object, as errors name it
	var err error
	switch tm.Kind {
	case "ManagedCluster":
		err = decodeInto(js, &h.clusters)
	case "ManagedClusterSet":
		err = decodeClusterSet(js, tm.APIVersion, &h.sets)
	case "ManagedClusterSetBinding":
		err = decodeBinding(js, tm.APIVersion, &h.bindings)
	case "AddOnPlacementScore":
		err = decodeInto(js, &h.scores)
	case "Placement":
		err = decodeInto(js, &h.placements)
	case "PlacementDecision":
		err = decodeInto(js, &h.decisions)
	case "ClusterManagementAddOn":
		what = named(tm.Kind, js)
		if errs := checkDurations(js); len(errs) > 0 {
			return fmt.Errorf("%s: %s: %w", where, what, errs.ToAggregate())
		}
		err = decodeClusterManagementAddOn(js, tm.APIVersion, &h.cmas)
	case "ManagedClusterAddOn":
		what = named(tm.Kind, js)
		err = decodeManagedClusterAddOn(js, tm.APIVersion, &h.mcas)
	case "AddOnRollout":
		what = named(tm.Kind, js)
		err = decodeControl(js, tm.APIVersion, &h.rollouts)
	case "RolloutApproval":
		what = named(tm.Kind, js)
		err = decodeControl(js, tm.APIVersion, &h.approvals)
	case "ManifestWork":
		what = named(tm.Kind, js)
		err = decodeInto(js, &h.works)
	case "":
		return fmt.Errorf("%s: no kind: want a Kubernetes object such as a ManagedCluster or a Placement", where)
	default:
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(js); err != nil {
			return fmt.Errorf("%s: %s: %w", where, tm.Kind, err)
		}
		h.others = append(h.others, obj)
		h.ignored[tm.Kind]++
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %s: %w", where, what, err)
	}
	return nil
}

func decodeInto[T any](js []byte, into *[]*T) error {
	obj := new(T)
	if err := json.Unmarshal(js, obj); err != nil {
		return err
	}
	*into = append(*into, obj)
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
