/** This app's name among API_KEY_SERVICES: a key must be scoped to it. */
export const API_KEY_SERVICE_NAME = Symbol('API_KEY_SERVICE_NAME');
export const API_KEY_POLICY = Symbol('API_KEY_POLICY');
