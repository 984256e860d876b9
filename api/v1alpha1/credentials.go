package v1alpha1

// HTTPClientConfig is how a check authenticates to its endpoint and
// trusts it: Prometheus's http_config (client_golang's, in
// github.com/prometheus/common/config), with references to Secrets and
// ConfigMaps where it reads files. The AddOnRollout is cluster-scoped, so
// every reference names its namespace; the controller reads only the
// references of namespaces its operator allows, and only Secrets labelled
// rolloutkit.io/verification-credential=true. Credentials are sent, never
// written: not in the status, the events or the logs.
type HTTPClientConfig struct {
	// BearerToken is the key of a Secret whose value is sent as
	// "Authorization: Bearer <value>".
	// +optional
	BearerToken *SecretKeyRef `json:"bearerToken,omitempty"`
	// TLS is how the endpoint's certificate is verified. Empty: against
	// the controller's system roots.
	// +optional
	TLS *TLSConfig `json:"tls,omitempty"`
	// Headers are extra request headers, each a static value or the key
	// of a Secret. Authorization, Host, Content-Type and the other headers
	// of the connection are refused (Prometheus's reserved headers): a
	// token goes in bearerToken, or basicAuth for Prometheus.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=16
	Headers []HTTPHeader `json:"headers,omitempty"`
}

// SecretKeyRef is one key of a Secret.
type SecretKeyRef struct {
	// Namespace is the Secret's namespace: one the controller's
	// -verification-secret-namespaces allows.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`
	// Name is the Secret's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Key is the key of the Secret's data whose value is used.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
}

// ConfigMapKeyRef is one key of a ConfigMap.
type ConfigMapKeyRef struct {
	// Namespace is the ConfigMap's namespace: one the controller's
	// -verification-secret-namespaces allows.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`
	// Name is the ConfigMap's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Key is the key of the ConfigMap's data whose value is used.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
}

// TLSConfig is how an endpoint's certificate is verified.
type TLSConfig struct {
	// CA is the PEM bundle of the certificate authorities the endpoint's
	// certificate must chain to, in place of the system roots.
	// +optional
	CA *CABundle `json:"ca,omitempty"`
	// ServerName is the name the certificate must have, when not the
	// URL's host.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ServerName string `json:"serverName,omitempty"`
}

// CABundle is a PEM bundle of certificate authorities, in a ConfigMap or
// a Secret: exactly one of the two is set.
//
// +kubebuilder:validation:XValidation:rule="has(self.configMapKeyRef) != has(self.secretKeyRef)",message="set exactly one of configMapKeyRef and secretKeyRef"
type CABundle struct {
	// ConfigMapKeyRef is the key of a ConfigMap holding the bundle (such
	// as the kube-root-ca.crt or a service-CA ConfigMap).
	// +optional
	ConfigMapKeyRef *ConfigMapKeyRef `json:"configMapKeyRef,omitempty"`
	// SecretKeyRef is the key of a Secret holding the bundle (such as
	// cert-manager's ca.crt).
	// +optional
	SecretKeyRef *SecretKeyRef `json:"secretKeyRef,omitempty"`
}

// HTTPHeader is one extra request header: exactly one of Value and
// ValueFrom is set.
//
// +kubebuilder:validation:XValidation:rule="has(self.value) != has(self.valueFrom)",message="set exactly one of value and valueFrom"
type HTTPHeader struct {
	// Name is the header's name, e.g. X-Scope-OrgID.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	Name string `json:"name"`
	// Value is the header's value, written in the AddOnRollout: not for
	// secrets.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Value *string `json:"value,omitempty"`
	// ValueFrom is the key of a Secret whose value is the header's.
	// +optional
	ValueFrom *SecretKeyRef `json:"valueFrom,omitempty"`
}

// BasicAuth is HTTP basic authentication: a user name and the key of a
// Secret holding the password.
type BasicAuth struct {
	// Username is the user's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Username string `json:"username"`
	// Password is the key of a Secret holding the user's password.
	Password SecretKeyRef `json:"password"`
}
