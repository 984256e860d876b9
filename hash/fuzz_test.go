package hash_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/rolloutkit/rolloutkit/hash"
)

// FuzzSpec hashes arbitrary JSON objects. It checks that hash.Spec never
// panics and never modifies its input; that the hash is 64 lowercase hex
// digits and the same on a second call; that apiVersion, kind, metadata and
// status do not take part; and that the typed path (hash.Object) agrees.
func FuzzSpec(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"spec":{"a":"<&>","b":1}}`,
		`{"apiVersion":"v1","kind":"X","metadata":{"name":"n"},"spec":{"proxyAgent":{"image":"quay.io/x:v1"}},"status":{"ok":true}}`,
		`{"spec":{"n":1.5e300,"m":-0,"u":"\u2028","list":[null,true,{"k":[]}]}}`,
		`{"data":{"k":"v"},"binaryData":null}`,
	} {
		f.Add([]byte(s), "metadata")
	}
	f.Fuzz(func(t *testing.T, data []byte, extraKey string) {
		var obj map[string]any
		if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
			return
		}
		u := &unstructured.Unstructured{Object: obj}
		before := u.DeepCopy()
		h, err := hash.Spec(u)
		if err != nil {
			t.Fatalf("hash of JSON-decoded object failed: %v", err)
		}
		if !reflect.DeepEqual(before.Object, u.Object) {
			t.Fatal("Spec modified its input")
		}
		if len(h) != 64 || h != lowerHex(h) {
			t.Fatalf("hash %q is not 64 lowercase hex digits", h)
		}
		if h2, _ := hash.Spec(u); h2 != h {
			t.Fatalf("hash not deterministic: %s then %s", h, h2)
		}
		if h3, err := hash.Object(u); err != nil || h3 != h {
			t.Fatalf("hash.Object gave %s, %v; Spec gave %s", h3, err, h)
		}
		// The keys that are not config do not change the hash.
		other := u.DeepCopy()
		for _, k := range []string{"apiVersion", "kind", "metadata", "status"} {
			other.Object[k] = map[string]any{"changed": extraKey}
		}
		if h4, err := hash.Spec(other); err != nil || h4 != h {
			t.Fatalf("changing apiVersion/kind/metadata/status changed the hash: %s vs %s (%v)", h4, h, err)
		}
		// Any other top-level key does.
		if extraKey != "apiVersion" && extraKey != "kind" && extraKey != "metadata" && extraKey != "status" {
			changed := u.DeepCopy()
			if _, exists := changed.Object[extraKey]; !exists {
				changed.Object[extraKey] = "x"
				if h5, err := hash.Spec(changed); err != nil || h5 == h {
					t.Fatalf("adding spec key %q did not change the hash (%v)", extraKey, err)
				}
			}
		}
	})
}

func lowerHex(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			b[i] = '?'
		}
	}
	return string(b)
}
