"""The event bus: the core publishes what it does, the lab layer (and anyone else) subscribes.

A small publish/subscribe bus with named topics. The core calls ``publish(topic, **payload)``; a
subscriber registered with ``subscribe(topic, callback)`` receives one ``Event`` per publication
(``event.topic``, ``event.payload``, ``event["key"]``). Nothing here imports the lab layer or
ipywidgets: the lab layer depends on the core, never the reverse.

Topics (``topics`` maps each name to its description):

``"cache_built"``
    a HybridBlock built or rebuilt its cached graph. Payload: ``block`` (the block's name, a str, so
    the event keeps no block alive), ``block_id`` (``id()`` of the block: names repeat when a cell
    creating a model runs again, so a subscriber holding a weak reference compares identities),
    ``reason`` (str: "first call", "new input signature", ...), ``detail`` (str, human-readable:
    what changed, e.g. ``data: (1, 4) float32 -> (8, 4) float32`` or ``static_alloc: False ->
    True``), ``signature`` (str), ``history`` (index of the record in the block's
    ``rebuild_history``), and the data to draw it: ``graph`` (the traced graph, a Symbol),
    ``inputs`` (its data inputs' names), ``shapes`` and ``dtypes`` (input name -> shape tuple /
    dtype of this build). Events carry data, not the lab's JSON: a graph view builds its graph
    JSON from them (``hybridlab.lab.graph_json``).
``"hybridize_off"``
    a HybridBlock stopped running hybridized (``hybridize(active=False)``, or ``cast``/adding a
    child, which turn hybridization off as in MXNet 1.x); its calls run imperatively until it is
    hybridized again. Payload: ``block``, ``block_id``, ``reason`` (``"not hybridized: runs
    imperatively"``), ``detail`` (str: what turned it off).
``"hybridize_error"``
    building a block's graph failed. Payload: ``block`` (name, str), ``block_id``, ``error`` (the
    exception).

A subscriber that raises does not break the publisher: the error is logged as a warning on the
``hybridlab.events`` logger and the remaining subscribers still run. Subscribing and publishing are
safe from several threads (a notebook's kernel thread and widget callbacks).

Example::

    >>> from hybridlab import events
    >>> seen = []
    >>> with events.subscribe("cache_built", lambda e: seen.append((e["block"], e["reason"]))):
    ...     events.publish("cache_built", block="mlp0", reason="first call", signature="")
    1
    >>> seen
    [('mlp0', 'first call')]
    >>> events.publish("cache_built", block="mlp0", reason="new input signature", signature="")
    0
"""
import logging
import threading
import time

__all__ = ["topics", "NOT_HYBRIDIZED", "Event", "Subscription", "subscribe", "publish", "has_subscribers", "add_topic", "ALL"]

_log = logging.getLogger(__name__)

ALL = "*"   # subscribe to this pseudo-topic to receive every event (a log view, a recorder)

topics = {
    "cache_built": "a HybridBlock built or rebuilt its cached graph; payload: block (name, str), block_id "
                   "(id() of the block), reason (str), detail (str: what changed), signature (str), history "
                   "(index into the block's rebuild_history), graph (the traced Symbol), inputs (data input "
                   "names), shapes and dtypes (input name -> shape / dtype)",
    "hybridize_off": "a HybridBlock stopped running hybridized (its calls run imperatively); payload: block (name, "
                     "str), block_id (id() of the block), reason (str), detail (str: what turned it off)",
    "hybridize_error": "building a HybridBlock's graph failed; payload: block (name, str), block_id (id() of the "
                       "block), error (the exception)",
}

NOT_HYBRIDIZED = "not hybridized: runs imperatively"   # the reason of a "hybridize_off" event

_lock = threading.RLock()
_subscribers = {}   # topic -> list of Subscription, in subscription order


class Event:
    """One publication: ``topic``, ``payload`` (dict), ``time`` (``time.time()`` when published).
    ``event["key"]`` reads the payload.

    >>> from hybridlab.events import Event
    >>> e = Event("cache_built", {"block": "net0"})
    >>> e["block"], e.get("reason", "?")
    ('net0', '?')
    """

    __slots__ = ("topic", "payload", "time")

    def __init__(self, topic, payload, when=None):
        self.topic = topic
        self.payload = payload
        self.time = time.time() if when is None else when

    def __getitem__(self, key):
        return self.payload[key]

    def get(self, key, default=None):
        return self.payload.get(key, default)

    def __repr__(self):
        return f"<Event {self.topic} {sorted(self.payload)}>"


