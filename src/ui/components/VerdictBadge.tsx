import type { ReferenceFile } from '../lib/reference';

type Verdict = NonNullable<ReferenceFile['verdict']>;
const CLASS: Record<Verdict, string> = { reproduced: 'ok', contradicted: 'bad', inconclusive: 'warn' };

export function VerdictBadge({ verdict }: { verdict: Verdict }) {
  return (
    <span className={`badge ${CLASS[verdict]}`} data-testid="verdict" data-verdict={verdict}>
      {verdict}
    </span>
  );
}
