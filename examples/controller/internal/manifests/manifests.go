package manifests

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// kustomizeMu serializes kustomize builds in this process. kustomize's
// kyaml keeps the OpenAPI schema it merges patches with in package-level
// variables, filled on first use without a lock: two builds at once (two
// parallel tests) race on them. The lock guards kustomize's state, not
// this package's, which has none.
var kustomizeMu sync.Mutex

// Render builds the kustomization in dir, on disk, as kubectl apply -k
// does (kustomize's legacy order: namespaces and CRDs first), and returns
// its objects in that order. Builds run one at a time (kustomizeMu).
func Render(dir string) ([]*unstructured.Unstructured, error) {
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = krusty.ReorderOptionLegacy
	kustomizeMu.Lock()
	res, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	kustomizeMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	out := make([]*unstructured.Unstructured, 0, res.Size())
	for _, r := range res.Resources() {
		// Through JSON, so that numbers are int64 and float64, as in any
		// object read from the API (kustomize's own maps hold ints).
		data, err := r.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("kustomize build %s: %s: %w", dir, r.CurId(), err)
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("kustomize build %s: %s: %w", dir, r.CurId(), err)
		}
		out = append(out, u)
	}
	return out, nil
}

// ReadDir reads the objects of the files in dir that kubectl apply -f
// reads (*.json, *.yaml and *.yml, in name order, every document of each),
// and nothing else. An empty document is skipped; one without apiVersion
// or kind is an error, as it is for kubectl.
func ReadDir(dir string) ([]*unstructured.Unstructured, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, e := range entries {
		if e.IsDir() || !slices.Contains([]string{".json", ".yaml", ".yml"}, filepath.Ext(e.Name())) {
			continue
		}
		objs, err := readFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

func readFile(name string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for i := 0; ; i++ {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, i, err)
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetAPIVersion() == "" || u.GetKind() == "" {
			return nil, fmt.Errorf("%s: document %d: want apiVersion and kind, as kubectl apply -f does", name, i)
		}
		out = append(out, u)
	}
}
