"""How a CachedOp call is recorded for autograd (the part of ``CachedOp`` that ``RecordedCalls``
holds): under ``autograd.record()`` with an input that needs a gradient, the *train forward* runs
and ONE tape node is recorded, whose gradient runs the compiled backward program
(``backward.BackwardPlan``, built per signature and per set of inputs that need gradients). Where
that backward cannot be compiled (``fallbacks`` says why), and for ``create_graph=True``, the
optimized graph runs node by node through the imperative dispatcher instead (``Interpreter``), so
autograd records every op."""
from .. import monitor_state
from ..autograd import state as autograd_state
from ..autograd.backward import run_backward, tape_order
from ..ndarray.ndarray import NDArray
from ..ops.registry import OpDef
from .backward import BackwardPlan, BackwardUnavailable
from .instrument import ProfileMonitor
from .interpreter import Interpreter
from .program_error import program_error

__all__ = ["RecordedCalls", "TapeOp", "needs_record"]

_state = autograd_state.flags


class RecordedCalls:
    """CachedOp's recording half (a mixin: it reads the cached op's graph, programs and plans)."""

    def _call_train(self, args, default_device, monitor=None, label=""):
        """Recording with inputs that need gradients: the train forward, then ONE tape node whose
        gradient runs the compiled backward program. With a ``monitor`` (the profiler, see
        ``gluon.monitoring``) the train forward runs instrumented; the backward runs instrumented
        whenever the profiler is running when it runs, timed under ``label`` (the block's name)."""
        key = self._checked_key(args, default_device)
        need = autograd_state.gradient_mask(args)
        plan = self._plans.get((key, need))
        if plan is None:
            if (key, need) in self.fallbacks:
                return self._call_recorded(args, default_device)
            plan = self._build_plan(key, need)
            if plan is None:
                return self._call_recorded(args, default_device)
        return self.run_train(plan, args, monitor, label)

    def run_train(self, plan, args, monitor=None, label="", sources=None):
        """The recorded call of ``args`` with ``plan`` (theirs: see ``CachedOp.train_plan``): the train forward,
        then ONE tape node whose gradient runs the plan's backward (``sources``: the args' ``source_of``,
        when the caller has them)."""
        datas = [x._data for x in args]
        x0 = args[0]
        try:
            if monitor is None:
                res = plan.forward.fn(*datas)
            else:
                prog = plan.forward.instrumented()
                monitor.start(prog.nodes, x0._device)
                with monitor_state.quiet():      # its ops are reported by the monitor, not as imperative calls
                    res = prog.fn(*datas, monitor)
        except Exception as err:
            raise program_error(err) from err.__cause__
        outs, saved = plan.split(res)
        node = autograd_state.TapeNode(self._tape_op, (plan, saved, datas, label), list(args), tuple(outs), x0._device,
                                       sources)
        wrapped = []
        for i, o in enumerate(outs):
            w = NDArray._wrap(o, x0._device, x0._np)
            w._node = (node, i)
            wrapped.append(w)
        return wrapped[0] if self._single else wrapped

    def _build_plan(self, key, need):
        prog = self._programs[key]
        try:
            plan = BackwardPlan(self._outputs, self._inputs, prog.signature, prog.shapes, prog.dtypes, need,
                                title=repr(self.symbol))
        except BackwardUnavailable as err:
            self.fallbacks[(key, need)] = str(err)
            return None
        self._plans[(key, need)] = self._latest_plan = plan
        return plan

    def _tape_grad(self, F, state, inputs, outputs, ograds, training, into=None):
        """The tape node's gradient: the compiled backward program (or, when the gradient itself is
        being recorded, create_graph=True, the forward and its gradient op by op, in the forward's
        mode ``training``). ``into``: per input, the gradient buffer (an NDArray) the backward may
        write that input's gradient into, or ``None``; a buffer written is returned as that gradient."""
        plan, saved, datas, label = state
        if _state.recording:
            return self._grad_recorded(plan, inputs, ograds, training)
        x0 = inputs[0]
        monitor = ProfileMonitor(label or repr(self.symbol)) if monitor_state.switches.symbolic else None
        raw_into = None if into is None else [None if b is None else b._data for b in into]
        try:
            if monitor is None:
                grads = plan.run(saved, datas, [g._data for g in ograds], into=raw_into)
            else:
                with monitor_state.quiet():
                    grads = plan.run(saved, datas, [g._data for g in ograds], monitor)
        except Exception as err:
            raise program_error(err) from err.__cause__
        if raw_into is not None:
            return [None if g is None else b if b is not None and g is b._data else NDArray._wrap(g, x0._device, x0._np)
                    for g, b in zip(grads, into)]
        return [None if g is None else NDArray._wrap(g, x0._device, x0._np) for g in grads]

    def _grad_recorded(self, plan, inputs, ograds, training):
        """create_graph=True: re-run the forward op by op from stand-ins of the inputs, differentiate it
        with recording on, then point the recorded gradient graph at the real inputs. (Random ops draw
        again here: with Dropout in training mode this gradient uses a new mask.)"""
        aliases = []
        for x, k in zip(inputs, plan.need):
            a = NDArray._wrap(x._data, x._device, x._np)
            if k:
                a._grad_req = "write"
            aliases.append(a)
        with autograd_state.Scope(True, training):
            outs = self._call_recorded(aliases, None)
        outs = outs if isinstance(outs, list) else [outs]
        got = run_backward(outs, list(ograds), True, True, training)
        grads = [got[id(a)][1] if k and id(a) in got else None for a, k in zip(aliases, plan.need)]
        real = {id(a): x for a, x in zip(aliases, inputs)}
        for tnode in tape_order([g for g in grads if g is not None]):
            tnode.sources = [source_of(real[id(s)]) if not isinstance(s, tuple) and id(s) in real else s
                             for s in tnode.sources]
        return grads

    def _call_recorded(self, args, default_device):
        """The optimized graph node by node (``compiler.interpreter``) through the imperative
        dispatcher, so autograd records every op (the path of graphs whose backward cannot be
        compiled)."""
        self._checked_key(args, default_device)          # checks the inputs, compiles the signature
        order = self._inputs + self._ops                 # variables first, then the ops in order
        outs = Interpreter(self._outputs, order).run(dict(zip(self.input_names, args)))
        return outs[0] if self._single else outs


class TapeOp:
    """What a cached op's tape node holds in place of an ``OpDef``: a name and ``grad``, run through
    the one call path of gradients, ``OpDef.gradient`` (which passes the forward's mode), and the
    ``cached_op`` itself (``mx.autograd.get_symbol`` inlines its graph)."""

    __slots__ = ("name", "grad", "cached_op")
    grad_mode = True
    gradient = OpDef.gradient

    def __init__(self, name, grad, cached_op=None):
        self.name, self.grad, self.cached_op = name, grad, cached_op

    def gradient_into(self, F, a, inputs, outputs, ograds, training, into):
        """``gradient`` that may write input gradients into the gradient buffers ``into`` (per input,
        an NDArray or ``None``; the backward driver's ``backward`` offers the buffers of variables
        this node alone gives a gradient): a buffer written comes back as that input's gradient."""
        return self.grad(F, a, inputs, outputs, ograds, training=training, into=into)

    def __repr__(self):
        return f"<{self.name}>"


source_of = autograd_state.source_of    # where the gradient of ``x`` goes (as ``TapeNode.sources`` holds it)


def needs_record(args):
    for x in args:
        if getattr(x, "_grad_req", None) is not None and autograd_state.source_of(x) is not None:
            return True
    return False
