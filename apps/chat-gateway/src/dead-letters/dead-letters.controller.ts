import { ApiDoc, ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import type { z } from 'zod';
import { CurrentPrincipal, Roles } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { deadLetterDetail, deadLetterPage, deadLetterTopics } from './dead-letters.responses';
import {
  deadLetterParams,
  deadLettersQuery,
  type DeadLettersQuery,
  replayBody,
  type ReplayBody,
} from './dead-letters.schemas';
import { DeadLettersService } from './dead-letters.service';

type Params = z.infer<typeof deadLetterParams>;

/** Messages consumers parked on dead-letter topics: signed-in admins (the web app, or `./echoloop dlq`). */
@Controller('v1/dead-letters')
@Roles('admin')
export class DeadLettersController {
  constructor(private readonly deadLetters: DeadLettersService) {}

  @Get()
  @ApiDoc({ summary: 'Dead letters, newest first, by topic and status', response: deadLetterPage })
  list(@Query(new ZodValidationPipe(deadLettersQuery)) query: DeadLettersQuery) {
    return this.deadLetters.list(query);
  }

  @Get('topics')
  @ApiDoc({ summary: 'How many letters each topic has parked and not resolved', response: deadLetterTopics })
  topics() {
    return this.deadLetters.topics();
  }

  @Get(':id')
  @ApiDoc({ summary: 'One dead letter with its message and headers', response: deadLetterDetail })
  get(@Param(new ZodValidationPipe(deadLetterParams)) { id }: Params) {
    return this.deadLetters.get(id);
  }

  @Post(':id/replay')
  @HttpCode(200)
  @ApiDoc({
    summary:
      'Sends a parked letter back to its topic, as it was or as a corrected event; 409 already_resolved, 422 still_invalid or invalid_event',
    response: deadLetterDetail,
  })
  replay(
    @CurrentPrincipal() principal: Principal,
    @Param(new ZodValidationPipe(deadLetterParams)) { id }: Params,
    @Body(new ZodValidationPipe(replayBody)) body: ReplayBody,
  ) {
    return this.deadLetters.replay(id, principal, body);
  }

  @Post(':id/drop')
  @HttpCode(200)
  @ApiDoc({
    summary: 'Drops a parked letter (kept, marked dropped); 409 already_resolved',
    response: deadLetterDetail,
  })
  drop(
    @CurrentPrincipal() principal: Principal,
    @Param(new ZodValidationPipe(deadLetterParams)) { id }: Params,
  ) {
    return this.deadLetters.drop(id, principal);
  }
}
