import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const CHECKPOINT_STATUSES = ['active', 'candidate', 'retired'] as const;
export type CheckpointStatus = (typeof CHECKPOINT_STATUSES)[number];

/** One OpenAI-compatible server that serves the checkpoint; the key is read from the named env variable. */
export interface CheckpointEndpoint {
  baseUrl: string;
  apiKeyEnv?: string;
}

export interface DecodingParameters {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
}

/** A servable model: a base model or a LoRA adapter name on one or more vLLM endpoints. */
@Entity({ name: 'checkpoints' })
@Index('checkpoints_single_default_idx', ['isDefault'], { unique: true, where: 'is_default' })
export class CheckpointEntity {
  /** A readable slug (`base-smollm2`, `rl-2026-11-21`): it appears in events, labels and metrics. */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  /** The `model` sent to the endpoint: the served model name or the LoRA adapter's name. */
  @Column({ name: 'model_name', type: 'text' })
  modelName!: string;

  @Column({ type: 'jsonb' })
  endpoints!: CheckpointEndpoint[];

  /**
   * The LoRA adapter's folder (PEFT) that every endpoint loads under `modelName`; null for a model the endpoints
   * serve from their own start-up (the base). The adapter reconciler keeps it loaded while it is wanted.
   */
  @Column({ name: 'adapter_path', type: 'text', nullable: true })
  adapterPath!: string | null;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  decoding!: DecodingParameters;

  /** The model's context window in tokens (vLLM's max_model_len). */
  @Column({ name: 'context_tokens', type: 'integer', default: 4096 })
  contextTokens!: number;

  @Column({ type: 'text', default: 'candidate' })
  status!: CheckpointStatus;

  @Column({ name: 'is_default', type: 'boolean', default: false })
  isDefault!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
