"""MXNet 1.x names for devices: ``mx.context.Context`` and ``current_context()``."""
from .device import Device as Context, cpu, cpu_pinned, current_device as current_context, gpu, num_gpus

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus"]
