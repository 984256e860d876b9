package chart

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"sync"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/release"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// Where the chart and the kustomize config are, from this package's
// directory.
var (
	chartDir  = filepath.Join("..", "..", "examples", "controller", "charts", "rolloutkit")
	configDir = filepath.Join("..", "..", "examples", "controller", "config")
)

// releaseName and namespace are those of the release rendered: the
// namespace config/default/kustomization.yaml sets, so that the two
// renderings name the same objects.
const (
	releaseName = "rolloutkit"
	namespace   = "rolloutkit-system"
)

// kubeVersion is the Kubernetes version the chart is rendered for: the
// test API server's (hack/test-apiserver.sh). Helm's default, in a test
// binary, is older than the chart's kubeVersion allows.
var kubeVersion = &common.KubeVersion{Version: "v1.37.2", Major: "1", Minor: "37"}

// renderChart renders the chart with vals as helm template does (client
// only, CRDs included) into namespace, and returns its objects.
func renderChart(vals map[string]any) ([]*unstructured.Unstructured, error) {
	ch, err := loader.Load(chartDir)
	if err != nil {
		return nil, fmt.Errorf("loading the chart %s: %w", chartDir, err)
	}
	install := action.NewInstall(action.NewConfiguration())
	install.DryRunStrategy = action.DryRunClient
	install.ReleaseName, install.Namespace = releaseName, namespace
	install.Replace = true // no release store to check the name against
	install.IncludeCRDs = true
	install.KubeVersion = kubeVersion
	rel, err := install.Run(ch, vals)
	if err != nil {
		return nil, fmt.Errorf("helm template %s: %w", chartDir, err)
	}
	acc, err := release.NewAccessor(rel)
	if err != nil {
		return nil, err
	}
	if hooks := acc.Hooks(); len(hooks) > 0 {
		return nil, fmt.Errorf("helm template %s: %d hooks: want none, kubectl apply -k has no counterpart", chartDir, len(hooks))
	}
	return decodeAll([]byte(acc.Manifest()))
}

// kustomizeMu serializes kustomize builds in the test process: kustomize
// keeps the OpenAPI schema it merges patches with in package-level
// variables, filled on first use without a lock, so parallel builds race.
var kustomizeMu sync.Mutex

// renderKustomize builds the kustomization in dir as kubectl apply -k
// does, as examples/controller/internal/manifests.Render does, one build
// at a time.
func renderKustomize(dir string) ([]*unstructured.Unstructured, error) {
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = krusty.ReorderOptionLegacy
	kustomizeMu.Lock()
	res, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	kustomizeMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	data, err := res.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	return decodeAll(data)
}

// decodeAll decodes every non-empty YAML document of data, through JSON,
// so that both renderings hold numbers as an object read from the API
// does (int64 and float64).
func decodeAll(data []byte) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 0; ; i++ {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if bytes.Equal(bytes.TrimSpace(js), []byte("null")) {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(js); err != nil {
			return nil, fmt.Errorf("document %d: %w\n%s", i, err, doc)
		}
		out = append(out, u)
	}
}

// objects are rendered objects by id.
type objects map[string]*unstructured.Unstructured

// id names an object "Kind namespace/name", the kind with its group.
func id(u *unstructured.Unstructured) string {
	return u.GroupVersionKind().GroupKind().String() + " " + u.GetNamespace() + "/" + u.GetName()
}

// byID indexes objs, or fails when two share an id.
func byID(objs []*unstructured.Unstructured) (objects, error) {
	out := objects{}
	for _, o := range objs {
		if _, dup := out[id(o)]; dup {
			return nil, fmt.Errorf("%s rendered twice", id(o))
		}
		out[id(o)] = o
	}
	return out, nil
}

// ids returns the ids of objs, sorted.
func (objs objects) ids() []string {
	out := make([]string, 0, len(objs))
	for k := range objs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ofKind returns the objects of kind (group-qualified, as id names it).
func (objs objects) ofKind(kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, k := range objs.ids() {
		if objs[k].GroupVersionKind().GroupKind().String() == kind {
			out = append(out, objs[k])
		}
	}
	return out
}
