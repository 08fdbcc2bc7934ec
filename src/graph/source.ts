/**
 * The generated source view: the cached op's Python program, highlighted by JupyterLab's
 * CodeMirror (the language registry the plugin hands over, `setHighlighter`; plain text without
 * it, e.g. in jest), with two-way links to the graph. The compiler writes a comment before each
 * node's statement (`# dense0_fwd = FullyConnected -> (2, 4) float32`), so:
 * - clicking a line selects the node whose statement it belongs to (`onNode`);
 * - `showNode(name)` marks that node's lines and scrolls them into view.
 * The code is text (`textContent` or the highlighter's spans): never markup.
 */

/** Highlights `code` into `el` (JupyterLab's `IEditorLanguageRegistry.highlight` for Python). */
export type Highlighter = (code: string, el: HTMLElement) => Promise<void>;

let highlighter: Highlighter | null = null;

/** Called by the widgets plugin with JupyterLab's language registry. */
export function setHighlighter(h: Highlighter | null): void {
  highlighter = h;
}

const NODE_COMMENT = /^\s*# (\S+) = /;

/** Whether the program has a statement for node `name` (the compiler's comment line before it). */
export function hasStatement(code: string, name: string): boolean {
  return code.split('\n').some(line => NODE_COMMENT.exec(line)?.[1] === name);
}

/** Per line (0-based) the node whose statement it belongs to (null before the first node). */
export function lineNodes(code: string, names: Set<string>): (string | null)[] {
  let current: string | null = null;
  return code.split('\n').map(line => {
    const m = NODE_COMMENT.exec(line);
    if (m && names.has(m[1])) {
      current = m[1];
    } else if (/^\s*(return|def) /.test(line)) {
      current = null;
    }
    return current;
  });
}

export interface ISourceView {
  readonly node: HTMLPreElement;
  /** Mark the lines of `name`'s statement and scroll them into view; false when it has none. */
  showNode(name: string): boolean;
  /** Resolves when the highlighting is done. */
  readonly ready: Promise<void>;
}

/** The source view of `code`; `names` are the graph's node names, `onNode` a click's node. */
export function sourceView(code: string, names: Set<string>, onNode: (name: string) => void): ISourceView {
  const pre = document.createElement('pre');
  pre.className = 'hl-source';
  pre.tabIndex = 0;
  pre.setAttribute('aria-label', 'Generated source of the cached op: click a line to select its node');
  const owner = lineNodes(code, names);
  const lines = code.split('\n');
  // one block per line, so a line can be marked and clicked; highlighted per line
  const rows = lines.map((text, i) => {
    const row = document.createElement('span');
    row.className = 'hl-source-line';
    row.dataset.hlLine = String(i + 1);
    const node = owner[i];
    if (node !== null) {
      row.dataset.hlNode = node;
      row.title = `node ${node}: click to select it in the graph`;
    }
    row.textContent = text || ' ';
    pre.appendChild(row);
    return row;
  });
  const h = highlighter;
  const ready = h
    ? Promise.all(
        rows.map((row, i) => {
          if (!lines[i].trim()) {
            return Promise.resolve();
          }
          row.textContent = '';
          return h(lines[i], row).catch(() => {
            row.textContent = lines[i]; // plain text when the highlighter fails
          });
        })
      ).then(() => undefined)
    : Promise.resolve();
  pre.addEventListener('click', ev => {
    const row = (ev.target as Element).closest ? (ev.target as Element).closest('.hl-source-line') : null;
    const node = row ? (row as HTMLElement).dataset.hlNode : undefined;
    if (node) {
      onNode(node);
    }
  });
  return {
    node: pre,
    ready,
    showNode(name: string): boolean {
      let first: HTMLElement | null = null;
      rows.forEach(r => {
        const on = r.dataset.hlNode === name;
        r.classList.toggle('hl-source-current', on);
        if (on && !first) {
          first = r;
        }
      });
      if (first) {
        // scroll the source box only (not the notebook): the statement a third of the way down
        pre.scrollTop = Math.max(0, (first as HTMLElement).offsetTop - pre.clientHeight / 3);
      }
      return first !== null;
    }
  };
}
