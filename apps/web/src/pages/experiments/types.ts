import type { Reply } from '../../api/client';

export type Experiment = Reply<'get', '/v1/experiments/{id}'>;
export type Arm = Experiment['arms'][number];
export type Checkpoint = Reply<'get', '/v1/checkpoints'>['items'][number];
export type Results = Reply<'get', '/v1/experiments/{id}/results'>;
export type MetricResult = Results['metrics'][number];
export type Comparison = MetricResult['comparisons'][number];
