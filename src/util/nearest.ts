// The nearest of some names to a mistyped one, for "did you mean …?" (as git, gh and commander suggest).

/** Edit distance (insertions, deletions, substitutions, adjacent swaps). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [
    i,
    ...Array<number>(b.length).fill(0),
  ]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The closest name that is close for its length, or undefined when none is: at most three edits, and fewer
 * edits than 60 % of the name's letters (commander's own rule for its suggestions; git and gh also scale what
 * they suggest by the word). `lss` → `ls` and `catlog` → `catalog`, but `foo` is not `job`: two letters of
 * three changed is another word, not a typo.
 */
export function nearest(word: string, names: readonly string[]): string | undefined {
  let found: string | undefined;
  let best = Number.POSITIVE_INFINITY;
  for (const name of names) {
    const d = distance(word.toLowerCase(), name.toLowerCase());
    const close = d <= MAX_EDITS && name.length - d > name.length * MIN_SIMILARITY;
    if (close && d < best) {
      best = d;
      found = name;
    }
  }
  return found;
}

const MAX_EDITS = 3;
/** The share of a name's letters that must survive the edits. */
const MIN_SIMILARITY = 0.4;
