import { type CategoricalFieldName, type CategoryOf, isNumericField, type NumericFieldName } from './fields';

/** `fast`: per-turn features computed in-process; `deep`: an LLM extraction over the conversation. */
export type ObservationSource = 'fast' | 'deep';

interface ObservationBase {
  /** The message the observation was read from: it becomes evidence for the field. */
  messageId: string;
  /** When that message was written (epoch ms): an observation of an old message counts less. */
  observedAt: number;
  /** How much the observation says, in (0, 1]: a one-word message says little about formality. */
  weight: number;
  source: ObservationSource;
  /** The user said it outright ("I'm 34"): replaces the field instead of adding to it. */
  explicit?: boolean;
}

export type NumericObservation = ObservationBase & { field: NumericFieldName; value: number };

export type CategoricalObservation<K extends CategoricalFieldName = CategoricalFieldName> = ObservationBase &
  { [P in K]: { field: P; value: CategoryOf<P> } }[K];

/** One piece of evidence about one profile field. */
export type Observation = NumericObservation | CategoricalObservation;

export function isNumericObservation(observation: Observation): observation is NumericObservation {
  return isNumericField(observation.field);
}

type WithoutOrigin<T> = T extends unknown ? Omit<T, 'messageId' | 'observedAt' | 'source'> : never;
/** An observation before the message it came from is attached: what extractors produce. */
export type ObservationDraft = WithoutOrigin<Observation>;
