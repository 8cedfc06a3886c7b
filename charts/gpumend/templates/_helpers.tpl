{{/*
SPDX-FileCopyrightText: 2026 The gpumend authors
SPDX-License-Identifier: Apache-2.0
The chart's shared pieces: names, labels, the config and its ConfigMap's
name, the TLS Secret's name, the image.
*/}}

{{/*
The prefix of every object's name: fullnameOverride, else gpumend (the
names of manifests/, whatever the release is called).
*/}}
{{- define "gpumend.fullname" -}}
{{- .Values.fullnameOverride | default "gpumend" -}}
{{- end }}

{{/* The webhook's objects: the Deployment, Service, ServiceAccount... */}}
{{- define "gpumend.webhookName" -}}
{{- include "gpumend.fullname" . }}-webhook
{{- end }}

{{/* app.kubernetes.io/name of the webhook's objects: nameOverride, else gpumend-webhook. */}}
{{- define "gpumend.name" -}}
{{- .Values.nameOverride | default "gpumend-webhook" -}}
{{- end }}

{{/* The labels the Deployment selects its pods by (the Service, the PDB...). */}}
{{- define "gpumend.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gpumend.name" . }}
{{- end }}

{{/* The labels of every object: the kustomize tree's, and Helm's own. */}}
{{- define "gpumend.labels" -}}
app.kubernetes.io/part-of: gpumend
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version | replace "+" "_" }}
{{- end }}

{{/* The config file's text: the value, else the built-in defaults. */}}
{{- define "gpumend.config" -}}
{{- .Values.config | default (.Files.Get "files/config.yaml") -}}
{{- end }}

{{/*
The ConfigMap's name: FULLNAME-config and the hash kustomize's
configMapGenerator gives it (sha256 of the JSON of its data and kind,
the first 10 hex digits, 0 1 3 a e written g h k m t), so a new config
rolls the Deployment, and the chart names it as manifests/base does.
*/}}
{{- define "gpumend.configMapName" -}}
{{- $data := dict "config.yaml" (include "gpumend.config" .) -}}
{{- $hex := dict "data" $data "kind" "ConfigMap" "name" "" | toJson | sha256sum | trunc 10 -}}
{{ include "gpumend.fullname" . }}-config-{{ $hex | replace "0" "g" | replace "1" "h" | replace "3" "k" | replace "a" "m" | replace "e" "t" }}
{{- end }}

{{/* The Secret the Deployment mounts at /tls. */}}
{{- define "gpumend.tlsSecret" -}}
{{- if eq .Values.certificates.source "secret" -}}
{{ .Values.certificates.secret.name }}
{{- else -}}
{{ include "gpumend.webhookName" . }}-tls
{{- end -}}
{{- end }}

{{/* The image: REGISTRY/REPOSITORY@DIGEST, else REGISTRY/REPOSITORY:TAG. */}}
{{- define "gpumend.image" -}}
{{- $i := .Values.image -}}
{{ $i.registry }}/{{ $i.repository }}
{{- if $i.digest }}@{{ $i.digest }}{{ else }}:{{ $i.tag | default .Chart.AppVersion }}{{ end }}
{{- end }}
