{{/* The chart's name, cut to 63 characters. */}}
{{- define "sharedgpu.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels that select the pods. */}}
{{- define "sharedgpu.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sharedgpu.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Every label of the chart's objects. */}}
{{- define "sharedgpu.labels" -}}
{{ include "sharedgpu.selectorLabels" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
