import { IS_PUBLIC } from './public.decorator';
import { type CanActivate, type ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';

/**
 * Every route but @Public() ones (health, metrics) needs a live service API key in `x-api-key`, as issued by
 * the gateway's admins (only its SHA-256 is stored). Checked on every request, so a revocation holds at once.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @InjectDataSource() private readonly db: DataSource,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const key = context.switchToHttp().getRequest<Request>().headers['x-api-key'];
    if (typeof key === 'string' && key.length > 0) {
      const hash = createHash('sha256').update(key).digest('hex');
      const rows = (await this.db.query('SELECT 1 FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [
        hash,
      ])) as unknown[];
      if (rows.length > 0) return true;
    }
    throw new UnauthorizedException({
      error: { code: 'unauthorized', message: 'A valid service API key is required in x-api-key' },
    });
  }
}
