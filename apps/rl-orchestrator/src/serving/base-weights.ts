import type { CheckpointEndpoint } from '@echoloop/persistence';
import { checkpointEndpointPolicy, checkpointModelEndpoints } from '@echoloop/platform';
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { OrchestratorEnv } from '../env';
import { JobFailure } from '../jobs/job-failure';
import { ORCHESTRATOR_ENV } from '../tokens';
import { EngineAdapters } from './engine-adapters';

/** The base weights a refresh trains on, and where each serving endpoint loaded its base from. */
export interface BaseCheck {
  ggufSha256: string;
  served: { baseUrl: string; root: string }[];
}

/**
 * Training and serving must share one base: an adapter trained on other weights loads without complaint and
 * answers badly. Training reads RL_BASE_GGUF; the engines serve the folder converted from it, which is named after
 * the GGUF's sha256 (its first 16 hex digits, python/echoloop_train/base_model.py). An endpoint whose base folder
 * does not carry that hash cannot be verified, and the refresh stops there.
 */
@Injectable()
export class BaseWeights {
  private digest: Promise<string> | undefined;
  private readonly policy;

  constructor(
    private readonly engines: EngineAdapters,
    @Inject(ORCHESTRATOR_ENV) private readonly env: OrchestratorEnv,
  ) {
    this.policy = checkpointEndpointPolicy(env);
  }

  /** The sha256 of the base GGUF, read once per process (about 0.3 s for the 135M model). */
  sha256(): Promise<string> {
    this.digest ??= new Promise<string>((resolve, reject) => {
      const hash = createHash('sha256');
      createReadStream(path.resolve(this.env.RL_BASE_GGUF))
        .on('data', (chunk) => hash.update(chunk))
        .on('end', () => resolve(hash.digest('hex')))
        .on('error', (error) => reject(new JobFailure('base_missing', error.message)));
    }).catch((error: unknown) => {
      this.digest = undefined;
      throw error;
    });
    return this.digest;
  }

  /**
   * Checks that every endpoint serves the base training reads and, when given, that `trainedOn` (the sha256 an
   * adapter's manifest names) is that base too. A mismatch fails the job (`base_mismatch`); an endpoint away is a
   * transient error.
   */
  async verify(
    endpoints: readonly CheckpointEndpoint[],
    trainedOn?: { what: string; sha256: string },
  ): Promise<BaseCheck> {
    const ggufSha256 = await this.sha256();
    if (trainedOn && trainedOn.sha256 !== ggufSha256) {
      throw new JobFailure(
        'base_mismatch',
        `${trainedOn.what} was trained on base ${trainedOn.sha256.slice(0, 16)}, training and serving use ${ggufSha256.slice(0, 16)}`,
      );
    }
    const served: BaseCheck['served'] = [];
    for (const target of checkpointModelEndpoints({ id: 'default', endpoints }, this.policy)) {
      const roots = await this.engines.baseRoots(target);
      const root = roots.find((r) => path.basename(r) === ggufSha256.slice(0, 16));
      if (!root) {
        throw new JobFailure(
          'base_mismatch',
          `${target.baseUrl} serves ${roots.join(', ') || 'no base model'}, not the base ${ggufSha256.slice(0, 16)} that training reads (${this.env.RL_BASE_GGUF})`,
        );
      }
      served.push({ baseUrl: target.baseUrl, root });
    }
    return { ggufSha256, served };
  }
}
