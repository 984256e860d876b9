package seed

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/yaml"
)

//go:embed testdata/*.yaml
var files embed.FS

// File names of the embedded manifests.
const (
	ManagedClustersFile           = "managedclusters.yaml"
	PlacementFile                 = "placement.yaml"
	ScheduledPlacementFile        = "placement-scheduled.yaml"
	PlacementDecisionsFile        = "placementdecisions.yaml"
	ClusterManagementAddOnFile    = "clustermanagementaddon.yaml"
	ManagedProxyConfigurationFile = "managedproxyconfiguration.yaml"
)

// Raw returns the bytes of one embedded manifest file.
func Raw(name string) ([]byte, error) {
	return files.ReadFile("testdata/" + name)
}

// Documents splits multi-document YAML into its documents, skipping empty
// ones.
func Documents(data []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		docs = append(docs, doc)
	}
}

func decodeAll[T any](name string) ([]*T, error) {
	data, err := Raw(name)
	if err != nil {
		return nil, err
	}
	docs, err := Documents(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := make([]*T, 0, len(docs))
	for i, d := range docs {
		obj := new(T)
		if err := yaml.UnmarshalStrict(d, obj); err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, i, err)
		}
		out = append(out, obj)
	}
	return out, nil
}

func decodeOne[T any](name string) (*T, error) {
	all, err := decodeAll[T](name)
	if err != nil {
		return nil, err
	}
	if len(all) != 1 {
		return nil, fmt.Errorf("%s: %d documents, want 1", name, len(all))
	}
	return all[0], nil
}

// ManagedClusters returns dev-cluster, stg-cluster and prod-cluster.
func ManagedClusters() ([]*clusterv1.ManagedCluster, error) {
	return decodeAll[clusterv1.ManagedCluster](ManagedClustersFile)
}

// Placement returns cluster-proxy-placement as the user writes it (no status).
func Placement() (*clusterv1beta1.Placement, error) {
	return decodeOne[clusterv1beta1.Placement](PlacementFile)
}

// ScheduledPlacement returns cluster-proxy-placement with the status the
// seed shows after scheduling. The seed's "<timestamp>" is written as
// 2026-11-30T12:00:00Z.
func ScheduledPlacement() (*clusterv1beta1.Placement, error) {
	return decodeOne[clusterv1beta1.Placement](ScheduledPlacementFile)
}

// PlacementDecisions returns the three PlacementDecisions the seed shows.
// Their owner references carry the seed's literal UID "<Placement UID>".
func PlacementDecisions() ([]*clusterv1beta1.PlacementDecision, error) {
	return decodeAll[clusterv1beta1.PlacementDecision](PlacementDecisionsFile)
}

// ClusterManagementAddOn returns the cluster-proxy ClusterManagementAddOn
// with its ProgressivePerGroup rollout strategy.
func ClusterManagementAddOn() (*addonv1beta1.ClusterManagementAddOn, error) {
	return decodeOne[addonv1beta1.ClusterManagementAddOn](ClusterManagementAddOnFile)
}

// ManagedProxyConfiguration returns the seed's cluster-proxy
// ManagedProxyConfiguration, with both images at tag vX.Y.Z.
func ManagedProxyConfiguration() (*unstructured.Unstructured, error) {
	data, err := Raw(ManagedProxyConfigurationFile)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &obj.Object); err != nil {
		return nil, fmt.Errorf("%s: %w", ManagedProxyConfigurationFile, err)
	}
	return obj, nil
}
