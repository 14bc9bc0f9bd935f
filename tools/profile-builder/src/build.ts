import { type ChatModelClient, completeStructured, ModelError, type ResponseFormat } from '@echoloop/llm';
import {
  assignProfileIds,
  generatedProfileJsonSchema,
  parseGeneratedProfile,
  parseProfilesJsonl,
  profileBuilderMessages,
  type ProfileSeed,
  type SentientProfile,
} from '@echoloop/sentient';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const PROFILE_RESPONSE_FORMAT: ResponseFormat = {
  type: 'json_schema',
  json_schema: { name: 'sentient_profile', schema: generatedProfileJsonSchema, strict: true },
};

export interface BuildOptions {
  seeds: readonly ProfileSeed[];
  /** Profiles already in use (the hand-written set): new ones take none of their ids or names. */
  existing: readonly SentientProfile[];
  /** JSONL file each new profile is appended to as soon as it is made; seeds whose id is in it are skipped. */
  out: string;
  client: ChatModelClient;
  model: string;
  concurrency: number;
  maxTokens: number;
  temperature: number;
  onProgress?: (progress: BuildProgress) => void;
  onRejected?: (rejection: Rejection) => void;
}

export interface BuildProgress {
  done: number;
  total: number;
  skipped: number;
  accepted: number;
  rejected: number;
  lastId: string;
}

export interface Rejection {
  id: string;
  /** 0-based position of the seed in the seeds file. */
  seedIndex: number;
  problem: string;
  detail: string;
  /** Model calls made for it: 0 when the seed itself was unusable, 2 after a failed corrective retry. */
  attempts: number;
  seed: ProfileSeed;
  /** The model's last answer, when there was one. */
  lastReply?: string;
}

export interface BuildSummary {
  out: string;
  rejectedFile: string;
  total: number;
  /** Seeds whose profile was already in `out`. */
  skipped: number;
  accepted: number;
  /** Accepted only after the corrective retry. */
  retried: number;
  rejected: number;
  modelCalls: number;
  rejections: Omit<Rejection, 'seed' | 'lastReply'>[];
}

export const rejectedFileFor = (out: string): string => `${out}.rejected.jsonl`;

type Outcome =
  | { ok: true; profile: SentientProfile; attempts: number }
  | ({ ok: false } & Omit<Rejection, 'id' | 'seedIndex' | 'seed'>);

/**
 * Builds a profile for every seed not yet in `out`, at most `concurrency` at once. Each is one structured call
 * with one corrective retry that tells the model what was wrong; a seed still bad after it is rejected, listed in
 * `<out>.rejected.jsonl` (rewritten on each run) and never written to `out`.
 */
export async function buildProfiles(options: BuildOptions): Promise<BuildSummary> {
  const built = readBuilt(options.out);
  const builtIds = new Set(built.map((profile) => profile.id));
  // Profiles from an earlier run that were since merged into the existing set still count as built, not as taken:
  // reserving their ids would shift every generated id and build them all again.
  const reservedIds = new Set(
    options.existing.map((profile) => profile.id).filter((id) => !builtIds.has(id)),
  );
  const ids = assignProfileIds(options.seeds, reservedIds);
  const names = new Set([...options.existing, ...built].map((profile) => profile.persona.name));
  const jobs = options.seeds.flatMap((seed, seedIndex) => {
    const id = ids[seedIndex];
    return id === undefined || builtIds.has(id) ? [] : [{ seed, seedIndex, id }];
  });

  mkdirSync(path.dirname(path.resolve(options.out)), { recursive: true });
  const rejectedFile = rejectedFileFor(options.out);
  writeFileSync(rejectedFile, '');
  const total = options.seeds.length;
  const skipped = total - jobs.length;
  const summary: BuildSummary = {
    out: options.out,
    rejectedFile,
    total,
    skipped,
    accepted: 0,
    retried: 0,
    rejected: 0,
    modelCalls: 0,
    rejections: [],
  };

  const buildOne = async (seed: ProfileSeed, id: string): Promise<Outcome> => {
    const unusable = seedProblem(seed, reservedIds, names);
    if (unusable) return { ok: false, ...unusable, attempts: 0 };
    try {
      const outcome = await completeStructured(
        options.client,
        {
          model: options.model,
          messages: profileBuilderMessages(seed),
          maxTokens: options.maxTokens,
          temperature: options.temperature,
          responseFormat: PROFILE_RESPONSE_FORMAT,
        },
        {
          parse: (text) => {
            const parsed = parseGeneratedProfile(text, seed, id, { existingNames: names });
            // A parse that succeeds is the accepted answer: its name is taken at once, before a profile built
            // alongside can be checked against the set.
            if (parsed.ok) names.add(parsed.value.persona.name);
            return parsed;
          },
          correction: (detail) =>
            `Your previous answer could not be used: ${detail}. Write the whole profile again as one JSON ` +
            'object that fixes this.',
        },
      );
      if (outcome.ok) return { ok: true, profile: outcome.value, attempts: outcome.attempts };
      const { problem, detail, attempts, raw } = outcome;
      return { ok: false, problem, detail, attempts, lastReply: raw };
    } catch (error) {
      if (!(error instanceof ModelError)) throw error;
      return { ok: false, problem: error.code, detail: error.message, attempts: 1 };
    }
  };

  const worker = async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) {
      const { seed, seedIndex, id } = job;
      const outcome = await buildOne(seed, id);
      summary.modelCalls += outcome.attempts;
      if (outcome.ok) {
        appendFileSync(options.out, `${JSON.stringify(outcome.profile)}\n`);
        summary.accepted += 1;
        if (outcome.attempts > 1) summary.retried += 1;
      } else {
        const { ok: _ok, ...failure } = outcome;
        const rejection: Rejection = { id, seedIndex, ...failure, seed };
        appendFileSync(rejectedFile, `${JSON.stringify(rejection)}\n`);
        const { seed: _seed, lastReply: _reply, ...listed } = rejection;
        summary.rejections.push(listed);
        summary.rejected += 1;
        options.onRejected?.(rejection);
      }
      options.onProgress?.({
        done: skipped + summary.accepted + summary.rejected,
        total,
        skipped,
        accepted: summary.accepted,
        rejected: summary.rejected,
        lastId: id,
      });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  summary.rejections.sort((a, b) => a.seedIndex - b.seedIndex);
  return summary;
}

function readBuilt(out: string): SentientProfile[] {
  if (!existsSync(out)) return [];
  const { profiles, errors } = parseProfilesJsonl(readFileSync(out, 'utf8'));
  if (errors.length > 0)
    throw new Error(`${out}: ${errors.map((e) => `line ${e.line}: ${e.error}`).join('; ')}`);
  return profiles;
}

const nameKey = (name: string) => name.trim().toLowerCase().replace(/\s+/g, ' ');

/** A seed that no model answer can fix: its fixed id or name is already taken. */
function seedProblem(
  seed: ProfileSeed,
  reservedIds: ReadonlySet<string>,
  names: ReadonlySet<string>,
): { problem: string; detail: string } | undefined {
  if (seed.id !== undefined && reservedIds.has(seed.id))
    return {
      problem: 'id_taken',
      detail: `the seed's id "${seed.id}" is already used by an existing profile`,
    };
  const name = seed.name;
  if (name !== undefined && [...names].some((used) => nameKey(used) === nameKey(name)))
    return { problem: 'name_taken', detail: `the seed's name "${name}" is already used by another profile` };
  return undefined;
}
