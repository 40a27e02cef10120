import type { Schemas } from '@/lib/api-client';
import { runColor } from '../../utils/compared-runs';

type Props = { runs: Schemas['ComparedRun'][]; names: string[]; first: string };

/** RunColumnsHead is the head row of a compare table: first's column, then one column per run with its colour and name. */
export function RunColumnsHead({ runs, names, first }: Props) {
  return (
    <thead>
      <tr>
        <th className="metric" scope="col">
          {first}
        </th>
        {runs.map((r, i) => (
          <th key={r.id} scope="col">
            <span className="swatch" style={{ background: runColor(i) }} aria-hidden /> {names[i]}
          </th>
        ))}
      </tr>
    </thead>
  );
}
