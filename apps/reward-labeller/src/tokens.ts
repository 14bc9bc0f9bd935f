export const LABELLER_ENV = Symbol('LABELLER_ENV');
