import { verdictText, type ReferenceFile } from '../lib/reference';

type Verdict = NonNullable<ReferenceFile['verdict']>;
/** 'not-testable' is neutral grey: the runs did not show the finding's premise, so nothing was decided. */
const CLASS: Record<Verdict, string> = { reproduced: 'ok', contradicted: 'bad', inconclusive: 'warn', 'not-testable': 'neutral' };

export function VerdictBadge({ verdict }: { verdict: Verdict }) {
  return (
    <span className={`badge ${CLASS[verdict]}`} data-testid="verdict" data-verdict={verdict}>
      {verdictText(verdict)}
    </span>
  );
}
