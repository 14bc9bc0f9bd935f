import { ApiDoc, Roles, ZodValidationPipe } from '@echoloop/platform';
import { simulatorSessionView } from '@echoloop/vocabulary';
import { Body, Controller, Get, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { openSessionSchema, type OpenSessionInput, replySchema, type ReplyInput } from './simulator.schemas';
import { SimulatorSessionsService } from './simulator-sessions.service';

const uuid = new ParseUUIDPipe({ version: '4' });

/** The sentient user over HTTP for RL rollouts: training jobs, run by experimenters. */
@Controller('v1/simulator/sessions')
@Roles('experimenter')
export class SimulatorSessionsController {
  constructor(private readonly sessions: SimulatorSessionsService) {}

  @Post()
  @ApiDoc({
    summary: "Opens a session: the profile's opener and its starting score",
    response: simulatorSessionView,
  })
  async open(@Body(new ZodValidationPipe(openSessionSchema)) input: OpenSessionInput) {
    return this.sessions.open(input);
  }

  @Post(':id/turns')
  @ApiDoc({
    summary: "The simulated user's answer to a reply, and its score after it",
    response: simulatorSessionView,
  })
  async reply(@Param('id', uuid) id: string, @Body(new ZodValidationPipe(replySchema)) input: ReplyInput) {
    return this.sessions.reply(id, input);
  }

  @Get(':id')
  async get(@Param('id', uuid) id: string) {
    return this.sessions.get(id);
  }
}
