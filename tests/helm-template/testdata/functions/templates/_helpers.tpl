{{- define "fn.fullname" -}}
{{ .Release.Name }}-{{ .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
