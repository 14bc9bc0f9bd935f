import { z } from 'zod';

/** What the character routes answer, for the OpenAPI document (the controller builds these objects). */
export const characterResponse = z.object({
  id: z.uuid(),
  name: z.string(),
  spec: z.string(),
  card: z.record(z.string(), z.unknown()).describe('The Character Card as stored (V1, V2 or V3)'),
  createdAt: z.iso.datetime(),
});

export const characterListResponse = z.object({ items: z.array(characterResponse) });
