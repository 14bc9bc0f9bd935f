import type { Admin, Kafka } from 'kafkajs';
import type { HealthIndicator } from '../health/health-indicator';

/** Ready when the cluster answers a metadata request. */
export class KafkaHealthIndicator implements HealthIndicator {
  readonly name = 'kafka';
  private admin?: Admin;

  constructor(private readonly kafka: Kafka) {}

  async check(): Promise<void> {
    this.admin ??= this.kafka.admin({ retry: { retries: 0 } });
    try {
      await this.admin.connect();
      const { brokers } = await this.admin.describeCluster();
      if (brokers.length === 0) throw new Error('no broker available');
    } catch (error) {
      const admin = this.admin;
      this.admin = undefined;
      await admin.disconnect().catch(() => undefined);
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.admin?.disconnect();
  }
}
