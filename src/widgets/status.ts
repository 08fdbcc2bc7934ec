/** Status-line text of the GraphView widget (pure, tested in jest). */

/** The status line for the model's state. */
export function statusText(block: string, reason: string, rebuilds: number): string {
  const who = block || 'graph';
  if (!reason) {
    return '';
  }
  if (rebuilds > 1) {
    return `${who}: cached op rebuilt (${reason}), build #${rebuilds}`;
  }
  return `${who}: cached op built (${reason})`;
}
