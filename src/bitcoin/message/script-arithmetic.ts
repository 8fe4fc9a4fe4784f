import { OP } from './script.js';

/** The result of a two-operand arithmetic or comparison opcode (OP_ADD … OP_MAX) on script numbers. */
export function binaryOp(opcode: number, a: number, b: number): number {
  switch (opcode) {
    case OP.ADD:
      return a + b;
    case OP.SUB:
      return a - b;
    case OP.BOOLAND:
      return Number(a !== 0 && b !== 0);
    case OP.BOOLOR:
      return Number(a !== 0 || b !== 0);
    case OP.NUMEQUAL:
    case OP.NUMEQUALVERIFY:
      return Number(a === b);
    case OP.NUMNOTEQUAL:
      return Number(a !== b);
    case OP.LESSTHAN:
      return Number(a < b);
    case OP.GREATERTHAN:
      return Number(a > b);
    case OP.LESSTHANOREQUAL:
      return Number(a <= b);
    case OP.GREATERTHANOREQUAL:
      return Number(a >= b);
    case OP.MIN:
      return Math.min(a, b);
    default:
      return Math.max(a, b);
  }
}
