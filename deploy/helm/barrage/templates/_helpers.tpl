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

{{/* Operator mode's Secrets, written by the nats-auth bootstrap Job (templates/natsauth.yaml). */}}
{{- define "barrage.natsKeysSecret" -}}{{ include "barrage.fullname" . }}-nats-keys{{- end -}}
{{- define "barrage.natsTrustSecret" -}}{{ include "barrage.fullname" . }}-nats-trust{{- end -}}
{{- define "barrage.agentCredsSecret" -}}{{ include "barrage.fullname" . }}-agent-creds{{- end -}}

{{/* Credential slots to issue: nats.auth.agentSlots, or the most agent pods the chart runs. */}}
{{- define "barrage.agentSlots" -}}
{{- $most := int .Values.agent.replicas -}}
{{- if .Values.agent.autoscaling.enabled -}}{{- $most = max $most (int .Values.agent.autoscaling.maxReplicas) -}}{{- end -}}
{{- if .Values.nats.auth.agentSlots -}}
{{- if lt (int .Values.nats.auth.agentSlots) $most -}}
{{- fail (printf "nats.auth.agentSlots %d is fewer than the %d agent pods the chart may run: each pod needs a slot" (int .Values.nats.auth.agentSlots) $most) -}}
{{- end -}}
{{- int .Values.nats.auth.agentSlots -}}
{{- else -}}
{{- $most -}}
{{- end -}}
{{- if gt (max (int .Values.nats.auth.agentSlots) $most) 500 -}}
{{- fail "more than 500 agent credential slots: they would not fit the 1 MiB of one Secret" -}}
{{- end -}}
{{- end -}}

{{/* nats.replicas, checked: the JetStream replicas of every stream and bucket. */}}
{{- define "barrage.natsReplicas" -}}
{{- $r := int .Values.nats.replicas -}}
{{- if or (lt $r 1) (gt $r 5) -}}
{{- fail (printf "nats.replicas %d: must be from 1 to 5 (3 on a three-server NATS cluster)" $r) -}}
{{- end -}}
{{- $r -}}
{{- end -}}
