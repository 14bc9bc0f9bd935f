/** The current time, injected so that tests can move it (expiry, grace periods, throttles). */
export const CLOCK = Symbol('CLOCK');
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
