/**
 * The middle of the measured values; of an even count, the upper of the two middles. Always one
 * of the values themselves, so `runHttpBench` can find the round a median rate came from.
 */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
