package testhub

import (
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
	addonv1beta1 "open-cluster-management.io/api/addon/v1beta1"

	"github.com/rolloutkit/rolloutkit/addonversion"
)

// convertReview answers a ConversionReview's request as OCM's add-on
// conversion webhook does: every object, a ClusterManagementAddOn or a
// ManagedClusterAddOn, converted to the desired version with
// addonversion. One object that does not convert fails
// the whole request, naming it, and the API server passes the message on
// to the client.
func convertReview(req *apiextensionsv1.ConversionRequest) *apiextensionsv1.ConversionResponse {
	resp := &apiextensionsv1.ConversionResponse{UID: req.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	resp.ConvertedObjects = make([]runtime.RawExtension, 0, len(req.Objects))
	for i, obj := range req.Objects {
		out, err := convertObject(obj.Raw, req.DesiredAPIVersion)
		if err != nil {
			return &apiextensionsv1.ConversionResponse{UID: req.UID, Result: metav1.Status{
				Status:  metav1.StatusFailure,
				Message: fmt.Sprintf("rolloutkit test hub: converting objects[%d] to %s: %v", i, req.DesiredAPIVersion, err),
			}}
		}
		resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: out})
	}
	return resp
}

// convertObject converts one add-on object, as JSON, to the version
// desired; an object already in that version is returned as it is.
func convertObject(raw []byte, desired string) ([]byte, error) {
	var tm metav1.TypeMeta
	if err := json.Unmarshal(raw, &tm); err != nil {
		return nil, err
	}
	if tm.APIVersion == desired {
		return raw, nil
	}
	alpha, beta := addonv1alpha1.GroupVersion.String(), addonv1beta1.GroupVersion.String()
	switch {
	case tm.Kind == addonversion.ClusterManagementAddOn && tm.APIVersion == alpha && desired == beta:
		return convertJSON(raw, addonversion.ClusterManagementAddOnToV1beta1)
	case tm.Kind == addonversion.ClusterManagementAddOn && tm.APIVersion == beta && desired == alpha:
		return convertJSON(raw, addonversion.ClusterManagementAddOnToV1alpha1)
	case tm.Kind == addonversion.ManagedClusterAddOn && tm.APIVersion == alpha && desired == beta:
		return convertJSON(raw, addonversion.ManagedClusterAddOnToV1beta1)
	case tm.Kind == addonversion.ManagedClusterAddOn && tm.APIVersion == beta && desired == alpha:
		return convertJSON(raw, addonversion.ManagedClusterAddOnToV1alpha1)
	}
	return nil, fmt.Errorf("%s %s: want a %s or a %s of %s or %s, to the other version",
		tm.APIVersion, tm.Kind, addonversion.ClusterManagementAddOn, addonversion.ManagedClusterAddOn, alpha, beta)
}

// convertJSON decodes raw as an In, converts it and encodes the result.
func convertJSON[In, Out any](raw []byte, convert func(*In) (*Out, error)) ([]byte, error) {
	in := new(In)
	if err := json.Unmarshal(raw, in); err != nil {
		return nil, err
	}
	out, err := convert(in)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}
