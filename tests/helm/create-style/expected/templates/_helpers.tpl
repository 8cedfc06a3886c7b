{{/*
The chart's name, cut to 63 characters.
*/}}
{{- define "detector.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Selector labels.
*/}}
{{- define "detector.selectorLabels" -}}
app.kubernetes.io/name: {{ include "detector.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Common labels.
*/}}
{{- define "detector.labels" -}}
{{ include "detector.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | default "dev" | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
