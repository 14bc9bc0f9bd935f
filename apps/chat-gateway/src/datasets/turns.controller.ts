import { LabelledTurnsSource, pseudonymKey, toTurnRecord } from '@echoloop/datasets';
import { ApiDoc, validationFailed, ZodValidationPipe } from '@echoloop/platform';
import { SignedCursors } from '@echoloop/schemas';
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { Roles } from '../auth/auth.decorators';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { turnCursor, turnsPage, turnsQuery, type TurnsQuery } from './turns.schemas';

/**
 * Labelled turns for data teams (analysts and admins): the same records, privacy rules and filters as the
 * `turns` export (pseudonymous users, PII redacted, consenting users only), one page at a time, oldest first.
 */
@Controller('v1/turns')
@Roles('analyst')
export class TurnsController {
  private readonly key: string;
  private readonly cursors: SignedCursors;

  constructor(
    private readonly turns: LabelledTurnsSource,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {
    this.key = pseudonymKey(env);
    // Every gateway process shares JWT_SECRET, so a cursor one gave is good at any other.
    this.cursors = new SignedCursors(env.JWT_SECRET, 'turns');
  }

  @Get()
  @ApiDoc({
    summary: 'Labelled turns with their rewards, feedback and context (analysts)',
    description:
      'Filters: time range, character, conversation (its turns in order), checkpoint, experiment and arm, ' +
      'labeller version, reward component ranges, live-emotion delta, thumb, stars, language. Stable order ' +
      '(replied at, then id); cursor paging.',
    response: turnsPage,
  })
  async list(@Query(new ZodValidationPipe(turnsQuery)) query: TurnsQuery) {
    const { cursor, limit, ...filters } = query;
    const after = cursor === undefined ? undefined : this.cursors.decode(cursor, turnCursor);
    if (cursor !== undefined && !after)
      throw validationFailed([{ path: 'cursor', message: SignedCursors.REFUSED }]);
    const page = await this.turns.page(
      { filters, consentDefault: this.env.TRAINING_CONSENT_DEFAULT },
      { limit, ...(after && { after }) },
    );
    return {
      items: page.items.map((turn) => toTurnRecord(turn, { pseudonymKey: this.key })),
      nextCursor: page.next && this.cursors.encode(page.next),
    };
  }
}
