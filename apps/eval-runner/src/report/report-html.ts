/** What a sentient benchmark report shows: pinned models, the metric table, and one emotion trajectory per profile. */
export interface ReportView {
  title: string;
  createdAt: string;
  pinned: { policy: string; simulator: string; judge?: string };
  metrics: { label: string; value: string }[];
  breakdowns: {
    title: string;
    rows: { key: string; episodes: number; meanFinal: number; success: number; failure: number }[];
  }[];
  trajectories: { profileId: string; scores: number[]; finalScore: number; endReason: string }[];
  /** The EPM C/A/P run: its metric table and each episode's vector, start to end. */
  epm?: {
    metrics: { label: string; value: string }[];
    rows: {
      profileId: string;
      p0: string;
      final: string;
      energy: string;
      projection: string;
      verdict: string;
    }[];
  };
}

const WIDTH = 260;
const HEIGHT = 120;

const escape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** One profile's emotion score per turn (0 = the opening) on the 0–100 scale, with the 10/40/70/100 bucket lines. */
function trajectorySvg(
  { profileId, scores, finalScore, endReason }: ReportView['trajectories'][number],
  maxTurns: number,
): string {
  const x = (turn: number) => 20 + (turn / maxTurns) * (WIDTH - 30);
  const y = (score: number) => 10 + (1 - Math.max(-10, Math.min(100, score)) / 100) * (HEIGHT - 25);
  const grid = [10, 40, 70, 100]
    .map(
      (s) =>
        `<line x1="20" x2="${WIDTH - 10}" y1="${y(s)}" y2="${y(s)}" class="grid"/><text x="2" y="${y(s) + 3}" class="axis">${s}</text>`,
    )
    .join('');
  const points = scores.map((s, i) => `${x(i).toFixed(1)},${y(s).toFixed(1)}`).join(' ');
  return `<figure><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="emotion of ${escape(profileId)}">${grid}<polyline points="${points}" class="line"/></svg><figcaption>${escape(profileId)}: ${finalScore} (${escape(endReason)})</figcaption></figure>`;
}

/** A self-contained HTML page (inline CSS and SVG, no scripts, no external assets). */
export function renderReportHtml(view: ReportView): string {
  const metricRows = view.metrics
    .map((m) => `<tr><th>${escape(m.label)}</th><td>${escape(m.value)}</td></tr>`)
    .join('');
  const breakdowns = view.breakdowns
    .map(
      (b) =>
        `<h2>${escape(b.title)}</h2><table><tr><th></th><th>episodes</th><th>mean final</th><th>success</th><th>failure</th></tr>${b.rows
          .map(
            (r) =>
              `<tr><th>${escape(r.key)}</th><td>${r.episodes}</td><td>${r.meanFinal.toFixed(1)}</td><td>${(r.success * 100).toFixed(0)}%</td><td>${(r.failure * 100).toFixed(0)}%</td></tr>`,
          )
          .join('')}</table>`,
    )
    .join('');
  const maxTurns = Math.max(10, ...view.trajectories.map((t) => t.scores.length - 1));
  const epm = view.epm
    ? `<h2>EPM C/A/P vector</h2><table>${view.epm.metrics
        .map((m) => `<tr><th>${escape(m.label)}</th><td>${escape(m.value)}</td></tr>`)
        .join(
          '',
        )}</table><table><tr><th>profile</th><th>P₀ (C, A, P)</th><th>final P</th><th>energy</th><th>projection</th><th>verdict</th></tr>${view.epm.rows
        .map(
          (r) =>
            `<tr><th>${escape(r.profileId)}</th><td>${escape(r.p0)}</td><td>${escape(r.final)}</td><td>${escape(r.energy)}</td><td>${escape(r.projection)}</td><td>${escape(r.verdict)}</td></tr>`,
        )
        .join('')}</table>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(view.title)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#1d2330}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border:1px solid #d5d9e0;padding:.3rem .6rem;text-align:left}
.grid{stroke:#e3e6eb;stroke-width:1}.axis{font-size:8px;fill:#8a92a0}.line{fill:none;stroke:#2f6fdb;stroke-width:2}
.charts{display:flex;flex-wrap:wrap;gap:1rem}figure{margin:0}figcaption{font-size:12px;color:#4a5262}
</style></head><body>
<h1>${escape(view.title)}</h1>
<p>${escape(view.createdAt)} · policy <code>${escape(view.pinned.policy)}</code> · simulator <code>${escape(view.pinned.simulator)}</code>${view.pinned.judge ? ` · judge <code>${escape(view.pinned.judge)}</code>` : ''}</p>
<h2>Metrics</h2><table>${metricRows}</table>
${breakdowns}
${epm}
<h2>Emotion trajectories</h2><div class="charts">${view.trajectories.map((t) => trajectorySvg(t, maxTurns)).join('')}</div>
</body></html>
`;
}
