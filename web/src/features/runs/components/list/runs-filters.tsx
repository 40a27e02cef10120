import { useId, useState, type FormEvent } from 'react';
import type { Schemas } from '@/lib/api-client';
import { runStatuses } from '@/lib/run-status';
import { hasFilters, labelFilterError, maxLabelFilters, type RunFilters } from '../../utils/run-filters';
import './runs-list.css';

interface Props {
  filters: RunFilters;
  onChange: (f: RunFilters) => void;
  tests: Schemas['Test'][];
}

/** RunsFilters edits the list's filters; the caller keeps them in the URL. */
export function RunsFilters({ filters, onChange, tests }: Props) {
  const id = useId();
  const [label, setLabel] = useState('');
  const [labelError, setLabelError] = useState<string>();

  const toggleStatus = (s: Schemas['RunStatus']) =>
    onChange({ ...filters, status: filters.status.includes(s) ? filters.status.filter((x) => x !== s) : [...filters.status, s] });

  const addLabel = (e: FormEvent) => {
    e.preventDefault();
    const text = label.trim();
    const err = labelFilterError(text) ?? (filters.labels.length >= maxLabelFilters ? `At most ${maxLabelFilters} labels` : undefined);
    setLabelError(err);
    if (err) return;
    if (!filters.labels.includes(text)) onChange({ ...filters, labels: [...filters.labels, text] });
    setLabel('');
  };

  // A test id from a shared URL that is not in the first page of tests still shows as chosen.
  const testKnown = filters.test === '' || tests.some((t) => t.id === filters.test);

  return (
    <div className="card stack" style={{ gap: 10 }}>
      <div className="runs-filters">
        <fieldset>
          <legend>Status</legend>
          <div className="status-choices">
            {runStatuses.map((s) => (
              <label key={s} className="check">
                <input type="checkbox" name="status" value={s} checked={filters.status.includes(s)} onChange={() => toggleStatus(s)} />
                {s}
              </label>
            ))}
          </div>
        </fieldset>
        <label className="field">
          Test
          <select name="test" value={filters.test} onChange={(e) => onChange({ ...filters, test: e.target.value })}>
            <option value="">Any test</option>
            {!testKnown && <option value={filters.test}>{filters.test.slice(0, 8)}…</option>}
            {tests.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <form className="field" onSubmit={addLabel} noValidate>
          <label htmlFor={`${id}-label`}>Label</label>
          <div className="label-add">
            <input
              id={`${id}-label`}
              name="label"
              placeholder="key=value"
              value={label}
              onChange={(e) => setLabel(e.target.value)}
              aria-invalid={labelError ? true : undefined}
              aria-describedby={labelError ? `${id}-label-error` : undefined}
            />
            <button type="submit">Add</button>
          </div>
          {labelError && (
            <span id={`${id}-label-error`} className="field-error">
              {labelError}
            </span>
          )}
        </form>
        <label className="field runs-search">
          Search
          <input
            type="search"
            name="q"
            placeholder="Name or target, in the loaded rows"
            value={filters.q}
            onChange={(e) => onChange({ ...filters, q: e.target.value })}
          />
        </label>
      </div>
      {(filters.labels.length > 0 || hasFilters(filters)) && (
        <div className="row">
          {filters.labels.map((l) => (
            <span key={l} className="label-chip label-filter-chip">
              {l}
              <button type="button" aria-label={`Remove label filter ${l}`} onClick={() => onChange({ ...filters, labels: filters.labels.filter((x) => x !== l) })}>
                ×
              </button>
            </span>
          ))}
          <button type="button" className="link" onClick={() => onChange({ status: [], test: '', labels: [], q: '' })}>
            Clear filters
          </button>
        </div>
      )}
    </div>
  );
}
