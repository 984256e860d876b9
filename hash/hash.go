package hash

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Spec returns the spec hash of obj: the SHA-256, in lowercase hex, of the
// JSON encoding of obj without its top-level apiVersion, kind, metadata and
// status keys. It is byte-identical to OCM's addon-framework
// utils.GetSpecHash.
//
// obj is not modified. An object whose Object map is nil or empty hashes as
// {} (as in OCM); a nil obj is an error. A value that encoding/json cannot
// marshal (NaN, ±Inf, a func, a channel, a cycle) is an error that names the
// object.
func Spec(obj *unstructured.Unstructured) (string, error) {
	if obj == nil {
		return "", fmt.Errorf("spec hash: nil *unstructured.Unstructured: want an object")
	}
	h, err := sum(obj.Object)
	if err != nil {
		return "", fmt.Errorf("spec hash of %s: %w", describe(obj), err)
	}
	return h, nil
}

// Object returns the spec hash of a typed or unstructured object: a typed
// object is converted with runtime.DefaultUnstructuredConverter and hashed
// as [Spec] hashes its unstructured form, so both forms give the same hash.
// A nil obj, including a typed nil pointer, is an error.
func Object(obj runtime.Object) (string, error) {
	if isNil(obj) {
		return "", fmt.Errorf("spec hash: nil %T: want an object", obj)
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return Spec(u)
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return "", fmt.Errorf("spec hash of %T: convert to unstructured: %w", obj, err)
	}
	h, err := sum(content)
	if err != nil {
		return "", fmt.Errorf("spec hash of %s: %w", describe(&unstructured.Unstructured{Object: content}), err)
	}
	return h, nil
}

// sum hashes content without its non-config top-level keys. It builds a new
// top-level map so that the caller's map is never touched; the values are
// shared, and encoding/json only reads them.
func sum(content map[string]any) (string, error) {
	kept := make(map[string]any, len(content))
	for k, v := range content {
		switch k {
		case "apiVersion", "kind", "metadata", "status":
		default:
			kept[k] = v
		}
	}
	// json.Marshal, not an Encoder: the Encoder appends a newline, and
	// OCM hashes the bytes json.Marshal returns.
	data, err := json.Marshal(kept)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:]), nil
}

// describe names obj for an error message, e.g.
// `managedproxyconfiguration "cluster-proxy"`.
func describe(obj *unstructured.Unstructured) string {
	kind := strings.ToLower(obj.GetKind())
	if kind == "" {
		kind = "object"
	}
	name := obj.GetName()
	if ns := obj.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	if name == "" {
		return kind
	}
	return fmt.Sprintf("%s %q", kind, name)
}

// isNil reports whether obj is nil or holds a nil pointer (or other nil
// reference), which would make the converter fail less clearly or panic.
func isNil(obj runtime.Object) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}
