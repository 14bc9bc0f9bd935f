import { z } from 'zod';

/** What the auth routes answer, for the OpenAPI document (the services build these objects). */
export const signedInResponse = z.object({
  accessToken: z.string(),
  refreshToken: z.string().describe('Used once: POST /v1/auth/refresh answers the next one'),
  tokenType: z.literal('Bearer'),
  expiresIn: z.number().int().describe('Seconds the access token lives'),
});

export const registeredResponse = signedInResponse.extend({ userId: z.uuid() });
