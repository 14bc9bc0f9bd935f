/** The variables every service reads (ServiceEnv), for platform providers that need them. */
export const SERVICE_ENV = Symbol('SERVICE_ENV');
