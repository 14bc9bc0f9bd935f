import type { ChatMessage } from '@echoloop/vocabulary';
import { type CharacterCard } from '@echoloop/character-cards';
import { createHash } from 'node:crypto';
import { ChatModelClient, MODEL_PRIORITY, type ResponseFormat } from '@echoloop/llm';
import { emptyProfile, extractFastFeatures, mergeObservations, personaGuidance } from '@echoloop/persona';
import { buildPrompt, buildStopStrings, cutAtFirstStop } from '@echoloop/prompt';
import {
  actorJsonSchema,
  analyserJsonSchema,
  type EpisodeDeps,
  iedrJsonSchema,
  type SimulatorDeps,
  turnJudgeJsonSchema,
} from '@echoloop/sentient';

/** An OpenAI-compatible endpoint and the model name to ask for (a checkpoint: base model or LoRA adapter). */
export interface ModelTarget {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** The model's context window, for the policy prompt's token budget. */
  contextTokens: number;
  maxTokens: number;
  temperature?: number;
}

const schema = (name: string, body: Record<string, unknown>): ResponseFormat => ({
  type: 'json_schema',
  json_schema: { name, schema: body, strict: true },
});

function clientFor(target: ModelTarget): ChatModelClient {
  return new ChatModelClient([{ baseUrl: target.baseUrl, apiKey: target.apiKey }], {
    firstTokenTimeoutMs: 120_000,
    idleTimeoutMs: 60_000,
    retries: 1,
    breaker: { failureThreshold: 20, cooldownMs: 5_000 },
  });
}

/**
 * The sampling seed of a model call: a hash of everything it is shown (and the output format asked for). Two
 * checkpoints playing the same profile meet the same simulated user until their replies differ, and answer the same
 * history from the same random draws (common random numbers), so the benchmark compares them on the same ground (its
 * difference is paired per profile) instead of on two draws of the user's mood and of the sampler.
 */
export function conversationSeed(messages: readonly ChatMessage[], format?: ResponseFormat): number {
  const digest = createHash('sha256')
    .update(JSON.stringify(format ? [messages, format] : [messages]))
    .digest();
  return digest.readUInt32BE(0) & 0x7fffffff;
}

/** The simulated user's calls (analyser, actor) and, given a judge model, the EPM judge's. */
export function simulatorDeps(simulator: ModelTarget, judge?: ModelTarget): SimulatorDeps {
  const structured = (target: ModelTarget) => {
    const client = clientFor(target);
    return async (messages: ChatMessage[], format: ResponseFormat) =>
      (
        await client.complete({
          model: target.model,
          messages,
          maxTokens: target.maxTokens,
          temperature: target.temperature ?? 0.7,
          responseFormat: format,
          priority: MODEL_PRIORITY.scoring,
          seed: conversationSeed(messages, format),
        })
      ).text;
  };
  const simulate = structured(simulator);
  const rate = judge && structured({ ...judge, temperature: judge.temperature ?? 0 });
  return {
    analyser: (messages) => simulate(messages, schema('sentient_analysis', analyserJsonSchema)),
    actor: (messages) => simulate(messages, schema('sentient_user_turn', actorJsonSchema)),
    ...(rate && {
      judge: (messages, rubric) =>
        rate(
          messages,
          rubric === 'iedr'
            ? schema('epm_initial_deficit', iedrJsonSchema)
            : schema('epm_turn_rating', turnJudgeJsonSchema),
        ),
    }),
  };
}

/**
 * The model calls of one episode: the simulated user's, and the policy's. The policy is called exactly as the gateway calls a checkpoint: the
 * character card first, then persona guidance inferred live from the simulated user's messages (fast features),
 * then the history within the token budget. It never sees the profile.
 */
export function episodeDeps(
  policy: ModelTarget,
  simulator: ModelTarget,
  card: CharacterCard,
  judge?: ModelTarget,
): () => EpisodeDeps {
  const policyClient = clientFor(policy);
  const user = simulatorDeps(simulator, judge);
  // The gateway's stop strings, so the policy never writes the simulated user's lines for them.
  const stop = buildStopStrings({ userName: 'User', characterName: card.data.name });
  return () => {
    let persona = emptyProfile();
    let seen = 0;
    return {
      async policy(history) {
        const dialogue = history.filter((m) => m.role !== 'system');
        // Each user message is observed once, as the gateway does on arrival.
        for (const [i, message] of dialogue.entries()) {
          if (i < seen || message.role !== 'user') continue;
          const at = new Date();
          persona = mergeObservations(
            persona,
            extractFastFeatures({ id: `m${i}`, text: message.content, createdAt: at }),
            at,
          );
        }
        seen = dialogue.length;
        const last = dialogue.at(-1);
        const prompt = buildPrompt({
          card,
          userName: 'User',
          history: dialogue.slice(0, -1),
          userMessage: last?.content ?? '',
          budgetTokens: policy.contextTokens - policy.maxTokens,
          personaGuidance: personaGuidance(persona, { now: new Date() }),
        });
        const reply = await policyClient.complete({
          model: policy.model,
          messages: prompt.messages,
          maxTokens: policy.maxTokens,
          stop,
          priority: MODEL_PRIORITY.scoring,
          seed: conversationSeed(prompt.messages),
          ...(policy.temperature !== undefined && { temperature: policy.temperature }),
        });
        return cutAtFirstStop(reply.text, stop);
      },
      ...user,
    };
  };
}
