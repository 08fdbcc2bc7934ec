/** Status-line text of the GraphView widget (pure, tested in jest). */

/**
 * The status line for the model's state: why the cached op was last built and, when the kernel
 * sent it, the change that caused it (`detail`: old -> new input shapes, or the flags that changed).
 * A block that no longer runs hybridized says so instead.
 */
export function statusText(block: string, reason: string, rebuilds: number, detail = '', hybridized = true): string {
  const who = block || 'graph';
  if (!reason) {
    return '';
  }
  const why = detail ? `${reason}: ${detail}` : reason;
  if (!hybridized) {
    return `${who}: ${why} (the graph shows its last hybridized build)`;
  }
  if (rebuilds > 1) {
    return `${who}: cached op rebuilt (${why}), build #${rebuilds}`;
  }
  return `${who}: cached op built (${why})`;
}
