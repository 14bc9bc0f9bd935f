import { LabelledTurnsSource, pseudonymKey, toTurnRecord } from '@echoloop/datasets';
import { ApiDoc, ZodValidationPipe } from '@echoloop/platform';
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { Roles } from '../auth/auth.decorators';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { encodeCursor, turnsPage, turnsQuery, type TurnsQuery } from './turns.schemas';

/**
 * Labelled turns for data teams (analysts and admins): the same records, privacy rules and filters as the
 * `turns` export (pseudonymous users, PII redacted, consenting users only), one page at a time, oldest first.
 */
@Controller('v1/turns')
@Roles('analyst')
export class TurnsController {
  private readonly key: string;

  constructor(
    private readonly turns: LabelledTurnsSource,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {
    this.key = pseudonymKey(env);
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
    const page = await this.turns.page(
      { filters, consentDefault: this.env.TRAINING_CONSENT_DEFAULT },
      { limit, ...(cursor && { after: cursor }) },
    );
    return {
      items: page.items.map((turn) => toTurnRecord(turn, { pseudonymKey: this.key })),
      nextCursor: page.next && encodeCursor(page.next),
    };
  }
}
