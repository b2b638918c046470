/** The terminal's size, following resizes (or a fixed size, for tests and screenshots). */
import { useStdout } from 'ink';
import { useEffect, useState } from 'react';
import type { Size } from './layout.js';

/** When the output is not a terminal (no size known): the size the dashboard is designed for. */
const FALLBACK: Size = { columns: 80, rows: 24 };

export function useTerminalSize(fixed?: Size): Size {
  const { stdout } = useStdout();
  const [size, setSize] = useState<Size>(() => ({ columns: stdout.columns || FALLBACK.columns, rows: stdout.rows || FALLBACK.rows }));
  useEffect(() => {
    if (fixed) return undefined;
    const onResize = (): void => setSize({ columns: stdout.columns || FALLBACK.columns, rows: stdout.rows || FALLBACK.rows });
    stdout.on('resize', onResize);
    return () => void stdout.off('resize', onResize);
  }, [stdout, fixed]);
  return fixed ?? size;
}
