import { z } from 'zod';

/** What the auth routes answer, for the OpenAPI document (the services build these objects). */
export const registeredResponse = z.object({ userId: z.uuid(), accessToken: z.string() });

export const signedInResponse = z.object({ accessToken: z.string() });
