{{/*
Names, labels and the pieces the app templates share.
*/}}

{{- define "echoloop.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release's full name; resources append -<component>, so it stays short enough for them. */}}
{{- define "echoloop.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "echoloop.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of every resource. Call with (dict "ctx" $ "component" "chat-gateway"). */}}
{{- define "echoloop.labels" -}}
helm.sh/chart: {{ include "echoloop.chart" .ctx }}
{{ include "echoloop.selectorLabels" . }}
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: echoloop
{{- end -}}

{{- define "echoloop.selectorLabels" -}}
app.kubernetes.io/name: {{ include "echoloop.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
{{- if .component }}
app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end -}}

{{- define "echoloop.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "echoloop.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* An app's image: <registry>/<app>:<tag>. Call with (dict "ctx" $ "app" "chat-gateway"). */}}
{{- define "echoloop.appImage" -}}
{{- printf "%s/%s:%s" .ctx.Values.image.registry .app (default .ctx.Chart.AppVersion .ctx.Values.image.tag) -}}
{{- end -}}

{{/* Secret names: the one you name, else the release's default. */}}
{{- define "echoloop.databaseSecretName" -}}
{{- default (printf "%s-database" (include "echoloop.fullname" .)) .Values.database.existingSecret -}}
{{- end -}}

{{- define "echoloop.appSecretName" -}}
{{- default (printf "%s-secrets" (include "echoloop.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{- define "echoloop.serviceKeysSecretName" -}}
{{- default (printf "%s-service-keys" (include "echoloop.fullname" .)) .Values.serviceKeys.existingSecret -}}
{{- end -}}

{{- define "echoloop.adaptersClaimName" -}}
{{- default (printf "%s-adapters" (include "echoloop.fullname" .)) .Values.adapters.existingClaim -}}
{{- end -}}

{{/* The in-cluster address of an app. Call with (dict "ctx" $ "app" "rl-orchestrator" "port" 3002). */}}
{{- define "echoloop.appUrl" -}}
{{- printf "http://%s-%s:%v" (include "echoloop.fullname" .ctx) .app .port -}}
{{- end -}}

{{/* The model server every app calls. */}}
{{- define "echoloop.llmBaseUrl" -}}
{{- if .Values.llm.baseUrl -}}
{{- .Values.llm.baseUrl -}}
{{- else if .Values.vllm.enabled -}}
{{- printf "http://%s-vllm:8000/v1" (include "echoloop.fullname" .) -}}
{{- else -}}
{{- fail "llm.baseUrl is required when vllm.enabled is false" -}}
{{- end -}}
{{- end -}}

{{- define "echoloop.rayClusterName" -}}
{{- printf "%s-ray" (include "echoloop.fullname" .) -}}
{{- end -}}

{{/* The Ray head's dashboard (Jobs REST API): KubeRay's head Service <cluster>-head-svc, or the one you name. */}}
{{- define "echoloop.rayDashboardUrl" -}}
{{- if .Values.ray.enabled -}}
{{- printf "http://%s-head-svc:8265" (include "echoloop.rayClusterName" .) -}}
{{- else if .Values.ray.dashboardUrl -}}
{{- .Values.ray.dashboardUrl -}}
{{- else -}}
{{- fail "ray.dashboardUrl is required when ray.enabled is false" -}}
{{- end -}}
{{- end -}}

{{/* One env entry from a Secret. Call with (dict "name" VAR "secret" NAME "key" KEY "optional" bool). */}}
{{- define "echoloop.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ .key }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end -}}

{{/* The LLM_API_KEY-style reference: a dedicated Secret/key when given, else the app secret's LLM_API_KEY. */}}
{{- define "echoloop.modelKeyEnv" -}}
{{- if and .ref.name .ref.key -}}
{{ include "echoloop.secretEnv" (dict "name" .name "secret" .ref.name "key" .ref.key) }}
{{- else -}}
{{ include "echoloop.secretEnv" (dict "name" .name "secret" (include "echoloop.appSecretName" .ctx) "key" "LLM_API_KEY") }}
{{- end -}}
{{- end -}}

{{/* Variables every app reads (libs/config serviceEnv). Call with (dict "ctx" $ "app" NAME "port" PORT). */}}
{{- define "echoloop.commonEnv" -}}
{{- $v := .ctx.Values -}}
- name: NODE_ENV
  value: production
- name: HOST
  value: 0.0.0.0
- name: PORT
  value: {{ .port | quote }}
- name: LOG_LEVEL
  value: {{ $v.config.logLevel | quote }}
{{ include "echoloop.secretEnv" (dict "name" "DATABASE_URL" "secret" (include "echoloop.databaseSecretName" .ctx) "key" $v.database.urlKey) }}
- name: DATABASE_POOL_SIZE
  value: {{ $v.config.databasePoolSize | quote }}
- name: KAFKA_BROKERS
  value: {{ join "," $v.kafka.brokers | quote }}
- name: KAFKA_CLIENT_ID
  value: {{ .app }}
- name: KAFKA_RETENTION_HOURS
  value: {{ $v.kafka.retentionHours | quote }}
- name: TRAINING_CONSENT_DEFAULT
  value: {{ $v.config.trainingConsentDefault | quote }}
- name: OUTBOX_RETENTION_HOURS
  value: {{ $v.config.outboxRetentionHours | quote }}
{{- if $v.trustedCa.secretName }}
- name: NODE_EXTRA_CA_CERTS
  value: /etc/echoloop/ca/{{ $v.trustedCa.key }}
{{- end }}
{{- end -}}

{{/* The trusted-CA volume and its mount, when trustedCa.secretName is set. */}}
{{- define "echoloop.caVolume" -}}
{{- if .Values.trustedCa.secretName -}}
- name: trusted-ca
  secret:
    secretName: {{ .Values.trustedCa.secretName }}
    items:
      - key: {{ .Values.trustedCa.key }}
        path: {{ .Values.trustedCa.key }}
{{- end }}
{{- end -}}

{{- define "echoloop.caVolumeMount" -}}
{{- if .Values.trustedCa.secretName -}}
- name: trusted-ca
  mountPath: /etc/echoloop/ca
  readOnly: true
{{- end }}
{{- end -}}

{{/* The adapter volume and the model store, for the orchestrator, the Ray pods and vLLM. */}}
{{- define "echoloop.sharedVolumes" -}}
- name: adapters
  persistentVolumeClaim:
    claimName: {{ include "echoloop.adaptersClaimName" . }}
{{- if .Values.modelStore.enabled }}
- name: models
  persistentVolumeClaim:
    claimName: {{ required "modelStore.existingClaim is required when modelStore.enabled" .Values.modelStore.existingClaim }}
    readOnly: true
{{- end }}
{{- end -}}

{{/* Call with (dict "ctx" $ "readOnly" bool). */}}
{{- define "echoloop.sharedVolumeMounts" -}}
- name: adapters
  mountPath: {{ .ctx.Values.adapters.mountPath }}
  {{- if .readOnly }}
  readOnly: true
  {{- end }}
{{- if .ctx.Values.modelStore.enabled }}
- name: models
  mountPath: {{ .ctx.Values.modelStore.mountPath }}
  readOnly: true
{{- end }}
{{- end -}}
