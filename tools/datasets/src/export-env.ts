import { serviceEnv } from '@echoloop/config';
import { datasetEnvShape, requireKeyInProduction } from '@echoloop/datasets';
import type { z } from 'zod';

export const exportEnv = serviceEnv.extend(datasetEnvShape).superRefine(requireKeyInProduction);

export type ExportEnv = z.infer<typeof exportEnv>;