class Subscription:
    """The handle ``subscribe`` returns: ``detach()`` stops delivery (idempotent); as a context
    manager it detaches on exit. ``active`` says whether it still receives events.

    >>> from hybridlab import events
    >>> handle = events.subscribe("hybridize_error", print)
    >>> handle.active
    True
    >>> handle.detach()
    >>> handle.active, events.has_subscribers("hybridize_error")
    (False, False)
    """

    __slots__ = ("topic", "callback", "active")

    def __init__(self, topic, callback):
        self.topic = topic
        self.callback = callback
        self.active = True

    def detach(self):
        with _lock:
            if not self.active:
                return
            self.active = False
            subs = _subscribers.get(self.topic, [])
            if self in subs:
                # copy-on-write: a publish running in another thread keeps iterating its own list
                _subscribers[self.topic] = [s for s in subs if s is not self]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.detach()
        return False

    def __repr__(self):
        state = "active" if self.active else "detached"
        return f"<Subscription {self.topic} {getattr(self.callback, '__name__', self.callback)!r} {state}>"


def _check_topic(topic, where):
    if topic == ALL:
        return
    if topic not in topics:
        raise ValueError(f"{where}: unknown topic {topic!r}; expected one of {sorted(topics)} (or '*' for all). "
                         f"New topics are declared with hybridlab.events.add_topic(name, description).")


def add_topic(name, description):
    """Declare a new topic (the core's later layers: op hooks, timing samples...).

    >>> from hybridlab import events
    >>> events.add_topic("demo_topic", "a topic for this example; payload: value (int)")
    >>> "demo_topic" in events.topics
    True
    """
    if not isinstance(name, str) or not name or name == ALL:
        raise ValueError(f"add_topic: expected a non-empty topic name other than '*', got {name!r}")
    with _lock:
        topics[name] = str(description)


def subscribe(topic, callback):
    """Call ``callback(event)`` for every event published on ``topic`` (``"*"``: every topic), in the
    publishing thread, in subscription order. Returns a ``Subscription`` (``.detach()``, or use it
    as a context manager).

    >>> from hybridlab import events
    >>> got = []
    >>> handle = events.subscribe("*", lambda e: got.append(e.topic))
    >>> events.publish("hybridize_error", block="net0", error=ValueError("bad"))
    1
    >>> handle.detach()
    >>> got
    ['hybridize_error']
    """
    _check_topic(topic, "subscribe")
    if not callable(callback):
        raise TypeError(f"subscribe: expected a callable callback(event), got {type(callback).__name__}")
    sub = Subscription(topic, callback)
    with _lock:
        _subscribers[topic] = _subscribers.get(topic, []) + [sub]
    return sub


def has_subscribers(topic):
    """Whether publishing on ``topic`` would reach anyone: lets a publisher skip building an
    expensive payload (a graph JSON) when nobody listens.

    >>> from hybridlab import events
    >>> events.has_subscribers("cache_built")
    False
    """
    with _lock:
        return bool(_subscribers.get(topic)) or bool(_subscribers.get(ALL))


def publish(topic, **payload):
    """Deliver ``Event(topic, payload)`` to the topic's subscribers, then to ``"*"`` subscribers.
    Returns how many callbacks ran without error. A callback that raises is logged as a warning
    (with its traceback) and does not stop the publisher or the other subscribers.

    >>> from hybridlab import events
    >>> handle = events.subscribe("cache_built", lambda e: 1 / 0)
    >>> events.publish("cache_built", block="net0", reason="first call", signature="")
    0
    >>> handle.detach()
    """
    if topic == ALL:
        raise ValueError("publish: '*' is for subscribing to every topic; publish on a named topic")
    _check_topic(topic, "publish")
    with _lock:
        subs = _subscribers.get(topic, []) + _subscribers.get(ALL, [])
    if not subs:
        return 0
    event = Event(topic, payload)
    delivered = 0
    for sub in subs:
        if not sub.active:      # detached by an earlier callback of this same publication
            continue
        try:
            sub.callback(event)
            delivered += 1
        except Exception as err:  # noqa: BLE001 -- a broken subscriber must not break the kernel
            _log.warning("hybridlab.events: subscriber %r of topic %r raised %s: %s (the event was still "
                         "delivered to the other subscribers)", sub.callback, topic, type(err).__name__, err,
                         exc_info=True)
    return delivered
