package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/rolloutkit/rolloutkit/examples/controller/config"
)

// TestCRDChangesAdditive compares this tree's CRDs (config/crd) with
// those of upgradeFrom, the last release: every change must be additive,
// so that objects the release stored, and clients written for it, work
// unchanged. It fails naming the CRD, the version and the field path of a
// removed CRD, version or field, a changed type, a removed enum value (or
// an enum put on a field that had none), a newly required field of an
// object the release had, or a changed storage version without a
// conversion webhook (crdBreaks).
func TestCRDChangesAdditive(t *testing.T) {
	t.Parallel()
	old := readCRDs(t, earlierRelease(t).config("crd"))
	cur, err := config.CRDs()
	require.NoError(t, err)
	byName := make(map[string]*apiextensionsv1.CustomResourceDefinition, len(cur))
	for _, c := range cur {
		byName[c.Name] = c
	}
	require.NotEmpty(t, old)
	for _, o := range old {
		assert.Empty(t, crdBreaks(o, byName[o.Name]), "breaking changes to %s since %s", o.Name, upgradeFrom)
	}
}

// TestCRDBreaks checks crdBreaks with this tree's AddOnRollout CRD, each
// case changing a copy of it: additive changes pass, breaking ones are
// named by field path.
func TestCRDBreaks(t *testing.T) {
	t.Parallel()
	for _, tt := range crdChanges() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			crds, err := config.CRDs()
			require.NoError(t, err)
			i := slices.IndexFunc(crds, func(c *apiextensionsv1.CustomResourceDefinition) bool { return c.Spec.Names.Kind == "AddOnRollout" })
			require.GreaterOrEqual(t, i, 0)
			old, cur := crds[i], crds[i].DeepCopy()
			tt.change(cur)
			assert.Equal(t, tt.want, crdBreaks(old, cur))
		})
	}
}

// crdChange is a case of TestCRDBreaks: a change to the CRD, and what
// crdBreaks says of it.
type crdChange struct {
	name   string
	change func(*apiextensionsv1.CustomResourceDefinition)
	want   []string
}

// crdChanges are additive changes (want nil) and breaking ones.
func crdChanges() []crdChange {
	spec := func(c *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.JSONSchemaProps {
		s := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		return &s
	}
	setSpec := func(c *apiextensionsv1.CustomResourceDefinition, s *apiextensionsv1.JSONSchemaProps) {
		c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = *s
	}
	status := func(c *apiextensionsv1.CustomResourceDefinition, change func(*apiextensionsv1.JSONSchemaProps)) {
		root := c.Spec.Versions[0].Schema.OpenAPIV3Schema
		st := root.Properties["status"]
		change(&st)
		root.Properties["status"] = st
	}
	return []crdChange{
		{name: "unchanged", change: func(*apiextensionsv1.CustomResourceDefinition) {}},
		{name: "a new optional field", change: func(c *apiextensionsv1.CustomResourceDefinition) {
			s := spec(c)
			s.Properties["owner"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
			setSpec(c, s)
		}},
		{name: "a new enum value", change: func(c *apiextensionsv1.CustomResourceDefinition) {
			status(c, func(st *apiextensionsv1.JSONSchemaProps) {
				kind := st.Properties["placements"].Items.Schema.Properties["kind"]
				kind.Enum = append(kind.Enum, apiextensionsv1.JSON{Raw: []byte(`"Other"`)})
				st.Properties["placements"].Items.Schema.Properties["kind"] = kind
			})
		}},
		{name: "a new version", change: func(c *apiextensionsv1.CustomResourceDefinition) {
			v := c.Spec.Versions[0].DeepCopy()
			v.Name, v.Storage = "v1beta1", false
			c.Spec.Versions = append(c.Spec.Versions, *v)
		}},
		{name: "a removed field", change: func(c *apiextensionsv1.CustomResourceDefinition) {
			s := spec(c)
			delete(s.Properties, "paused")
			setSpec(c, s)
		}, want: []string{"v1alpha1: .spec.paused: removed"}},
		{name: "a changed type", change: func(c *apiextensionsv1.CustomResourceDefinition) {
			s := spec(c)
			p := s.Properties["paused"]
			p.Type = "string"
			s.Properties["paused"] = p
			setSpec(c, s)
		}, want: []string{`v1alpha1: .spec.paused: type "boolean" changed to "string"`}},
		{name: "a removed enum value", change: func(c *apiextensionsv1.CustomResourceDefinition) {
			status(c, func(st *apiextensionsv1.JSONSchemaProps) {
				kind := st.Properties["placements"].Items.Schema.Properties["kind"]
				kind.Enum = kind.Enum[1:]
				st.Properties["placements"].Items.Schema.Properties["kind"] = kind
			})
		}, want: []string{`v1alpha1: .status.placements[].kind: enum value "Config" removed`}},
		{name: "a newly required field", change: func(c *apiextensionsv1.CustomResourceDefinition) {
			s := spec(c)
			s.Required = append(s.Required, "paused")
			setSpec(c, s)
		}, want: []string{"v1alpha1: .spec.paused: newly required"}},
		{name: "a removed version", change: func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Name = "v1beta1"
		}, want: []string{"v1alpha1: version removed", "storage version v1alpha1 changed to v1beta1 without a conversion webhook"}},
		{name: "a changed storage version", change: func(c *apiextensionsv1.CustomResourceDefinition) {
			v := c.Spec.Versions[0].DeepCopy()
			c.Spec.Versions[0].Storage = false
			v.Name = "v1beta1"
			c.Spec.Versions = append(c.Spec.Versions, *v)
		}, want: []string{"storage version v1alpha1 changed to v1beta1 without a conversion webhook"}},
		{name: "a changed storage version with a conversion", change: func(c *apiextensionsv1.CustomResourceDefinition) {
			v := c.Spec.Versions[0].DeepCopy()
			c.Spec.Versions[0].Storage = false
			v.Name = "v1beta1"
			c.Spec.Versions = append(c.Spec.Versions, *v)
			c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter}
		}},
	}
}

