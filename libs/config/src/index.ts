export { EnvValidationError, loadEnv } from './load-env';
export {
  flag,
  LOCAL_DATABASE_URL,
  LOCAL_KAFKA_BROKERS,
  port,
  serviceEnv,
  type ServiceEnv,
} from './env-schemas';
