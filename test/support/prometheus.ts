/** One line of a Prometheus text exposition: a series and its value. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses the Prometheus text format (0.0.4) as a scraper reads it, independently of prom-client
 * that wrote it: `# HELP`/`# TYPE` lines name the metrics, every other line is one sample.
 */
export function parsePrometheus(text: string): { samples: PromSample[]; types: Map<string, string> } {
  const samples: PromSample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key!] = raw!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: sample[1]!, labels, value: Number(sample[3]) });
  }
  return { samples, types };
}

/** The value of the one sample of `name` whose labels are exactly `labels`; undefined when there is none. */
export function sampleValue(samples: readonly PromSample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels);
  const found = samples.filter(
    (s) => s.name === name && Object.keys(s.labels).length === wanted.length && wanted.every(([key, value]) => s.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} with labels ${JSON.stringify(labels)}`);
  return found[0]?.value;
}
