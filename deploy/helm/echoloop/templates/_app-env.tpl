{{/*
Each app's own variables (apps/<app>/src/env.ts), after echoloop.commonEnv. Secrets come from secretKeyRef only.
tools/ci/validate-helm.sh parses the rendered environments with the apps' own zod schemas.
*/}}

{{- define "echoloop.env.chat-gateway" -}}
{{- $v := .Values -}}
{{- $appSecret := include "echoloop.appSecretName" . -}}
{{- $keys := include "echoloop.serviceKeysSecretName" . -}}
- name: LLM_BASE_URL
  value: {{ include "echoloop.llmBaseUrl" . | quote }}
{{ include "echoloop.secretEnv" (dict "name" "LLM_API_KEY" "secret" $appSecret "key" "LLM_API_KEY") }}
- name: LLM_MODEL
  value: {{ $v.llm.model | quote }}
- name: LLM_CONTEXT_TOKENS
  value: {{ $v.llm.contextTokens | quote }}
- name: CHECKPOINT_ALLOWED_HOSTS
  value: {{ join "," $v.config.checkpointAllowedHosts | quote }}
{{ include "echoloop.secretEnv" (dict "name" "JWT_SECRET" "secret" $appSecret "key" "JWT_SECRET") }}
{{ include "echoloop.secretEnv" (dict "name" "EXPORT_PSEUDONYM_KEY" "secret" $appSecret "key" "EXPORT_PSEUDONYM_KEY") }}
{{- with $v.chatGateway.bootstrapAdmin.email }}
- name: BOOTSTRAP_ADMIN_EMAIL
  value: {{ . | quote }}
{{ include "echoloop.secretEnv" (dict "name" "BOOTSTRAP_ADMIN_PASSWORD" "secret" $appSecret "key" "BOOTSTRAP_ADMIN_PASSWORD") }}
{{- end }}
- name: RL_ORCHESTRATOR_URL
  value: {{ include "echoloop.appUrl" (dict "ctx" . "app" "rl-orchestrator" "port" 3002) | quote }}
{{ include "echoloop.secretEnv" (dict "name" "RL_ORCHESTRATOR_API_KEY" "secret" $keys "key" $v.serviceKeys.gatewayRlOrchestratorKey "optional" true) }}
- name: EVAL_RUNNER_URL
  value: {{ include "echoloop.appUrl" (dict "ctx" . "app" "eval-runner" "port" 3003) | quote }}
{{ include "echoloop.secretEnv" (dict "name" "EVAL_RUNNER_API_KEY" "secret" $keys "key" $v.serviceKeys.gatewayEvalRunnerKey "optional" true) }}
- name: EXPORT_DIR
  value: /var/lib/echoloop/exports
{{- with $v.chatGateway.exports.s3 }}
{{- if .bucket }}
- name: EXPORT_S3_BUCKET
  value: {{ .bucket | quote }}
{{- if .endpoint }}
- name: EXPORT_S3_ENDPOINT
  value: {{ .endpoint | quote }}
{{- end }}
- name: EXPORT_S3_REGION
  value: {{ .region | quote }}
- name: EXPORT_S3_PREFIX
  value: {{ .prefix | quote }}
{{- if .credentialsSecret }}
{{ include "echoloop.secretEnv" (dict "name" "EXPORT_S3_ACCESS_KEY_ID" "secret" .credentialsSecret "key" .accessKeyIdKey) }}
{{ include "echoloop.secretEnv" (dict "name" "EXPORT_S3_SECRET_ACCESS_KEY" "secret" .credentialsSecret "key" .secretAccessKeyKey) }}
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "echoloop.env.reward-labeller" -}}
{{- $v := .Values -}}
{{- $judge := $v.rewardLabeller.judge -}}
- name: LABELLER_GROUP_ID
  value: {{ $v.rewardLabeller.groupId | quote }}
- name: JUDGE_BASE_URL
  value: {{ default (include "echoloop.llmBaseUrl" .) $judge.baseUrl | quote }}
{{ include "echoloop.modelKeyEnv" (dict "ctx" . "name" "JUDGE_API_KEY" "ref" $judge.apiKeySecret) }}
- name: JUDGE_MODEL
  value: {{ default $v.llm.model $judge.model | quote }}
