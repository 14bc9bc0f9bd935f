import { isFinished, reachedStage, type RlJob, STAGES } from './rl-job';

/** The refresh's stages in order: done, current (or where it ended), still to come. */
export function StageList({ job }: { job: RlJob }) {
  const reached = reachedStage(job);
  const ended = isFinished(job.status) && job.status !== 'succeeded';
  return (
    <>
      <h2>Stages</h2>
      <ol className="rl-stages">
        {STAGES.map((stage, index) => {
          const state =
            index < reached ? 'done' : index === reached ? (ended ? job.status : 'current') : 'pending';
          return (
            <li
              key={stage}
              className={`rl-stage rl-stage-${state}`}
              aria-current={state === 'current' ? 'step' : undefined}
            >
              <span className="rl-stage-name">{stage}</span>
              <span className="rl-stage-state">
                {state === 'done' ? '✓ done' : state === 'current' ? 'in progress' : state}
              </span>
            </li>
          );
        })}
      </ol>
    </>
  );
}
