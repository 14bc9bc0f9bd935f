export { EnvValidationError, loadEnv } from './load-env';
export { LOCAL_DATABASE_URL, LOCAL_KAFKA_BROKERS, port, serviceEnv, type ServiceEnv } from './env-schemas';
