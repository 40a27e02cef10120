import type { Schemas } from '@/lib/api-client';

/** A pool name as the API takes it: 1 to 63 of a-z, 0-9 and inner dashes. */
const poolName = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** maxPools is the most pools a project may be restricted to. */
export const maxPools = 64;

/** parsePools reads pool names separated by commas, spaces or line breaks. */
export function parsePools(text: string): string[] {
  return text.split(/[\s,]+/).filter((p) => p !== '');
}

/**
 * checkPools returns a message for each pool name the API would refuse
 * (and one when there are too many); none for a list it takes.
 */
export function checkPools(pools: string[]): string[] {
  const out = pools
    .filter((p) => !poolName.test(p))
    .map((p) => `"${p}": a pool is 1 to 63 of a-z, 0-9 and inner dashes`);
  if (pools.length > maxPools) out.push(`at most ${maxPools} pools`);
  return out;
}

/**
 * poolErrorsOf turns the API's field errors into messages: `pools[i]`
 * names the i-th pool sent.
 */
export function poolErrorsOf(errs: Schemas['FieldError'][] | undefined, sent: string[]): string[] {
  return (errs ?? []).map(({ field, message }) => {
    const m = /^pools\[(\d+)\]$/.exec(field);
    const pool = m ? sent[Number(m[1])] : undefined;
    return pool === undefined ? message : `"${pool}": ${message}`;
  });
}
