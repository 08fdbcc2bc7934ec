"""Lesson 6's cells (``notebooks/06-data-parallel.ipynb``): the same net trained on one device, two
devices in one process and two MPI processes, loss curves and weights compared.
``tools/make_notebooks.py`` writes the notebook from them."""
from nbformat.v4 import new_code_cell, new_markdown_cell

DATA_PARALLEL = [
    new_markdown_cell("""# 6. Data parallel: several devices, several processes

Data-parallel training splits every batch over workers; each computes the gradient of its slice,
and the gradients are **added** before the update, so every worker keeps the same weights. hybridlab
runs the two ways MXNet does:

* **several devices in one process**: `mx.cpu(0)`, `mx.cpu(1)` are real placements (on a GPU
  machine, `mx.gpu(0)`, `mx.gpu(1)`); `gluon.utils.split_and_load` gives each device its slice and
  the `Trainer`'s kvstore sums the gradients;
* **several processes**: the `'dist_sync'` kvstore adds the gradients of every process with an MPI
  allreduce; `python -m hybridlab.launch -n 2 train.py` starts the processes (Open MPI's `mpirun`;
  on a cluster add `--hostfile hosts`).

The same net trains on the same global batches all three ways; the loss curves and the final
weights agree."""),
    new_code_cell("""import json
import numpy as np
from sklearn.datasets import load_digits
import hybridlab as mx
from hybridlab import autograd, gluon, launch
from hybridlab.gluon import nn

d = load_digits()
X, Y = (d.data / 16.0).astype('float32'), d.target.astype('float32')
GLOBAL_BATCH, STEPS = 64, 25
init = np.random.RandomState(0)
W1, W2 = init.normal(0, 0.1, (32, 64)).astype('float32'), init.normal(0, 0.1, (10, 32)).astype('float32')

def make_net(ctx):
    net = nn.HybridSequential()
    net.add(nn.Dense(32, activation='relu', in_units=64), nn.Dense(10, in_units=32))
    net.initialize(ctx=ctx)
    net[0].weight.set_data(mx.nd.array(W1))
    net[1].weight.set_data(mx.nd.array(W2))
    net.hybridize()
    return net

def train(ctx):
    net = make_net(ctx)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.5, 'momentum': 0.9})
    loss_fn, losses = gluon.loss.SoftmaxCrossEntropyLoss(), []
    for step in range(STEPS):
        rows = slice(step * GLOBAL_BATCH, (step + 1) * GLOBAL_BATCH)
        xs = gluon.utils.split_and_load(X[rows], ctx)          # one slice per device
        ys = gluon.utils.split_and_load(Y[rows], ctx)
        with autograd.record():
            parts = [loss_fn(net(x), y) for x, y in zip(xs, ys)]
        autograd.backward(parts)
        trainer.step(GLOBAL_BATCH)                           # gradients summed over devices, then SGD
        losses.append(sum(float(p.sum().asscalar()) for p in parts) / GLOBAL_BATCH)
    return net, losses

one, loss_one = train([mx.cpu(0)])
two, loss_two = train([mx.cpu(0), mx.cpu(1)])
print('devices of the 2-device net:', two[0].weight.list_ctx())
print('largest weight difference, 1 vs 2 devices:',
      max(float(abs(a.data(mx.cpu(0)) - b.data(mx.cpu(0))).max().asscalar())
          for a, b in zip(one.collect_params().values(), two.collect_params().values())))"""),
    new_markdown_cell("""Each device holds its own copy of every parameter; the `Trainer`'s kvstore (`'device'`, the
default) adds the devices' gradients and every copy gets the same update. With `kvstore=None` the
devices would train apart, as in MXNet.

Now the same training in **two processes**. Each worker reads its half of every global batch (its
*shard*, from `kv.rank` and `kv.num_workers`), and the `'dist_sync'` store adds the two workers'
gradients. The worker script is plain MXNet-style code:"""),
    new_code_cell("""WORKER = '''
import json
import numpy as np
from sklearn.datasets import load_digits
import hybridlab as mx
from hybridlab import autograd, gluon
from hybridlab.gluon import nn

kv = mx.kv.create('dist_sync')
d = load_digits()
X, Y = (d.data / 16.0).astype('float32'), d.target.astype('float32')
GLOBAL_BATCH, STEPS = 64, 25
half = GLOBAL_BATCH // kv.num_workers
init = np.random.RandomState(0)
W1, W2 = init.normal(0, 0.1, (32, 64)).astype('float32'), init.normal(0, 0.1, (10, 32)).astype('float32')
net = nn.HybridSequential()
net.add(nn.Dense(32, activation='relu', in_units=64), nn.Dense(10, in_units=32))
net.initialize()
net[0].weight.set_data(mx.nd.array(W1))
net[1].weight.set_data(mx.nd.array(W2))
net.hybridize()
trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.5, 'momentum': 0.9}, kvstore=kv)
loss_fn, losses = gluon.loss.SoftmaxCrossEntropyLoss(), []
for step in range(STEPS):
    start = step * GLOBAL_BATCH + kv.rank * half                # this worker's shard of the batch
    x, y = mx.nd.array(X[start:start + half]), mx.nd.array(Y[start:start + half])
    with autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    trainer.step(GLOBAL_BATCH)
    losses.append(float(loss.sum().asscalar()))
total = mx.nd.array(losses)
sums = mx.kv.create('dist_sync')      # a store without the Trainer's optimizer: a push just adds
sums.init('loss', mx.nd.zeros(STEPS))
sums.push('loss', total)               # the workers' sums: the global batch's loss
sums.pull('loss', out=total)
weights = {k: v.data().asnumpy().tolist() for k, v in net.collect_params().items()}
with open(f'dp_rank{kv.rank}.json', 'w') as f:        # one file per worker (their printed lines interleave)
    json.dump({'rank': kv.rank, 'workers': kv.num_workers,
               'loss': (total / GLOBAL_BATCH).asnumpy().tolist(), 'weights': weights}, f)
print(f'worker {kv.rank} of {kv.num_workers}: done')
'''
with open('dp_worker.py', 'w') as f:
    f.write(WORKER)
print(' '.join(launch.command('dp_worker.py', 2)))"""),
    new_code_cell("""run = launch.run('dp_worker.py', num_workers=2, timeout=240)
assert run.returncode == 0, run.stderr
print(run.stdout)
results = [json.load(open(f'dp_rank{rank}.json')) for rank in (0, 1)]
loss_mpi = results[0]['loss']
print('workers (rank, of):', [(r['rank'], r['workers']) for r in results])
print('both workers hold the same weights:',
      all(np.array_equal(results[0]['weights'][k], results[1]['weights'][k]) for k in results[0]['weights']))
print('largest weight difference, 2 processes vs 1 device:',
      max(float(np.abs(np.array(results[0]['weights'][k]) - p.data().asnumpy()).max())
          for k, p in one.collect_params().items()))"""),
    new_markdown_cell("""The three loss curves, step by step (they lie on each other):"""),
    new_code_cell("""plot = mx.lab.TrainingPlot('1 device', '2 devices', '2 MPI workers', title='digits MLP, global batch 64')
for a, b, c in zip(loss_one, loss_two, loss_mpi):
    plot.add(**{'1 device': a, '2 devices': b, '2 MPI workers': c})
print('largest loss difference from 1 device: 2 devices', max(abs(a - b) for a, b in zip(loss_one, loss_two)),
      '| 2 MPI workers', max(abs(a - c) for a, c in zip(loss_one, loss_mpi)))
plot"""),
    new_markdown_cell("""## The symbolic API: `Module` on a list of devices
`Module(context=[...], work_load_list=[1, 3])` splits each batch 1:3 over the devices (one executor
each, sharing the compiled program) and sums the gradients through its kvstore:"""),
    new_code_cell("""data = mx.sym.var('data')
fc1 = mx.sym.FullyConnected(data, num_hidden=32, name='fc1')
out = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.relu(fc1), num_hidden=10, name='fc2'), name='softmax')

def fit(context, work_load_list=None):
    mod = mx.mod.Module(out, context=context, work_load_list=work_load_list)
    it = mx.io.NDArrayIter(X[:GLOBAL_BATCH * STEPS], Y[:GLOBAL_BATCH * STEPS], GLOBAL_BATCH)
    mod.fit(it, num_epoch=1, optimizer='sgd', optimizer_params={'learning_rate': 0.5},
            arg_params={'fc1_weight': mx.nd.array(W1), 'fc1_bias': mx.nd.zeros(32),
                        'fc2_weight': mx.nd.array(W2), 'fc2_bias': mx.nd.zeros(10)})
    return mod

single, split = fit([mx.cpu(0)]), fit([mx.cpu(0), mx.cpu(1)], work_load_list=[1, 3])
print('rows per device:', [s.stop - s.start for s in split._exec_group.slices])
print('largest weight difference, 1 vs 2 devices:',
      max(float(abs(single.get_params()[0][k] - v).max().asscalar()) for k, v in split.get_params()[0].items()))"""),
]
