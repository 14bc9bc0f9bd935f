export const KAFKA = Symbol('KAFKA');
export const KAFKA_TOPICS = Symbol('KAFKA_TOPICS');
