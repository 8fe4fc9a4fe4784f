import { invalid } from './script-context.js';

const TRUE = Uint8Array.of(1);
const FALSE = new Uint8Array(0);

// Stack helpers at module level rather than closures inside evalScript: the interpreter runs
// on every verification, and (under tsx/esbuild's keepNames) each closure costs a naming call.
export function need(stack: Uint8Array[], n: number): void {
  if (stack.length < n) throw invalid('the script reads past the bottom of the stack');
}

export function top(stack: Uint8Array[], i = 1): Uint8Array {
  return stack[stack.length - i]!;
}

export function pop(stack: Uint8Array[]): Uint8Array {
  need(stack, 1);
  return stack.pop()!;
}

export function pushBool(stack: Uint8Array[], b: boolean): void {
  stack.push(b ? TRUE : FALSE);
}
