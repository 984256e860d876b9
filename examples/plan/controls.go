package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// controlKinds are the resources of the operator's controls, as `kubectl
// get` names them: served only by a hub with rolloutkit's CRDs, where they
// are added to the kinds listed.
const controlKinds = "addonrollouts,rolloutapprovals"

// decodeControl decodes an AddOnRollout or a RolloutApproval, which exist
// in rolloutkit.io/v1alpha1 only. They are rolloutkit's own types, so a
// field it does not know is refused rather than ignored: a misspelt
// approvalRequired would otherwise plan the add-on ungated.
func decodeControl[T any](js []byte, apiVersion string, into *[]*T) error {
	if want := v1alpha1.GroupVersion().String(); apiVersion != want {
		return fmt.Errorf("apiVersion %q: want %s", apiVersion, want)
	}
	obj := new(T)
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(obj); err != nil {
		return err
	}
	*into = append(*into, obj)
	return nil
}
