/** The orchestrator's name in logs, metrics, events and API-key scopes. */
export const SERVICE_NAME = 'rl-orchestrator';
