import { BadRequestException } from '@nestjs/common';
import { z } from 'zod';
import { ZodValidationPipe } from './zod-validation.pipe';

describe('ZodValidationPipe', () => {
  const pipe = new ZodValidationPipe(z.object({ email: z.email(), age: z.number().int().min(13) }).strict());

  it('returns the parsed value', () => {
    expect(pipe.transform({ email: 'a@b.co', age: 30 })).toEqual({ email: 'a@b.co', age: 30 });
  });

  it('rejects with a 400 naming every bad field', () => {
    let error: unknown;
    try {
      pipe.transform({ email: 'nope', age: 3, extra: true });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(BadRequestException);
    const body = (error as BadRequestException).getResponse() as {
      error: { code: string; details: { path: string }[] };
    };
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.details.map((d) => d.path).sort()).toEqual(['(root)', 'age', 'email']);
  });
});
