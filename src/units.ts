/** Numbers with units, as the kernel writes them (`lab/build_history.memory_text`): one place for every view. */

/** `288 B`, `1.5 KiB`, `3.0 MiB` (as the kernel's `memory_text`); `—` for null. */
export function memoryText(bytes: number | null): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) {
    return '—';
  }
  let size = bytes;
  for (const unit of ['B', 'KiB', 'MiB', 'GiB']) {
    if (size < 1024 || unit === 'GiB') {
      return unit === 'B' ? `${Math.trunc(size)} B` : `${size.toFixed(1)} ${unit}`;
    }
    size /= 1024;
  }
  return '—';
}

/** A time in ms for a table cell or a key: `0.012`, `3.56`, `12.3`, `1204`; `—` for null. */
export function msText(ms: number | null): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) {
    return '—';
  }
  return ms < 0.1 ? ms.toPrecision(2) : ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0);
}
