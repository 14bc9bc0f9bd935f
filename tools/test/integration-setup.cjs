// testTimeout is a global Jest option, so the integration project sets its own here: real brokers and
// consumer-group joins take seconds, not milliseconds.
jest.setTimeout(60_000);
