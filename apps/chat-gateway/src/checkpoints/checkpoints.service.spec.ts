import { ModelError } from '@echoloop/llm';
import { MetricsService } from '@echoloop/platform';
import { AdapterPlacementEntity, CheckpointEntity } from '@echoloop/persistence';
import { BadRequestException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import { GATEWAY_ENV, gatewayEnv } from '../env';
import { CheckpointsRepository } from './checkpoints.repository';
import { CheckpointsService } from './checkpoints.service';
import type { CreateCheckpointInput } from './checkpoint.schemas';

describe('CheckpointsService endpoint policy', () => {
  const insert = jest.fn();
  let checkpoints: CheckpointsService;

  beforeEach(async () => {
    insert.mockReset();
    const moduleRef = await Test.createTestingModule({
      providers: [
        CheckpointsService,
        { provide: getRepositoryToken(CheckpointEntity), useValue: { insert } },
        { provide: getRepositoryToken(AdapterPlacementEntity), useValue: {} },
        { provide: CheckpointsRepository, useValue: {} },
        { provide: MetricsService, useValue: new MetricsService('test') },
        {
          provide: GATEWAY_ENV,
          useValue: gatewayEnv.parse({
            LLM_BASE_URL: 'http://127.0.0.1:18000/v1',
            CHECKPOINT_ALLOWED_HOSTS: 'models.internal',
          }),
        },
      ],
    }).compile();
    checkpoints = moduleRef.get(CheckpointsService);
  });

  const input = (endpoint: { baseUrl: string; apiKeyEnv?: string }): CreateCheckpointInput => ({
    id: 'lora-1',
    modelName: 'lora-1',
    endpoints: [endpoint],
    decoding: {},
    contextTokens: 4_096,
    status: 'candidate',
  });

  it('refuses at creation an endpoint off the allowed hosts or a key variable off the list, naming the field', async () => {
    const error = await checkpoints
      .create(input({ baseUrl: 'https://collector.example/v1', apiKeyEnv: 'LLM_ADMIN_KEY' }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestException);
    expect((error as BadRequestException).getResponse()).toMatchObject({
      error: {
        code: 'validation_failed',
        details: [{ path: 'endpoints.0.baseUrl' }, { path: 'endpoints.0.apiKeyEnv' }],
      },
    });
    expect(insert).not.toHaveBeenCalled();
  });

  it('refuses at use a stored row the configuration no longer allows, before any request is made', () => {
    const stored = Object.assign(new CheckpointEntity(), {
      ...input({ baseUrl: 'http://retired-host.example/v1', apiKeyEnv: 'LLM_API_KEY' }),
      isDefault: false,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    expect(() => checkpoints.clientFor(stored)).toThrow(
      expect.objectContaining({ constructor: ModelError, code: 'model_rejected', retryable: false }),
    );
    stored.endpoints = [{ baseUrl: 'http://models.internal:9000/v1', apiKeyEnv: 'LLM_API_KEY' }];
    expect(checkpoints.clientFor(stored)).toBeDefined();
  });
});
