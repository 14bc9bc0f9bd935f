export const EVAL_RUNNER_ENV = Symbol('EVAL_RUNNER_ENV');
