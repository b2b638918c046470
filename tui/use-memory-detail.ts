/** One memory and its version history, loaded when `id` changes. */
import { useEffect, useState } from 'react';
import type { DaemonClient, MemoryResult } from '../daemon/client.js';
import type { MemoryVersion } from './detail-model.js';

export interface MemoryDetail {
  loading: boolean;
  memory: MemoryResult | null;
  versions: MemoryVersion[];
  error: string | null;
}

const EMPTY: MemoryDetail = { loading: false, memory: null, versions: [], error: null };

export function useMemoryDetail(client: Pick<DaemonClient, 'get' | 'history'>, id: string | null): MemoryDetail {
  const [detail, setDetail] = useState<MemoryDetail>(EMPTY);
  useEffect(() => {
    if (!id) {
      setDetail(EMPTY);
      return undefined;
    }
    let live = true;
    setDetail({ ...EMPTY, loading: true });
    Promise.all([client.get(id), client.history(id)]).then(
      ([memory, h]) => live && setDetail({ loading: false, memory, versions: h.versions, error: null }),
      (err: unknown) => live && setDetail({ ...EMPTY, error: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, [client, id]);
  return detail;
}
