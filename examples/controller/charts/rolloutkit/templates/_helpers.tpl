{{/*
Helm's labels, on every object the chart makes, beside the labels the
kustomize config gives it. The pods' labels and every selector stay the
kustomize config's (app.kubernetes.io/name: rolloutkit-controller), so
that a Deployment installed with kustomize can be taken over by a release
(a Deployment's selector cannot change).
*/}}
{{- define "rolloutkit.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: rolloutkit
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}

{{/* The controller's image: the tag defaults to the chart's appVersion. */}}
{{- define "rolloutkit.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The PriorityClass of the controller's pods. */}}
{{- define "rolloutkit.priorityClassName" -}}
{{ .Values.priorityClassName | default "rolloutkit-critical" }}
{{- end }}

{{/* Whether the controller keeps the webhook server's certificate itself. */}}
{{- define "rolloutkit.selfSignedCert" -}}
{{- if eq .Values.certificates.mode "self" }}true{{ end }}
{{- end }}

{{/*
With cert-manager, cainjector puts the CA of the certificate
(cert-manager/certificate.yaml) in a webhook configuration's caBundle.
*/}}
{{- define "rolloutkit.certManagerAnnotations" -}}
{{- if eq .Values.certificates.mode "cert-manager" }}
annotations:
  cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/rolloutkit-webhook-cert
{{- end }}
{{- end }}

{{/*
The objectSelector of the work gate's webhooks. The controller keeps it
to the works of the add-ons it takes (workgate.Scope); the chart ships
the scope that selects no work, as config/webhook/manifests.yaml does.
On helm upgrade the live configuration's selector is kept (lookup), so
that the upgrade neither opens the gate to the taken add-ons' works until
the controller scopes it again, nor conflicts, under server-side apply,
with the controller's own write of the field. helm template and
--dry-run=client cannot look: they render the shipped scope.
*/}}
{{- define "rolloutkit.gateScope" -}}
{{- $scope := dict "matchExpressions" (list (dict "key" "rolloutkit.io/no-addon-taken" "operator" "Exists")) }}
{{- $live := lookup "admissionregistration.k8s.io/v1" "ValidatingWebhookConfiguration" "" "rolloutkit-work-gate" }}
{{- range ($live.webhooks | default list) }}
{{- if and (eq .name "manifestworks.gate.rolloutkit.io") .objectSelector }}
{{- $scope = .objectSelector }}
{{- end }}
{{- end }}
{{- toYaml $scope }}
{{- end }}