- name: MODEL_SIDE_WORK_YIELDS
  value: {{ $judge.yieldsToReplies | quote }}
{{- end -}}

{{- define "echoloop.env.rl-orchestrator" -}}
{{- $v := .Values -}}
{{- $appSecret := include "echoloop.appSecretName" . -}}
- name: RL_RUNNER
  value: ray
- name: RAY_DASHBOARD_URL
  value: {{ include "echoloop.rayDashboardUrl" . | quote }}
- name: RL_WORK_DIR
  value: {{ $v.adapters.mountPath | quote }}
- name: ECHOLOOP_CACHE_DIR
  value: {{ printf "%s/%s" $v.adapters.mountPath $v.rl.cacheSubdir | quote }}
- name: RL_TEMPLATE
  value: {{ $v.rl.template | quote }}
- name: RL_PYTHON
  value: {{ $v.rl.python | quote }}
- name: RL_PYTHON_PATH
  value: {{ $v.rl.pythonPath | quote }}
- name: RL_GRPO_PROFILES
  value: {{ $v.rl.grpoProfiles | quote }}
- name: RL_BASE_GGUF
  value: {{ $v.rl.baseGguf | quote }}
- name: RL_JOB_GPUS
  value: {{ $v.rl.jobGpus | quote }}
- name: RL_THRESHOLD_PAIRS
  value: {{ $v.rl.thresholdPairs | quote }}
{{- with $v.rl.schedule }}
- name: RL_SCHEDULE
  value: {{ . | quote }}
{{- end }}
- name: ADAPTER_RECONCILE_SECONDS
  value: {{ $v.rl.adapterReconcileSeconds | quote }}
{{ include "echoloop.secretEnv" (dict "name" "EXPORT_PSEUDONYM_KEY" "secret" $appSecret "key" "EXPORT_PSEUDONYM_KEY") }}
{{ include "echoloop.secretEnv" (dict "name" "SERVICE_API_KEY" "secret" (include "echoloop.serviceKeysSecretName" .) "key" $v.serviceKeys.orchestratorKey "optional" true) }}
- name: GATEWAY_URL
  value: {{ include "echoloop.appUrl" (dict "ctx" . "app" "chat-gateway" "port" 3000) | quote }}
- name: EVAL_RUNNER_URL
  value: {{ include "echoloop.appUrl" (dict "ctx" . "app" "eval-runner" "port" 3003) | quote }}
- name: LABELLER_URL
  value: {{ include "echoloop.appUrl" (dict "ctx" . "app" "reward-labeller" "port" 3001) | quote }}
- name: LLM_BASE_URL
  value: {{ include "echoloop.llmBaseUrl" . | quote }}
{{ include "echoloop.secretEnv" (dict "name" "LLM_API_KEY" "secret" $appSecret "key" "LLM_API_KEY") }}
- name: CHECKPOINT_ALLOWED_HOSTS
  value: {{ join "," $v.config.checkpointAllowedHosts | quote }}
{{- end -}}

{{- define "echoloop.env.eval-runner" -}}
{{- $v := .Values -}}
{{- $llm := include "echoloop.llmBaseUrl" . -}}
{{- $e := $v.evalRunner -}}
- name: LLM_BASE_URL
  value: {{ $llm | quote }}
{{ include "echoloop.secretEnv" (dict "name" "LLM_API_KEY" "secret" (include "echoloop.appSecretName" .) "key" "LLM_API_KEY") }}
- name: CHECKPOINT_ALLOWED_HOSTS
  value: {{ join "," $v.config.checkpointAllowedHosts | quote }}
- name: SIMULATOR_BASE_URL
  value: {{ default $llm $e.simulator.baseUrl | quote }}
{{ include "echoloop.modelKeyEnv" (dict "ctx" . "name" "SIMULATOR_API_KEY" "ref" $e.simulator.apiKeySecret) }}
- name: SIMULATOR_MODEL
  value: {{ default $v.llm.model $e.simulator.model | quote }}
- name: JUDGE_BASE_URL
  value: {{ default $llm $e.judge.baseUrl | quote }}
{{ include "echoloop.modelKeyEnv" (dict "ctx" . "name" "JUDGE_API_KEY" "ref" $e.judge.apiKeySecret) }}
- name: JUDGE_MODEL
  value: {{ default $v.llm.model $e.judge.model | quote }}
{{- end -}}
