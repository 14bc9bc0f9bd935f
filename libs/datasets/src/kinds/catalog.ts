import type { ParquetColumn } from '../parquet';
import type { LabelledTurn } from './labelled-turns';
import { DEFAULT_PAIRING, type PairingOptions, preferenceRecords } from './preferences';
import { type Privacy, toTurnRecord } from './records';
import { DEFAULT_SFT_MIN_REWARD, toSftRecord, toVerlRecord } from './training';

export const DATASET_KINDS = ['turns', 'preferences', 'sft', 'verl'] as const;
export type DatasetKind = (typeof DATASET_KINDS)[number];

export interface KindOptions {
  privacy: Privacy;
  pairing?: PairingOptions;
  /** `sft`: the lowest composite reward of a reply worth imitating. */
  sftMinReward?: number;
}

const messages = (name: string): ParquetColumn => ({ name, kind: 'messages' });
const json = (name: string): ParquetColumn => ({ name, kind: 'json' });
const string = (name: string): ParquetColumn => ({ name, kind: 'string' });

/** How each kind reads the labelled turns, makes its records, and lays them out in Parquet. */
export const KINDS: Record<
  DatasetKind,
  {
    /** Alternatives of a user message next to each other (kinds that compare or merge them). */
    byMessage: boolean;
    pairsOnly: boolean;
    records(turns: AsyncIterable<LabelledTurn>, options: KindOptions): AsyncIterable<object>;
    columns: ParquetColumn[];
  }
> = {
  turns: {
    byMessage: false,
    pairsOnly: false,
    async *records(turns, { privacy }) {
      for await (const turn of turns) yield toTurnRecord(turn, privacy);
    },
    columns: [
      { name: 'schemaVersion', kind: 'int' },
      ...['turnId', 'conversationId', 'user', 'characterId', 'checkpointId', 'experimentId', 'armId'].map(
        string,
      ),
      string('repliedAt'),
      string('client'),
      string('labellerVersion'),
      json('labelState'),
      json('rewards'),
      json('composite'),
      { name: 'liveEmotionDelta', kind: 'double' },
      json('feedback'),
      json('persona'),
      messages('context'),
      string('reply'),
      string('editedReply'),
    ],
  },
  preferences: {
    byMessage: true,
    pairsOnly: true,
    records: (turns, { privacy, pairing }) => preferenceRecords(turns, privacy, pairing ?? DEFAULT_PAIRING),
    columns: [
      messages('prompt'),
      messages('chosen'),
      messages('rejected'),
      string('source'),
      string('chosenTurnId'),
      string('rejectedTurnId'),
      string('user'),
      string('checkpointId'),
      json('chosenRewards'),
      json('rejectedRewards'),
      json('chosenNotes'),
      json('rejectedNotes'),
    ],
  },
  sft: {
    byMessage: false,
    pairsOnly: false,
    async *records(turns, { privacy, sftMinReward }) {
      for await (const turn of turns) {
        const record = toSftRecord(turn, privacy, sftMinReward ?? DEFAULT_SFT_MIN_REWARD);
        if (record) yield record;
      }
    },
    columns: [
      messages('messages'),
      string('source'),
      { name: 'reward', kind: 'double' },
      string('turnId'),
      string('user'),
      string('checkpointId'),
    ],
  },
  verl: {
    byMessage: true,
    pairsOnly: false,
    async *records(turns, { privacy }) {
      let group: LabelledTurn[] = [];
      let index = 0;
      for await (const turn of turns) {
        const [first] = group;
        if (first && first.userMessageId !== turn.userMessageId) {
          yield toVerlRecord(first, group, privacy, index++);
          group = [];
        }
        group.push(turn);
      }
      const [first] = group;
      if (first) yield toVerlRecord(first, group, privacy, index);
    },
    columns: [
      string('data_source'),
      messages('prompt'),
      string('ability'),
      {
        name: 'reward_model',
        kind: 'struct',
        fields: [string('style'), string('ground_truth')],
      },
      {
        name: 'extra_info',
        kind: 'struct',
        fields: [
          string('split'),
          { name: 'index', kind: 'int' },
          string('turn_id'),
          string('user'),
          { name: 'interaction_kwargs', kind: 'struct', fields: [string('name')] },
        ],
      },
    ],
  },
};
