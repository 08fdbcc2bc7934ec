/**
 * Compact labels for drawn boxes, as Netron draws big models: the op line says what the layer
 * does (`Conv 3×3 /2 ×64`, `Dense 1000`, `MaxPool 3×3 /2`, `relu`) and the name line the node's
 * own name inside its Block (`conv0`, not `resnetv20_stage1_conv0_fwd`). The full name and op
 * stay in the tooltip and the details panel. Text only: never markup.
 */
import { IGraphNode } from '../tokens';

/** A tuple attribute (`(3, 3)`, `[2,2]`, `3`) as numbers; [] when absent or not numeric. */
function tuple(value: string | undefined): number[] {
  if (!value) {
    return [];
  }
  const nums = value.replace(/[()[\]\s]/g, '').split(',').filter(Boolean).map(Number);
  return nums.every(n => Number.isFinite(n)) ? nums : [];
}

function dims(value: string | undefined): string {
  const t = tuple(value);
  return t.length ? t.join('×') : '';
}

/** `/2` for a stride other than 1 (`(2, 2)` -> `/2`, `(1, 2)` -> `/1×2`). */
function stride(value: string | undefined): string {
  const t = tuple(value);
  if (!t.length || t.every(x => x === 1)) {
    return '';
  }
  return '/' + (t.every(x => x === t[0]) ? String(t[0]) : t.join('×'));
}

function join(...parts: string[]): string {
  return parts.filter(Boolean).join(' ');
}

/** The op line of a box: the op with its key attributes (kernel, stride, filters, units, kind). */
export function opSummary(node: IGraphNode): string {
  const a = node.attrs || {};
  switch (node.op) {
    case 'Convolution':
    case 'Deconvolution': {
      const groups = Number(a.num_group || 1) > 1 ? `g${a.num_group}` : '';
      return join(node.op === 'Convolution' ? 'Conv' : 'Deconv', dims(a.kernel), stride(a.stride), a.num_filter ? `×${a.num_filter}` : '', groups);
    }
    case 'FullyConnected':
      return join('Dense', a.num_hidden || '');
    case 'Pooling': {
      const kind = (a.pool_type || 'max').replace(/^./, c => c.toUpperCase());
      if (a.global_pool === 'True' || a.global_pool === 'true' || a.global_pool === '1') {
        return `Global${kind}Pool`;
      }
      return join(`${kind}Pool`, dims(a.kernel), stride(a.stride));
    }
    case 'Activation':
    case 'LeakyReLU':
      return a.act_type || node.op;
    case 'Dropout':
      return a.p ? `Dropout ${a.p}` : 'Dropout';
    case 'Custom': // a Python op (mx.operator): named by the type it was registered as
      return a.op_type ? `Custom ${a.op_type}` : 'Custom';
    case 'Reshape':
    case '_np_reshape':
      return a.shape || a.newshape ? join('Reshape', a.shape || a.newshape) : 'Reshape';
    default:
      return node.op;
  }
}

/**
 * The name line of a box: the node's name from its innermost Block's name on
 * (`resnetv20_stage1_conv0_fwd` in scope `[..., 'conv0']` -> `conv0`), without the `_fwd` every
 * layer output carries (a backward node's gradient op after `∇`); a name that does not hold its scope keeps its last two `_` parts
 * (`resnetv20_stage1_conv0_weight` -> `conv0_weight`).
 */
export function shortName(node: IGraphNode): string {
  let name = node.name.replace(/_fwd$/, '');
  const scope = node.scope || [];
  const last = scope.length ? scope[scope.length - 1] : '';
  if (last) {
    const at = name.lastIndexOf(last);
    if (at >= 0 && (at === 0 || name[at - 1] === '_')) {
      // backward nodes: `conv0_fwd_backward_mul0` -> `conv0 ∇ mul0`, `conv0_fwd_output` -> `conv0 output`
      name = name.slice(at).replace(/_fwd_backward_/, ' ∇ ').replace(/_fwd_/, ' ');
      return name || node.name;
    }
  }
  const parts = name.split('_').filter(Boolean);
  return parts.length > 2 ? parts.slice(-2).join('_') : name || node.name;
}
