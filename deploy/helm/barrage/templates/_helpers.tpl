{{/* Name of the release's objects: <release>-barrage, or the release name when it already says barrage. */}}
{{- define "barrage.fullname" -}}
{{- if contains "barrage" .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-barrage" .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "barrage.labels" -}}
app.kubernetes.io/name: barrage
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component: include "barrage.selector" (list . "api") */}}
{{- define "barrage.selector" -}}
app.kubernetes.io/name: barrage
app.kubernetes.io/instance: {{ (index . 0).Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{- define "barrage.image" -}}
{{- $ctx := index . 0 -}}
{{- printf "%s/%s:%s" $ctx.Values.image.registry (index . 1) (default $ctx.Chart.AppVersion $ctx.Values.image.tag) -}}
{{- end -}}

{{- define "barrage.secretName" -}}
{{- default (printf "%s-credentials" (include "barrage.fullname" .)) .Values.existingSecret -}}
{{- end -}}

{{/* env entries from a map, sorted by name */}}
{{- define "barrage.env" -}}
{{- range $k, $v := . }}
- name: {{ $k }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- end -}}

{{/* The volume every container mounts at /tmp (the root file system is read-only). */}}
{{- define "barrage.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 256Mi
{{- end -}}
