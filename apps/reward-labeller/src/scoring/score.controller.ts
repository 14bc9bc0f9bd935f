import { ApiDoc, Roles, ZodValidationPipe } from '@echoloop/platform';
import { compositeReward, type RewardComponent } from '@echoloop/rewards';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ComponentJudges, type JudgedReply } from '../labelling/component-judges';
import type { LabelDraft } from '../labelling/label-draft';
import { TurnLabeller } from '../labelling/turn-labeller.service';
import { type ScoreRequest, scoreRequestSchema, scoreResponseSchema } from './score.schemas';

/**
 * The labeller's reward models for training jobs: the same judges, prompts and rules as live labelling, on a
 * batch of (history, reply, reference?) items. Needs an API key scoped to the labeller: RL training jobs run by
 * experimenters, or analysts scoring a data set (it reads and changes nothing stored).
 */
@Controller('v1/rewards')
export class ScoreController {
  constructor(
    private readonly judges: ComponentJudges,
    private readonly labeller: TurnLabeller,
  ) {}

  @Post('score')
  @Roles('experimenter', 'analyst')
  @HttpCode(200)
  @ApiDoc({ summary: "Scores replies with the labeller's judges", response: scoreResponseSchema })
  async score(@Body(new ZodValidationPipe(scoreRequestSchema)) request: ScoreRequest) {
    const { config } = this.labeller;
    const wanted = new Set(request.components ?? ['empathy', 'humanlike', 'live_emotion']);
    const items = await Promise.all(
      request.items.map(async (item) => {
        const reply: JudgedReply = {
          history: item.history,
          reply: item.reply,
          reasoning: item.reasoning ?? null,
          finishReason: item.finishReason ?? 'stop',
        };
        const drafts: LabelDraft[] = await Promise.all([
          wanted.has('empathy') ? this.judges.empathy(reply, item.reference ?? null, config) : undefined,
          wanted.has('humanlike') ? this.judges.humanlike(reply, config) : undefined,
          wanted.has('live_emotion') && item.nextUserMessage !== undefined
            ? this.judges
                .liveEmotion(
                  reply,
                  item.nextUserMessage,
                  item.emotionScore ?? config.liveEmotion.startScore,
                  config,
                )
                .then((r) => r.draft)
            : undefined,
        ]).then((all) => all.filter((d): d is LabelDraft => d !== undefined));
        const values: Partial<Record<RewardComponent, number>> = {};
        for (const d of drafts)
          if (d.status === 'labelled' && d.value !== null) values[d.component] = d.value;
        return {
          components: drafts.map(
            ({ component, status, value, label, judgeModel, promptVersion, error, details }) => ({
              component,
              status,
              value,
              label,
              judgeModel,
              promptVersion,
              error,
              details,
            }),
          ),
          composite: Object.keys(values).length > 0 ? compositeReward(values, config) : null,
        };
      }),
    );
    return { rewardVersion: config.version, items };
  }
}
