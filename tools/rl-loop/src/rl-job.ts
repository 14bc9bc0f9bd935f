import type { GateReport } from '@echoloop/vocabulary';

/** The orchestrator's job as GET /v1/rl/jobs/:id returns it (the parts this loop reads). */
export interface RlJob {
  id: string;
  status: string;
  trigger: string;
  reason: string | null;
  checkpointId: string | null;
  experimentId: string | null;
  createdAt: string;
  /** A refresh skipped before its split (too little data) has only some of these. */
  dataset: {
    id: string;
    train?: { rows: number };
    validation?: { rows: number };
    heldout?: { rows: number };
    export?: { rows: number };
    parent?: { checkpointId: string; jobId: string | null };
    replay?: { kept: number };
  } | null;
  metrics: {
    curve?: CurvePoint[];
    validation?: ValidationPoint[];
    finalLoss?: number | null;
    selection?: Selection;
  } | null;
  output: {
    adapters: { format: string; path: string }[];
    serving?: { adapterName: string; defaultCheckpointId: string };
  } | null;
  gate: GateReport | null;
  logsTail: string | null;
}

export interface CurvePoint {
  step: number;
  of: number;
  loss?: number | null;
  rewardAccuracy?: number | null;
}

/** A validation point of training: loss, preference accuracy and margin on other users, and drift from the parent. */
export interface ValidationPoint {
  step: number;
  valLoss: number | null;
  valAccuracy: number | null;
  valMargin: number | null;
  klToParent: number | null;
}

/** The step training kept, and whether it generalised (python/echoloop_train/selection.py). */
export interface Selection {
  generalised: boolean;
  reason: string;
  step: number | null;
  valAccuracy: number | null;
  klToParent: number | null;
  stoppedBy: string | null;
}

export interface TriggerDecision {
  trigger: string;
  decision: string;
  reason: string;
  jobId: string | null;
}

export interface TriggerState {
  thresholds: { turns: number; pairs: number };
  newData: { since: string | null; turns: number; pairs: number };
  decisions: TriggerDecision[];
}