// crdBreaks lists what cur breaks of old: each a version and a field
// path, and what changed. Nil when every change is additive.
func crdBreaks(old, cur *apiextensionsv1.CustomResourceDefinition) []string {
	if cur == nil {
		return []string{"CRD removed"}
	}
	var out []string
	for _, ov := range old.Spec.Versions {
		i := slices.IndexFunc(cur.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == ov.Name })
		if i < 0 {
			out = append(out, ov.Name+": version removed")
			continue
		}
		cv := cur.Spec.Versions[i]
		if ov.Served && !cv.Served {
			out = append(out, ov.Name+": no longer served")
		}
		if ov.Schema != nil && ov.Schema.OpenAPIV3Schema != nil {
			var cs *apiextensionsv1.JSONSchemaProps
			if cv.Schema != nil {
				cs = cv.Schema.OpenAPIV3Schema
			}
			schemaBreaks(ov.Name+": ", "", ov.Schema.OpenAPIV3Schema, cs, &out)
		}
	}
	if o, c := storageVersion(old), storageVersion(cur); o != c &&
		(cur.Spec.Conversion == nil || cur.Spec.Conversion.Strategy != apiextensionsv1.WebhookConverter) {
		out = append(out, fmt.Sprintf("storage version %s changed to %s without a conversion webhook", o, c))
	}
	return out
}

// schemaBreaks adds to out what cur breaks of old at path.
func schemaBreaks(version, path string, old, cur *apiextensionsv1.JSONSchemaProps, out *[]string) {
	at := func(format string, args ...any) {
		p := path
		if p == "" {
			p = "."
		}
		*out = append(*out, version+p+": "+fmt.Sprintf(format, args...))
	}
	if cur == nil {
		at("removed")
		return
	}
	if old.Type != cur.Type {
		at("type %q changed to %q", old.Type, cur.Type)
	}
	enumBreaks(old.Enum, cur.Enum, at)
	for _, r := range cur.Required {
		if !slices.Contains(old.Required, r) {
			*out = append(*out, fmt.Sprintf("%s%s.%s: newly required", version, path, r))
		}
	}
	for _, name := range sortedKeys(old.Properties) {
		o := old.Properties[name]
		var c *apiextensionsv1.JSONSchemaProps
		if p, ok := cur.Properties[name]; ok {
			c = &p
		}
		schemaBreaks(version, path+"."+name, &o, c, out)
	}
	if old.Items != nil && old.Items.Schema != nil {
		var c *apiextensionsv1.JSONSchemaProps
		if cur.Items != nil {
			c = cur.Items.Schema
		}
		schemaBreaks(version, path+"[]", old.Items.Schema, c, out)
	}
	if old.AdditionalProperties != nil && old.AdditionalProperties.Schema != nil {
		var c *apiextensionsv1.JSONSchemaProps
		if cur.AdditionalProperties != nil {
			c = cur.AdditionalProperties.Schema
		}
		schemaBreaks(version, path+"{}", old.AdditionalProperties.Schema, c, out)
	}
}

// enumBreaks reports each value of old missing from cur, or an enum cur
// puts on a field that had none.
func enumBreaks(old, cur []apiextensionsv1.JSON, at func(string, ...any)) {
	if len(cur) == 0 {
		return
	}
	if len(old) == 0 {
		at("enum added, where any value was valid")
		return
	}
	for _, o := range old {
		if !slices.ContainsFunc(cur, func(c apiextensionsv1.JSON) bool { return string(c.Raw) == string(o.Raw) }) {
			var v any
			if err := json.Unmarshal(o.Raw, &v); err != nil {
				v = string(o.Raw)
			}
			at("enum value %q removed", fmt.Sprint(v))
		}
	}
}

func storageVersion(c *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range c.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

func sortedKeys(m map[string]apiextensionsv1.JSONSchemaProps) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// readCRDs reads the CRD files rolloutkit.io_*.yaml of dir.
func readCRDs(t *testing.T, dir string) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "rolloutkit.io_*.yaml"))
	require.NoError(t, err)
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, name := range names {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		var crd apiextensionsv1.CustomResourceDefinition
		require.NoError(t, yaml.Unmarshal(data, &crd), "%s", name)
		require.True(t, strings.HasSuffix(crd.Name, ".rolloutkit.io"), "%s: %s", name, crd.Name)
		out = append(out, &crd)
	}
	return out
}
