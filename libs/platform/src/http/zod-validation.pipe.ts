import { BadRequestException, type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';

/** Turns zod issues into the public error shape's `details`: one entry per bad field. */
export function validationDetails(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({ path: issue.path.join('.') || '(root)', message: issue.message }));
}

/** The 400 `validation_failed` of a request, naming every bad field. */
export const validationFailed = (details: { path: string; message: string }[]) =>
  new BadRequestException({ error: { code: 'validation_failed', message: 'Request is invalid', details } });

/** Validates a body, query or param with a zod schema: 400 `validation_failed` naming every bad field. */
export class ZodValidationPipe<S extends z.ZodType> implements PipeTransform<unknown, z.infer<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.infer<S> {
    const result = this.schema.safeParse(value);
    if (result.success) return result.data;
    throw validationFailed(validationDetails(result.error));
  }
}
