/** Memory counts: per scope (as seen from here), per space, per category. */
import { Text } from 'ink';
import type { DashboardModel } from './dashboard-model.js';
import { packTokens } from './format.js';
import { PANEL_COLS } from './layout.js';
import { Panel } from './panel.js';

export function MemoriesPanel({ memories, width, lines }: { memories: DashboardModel['memories']; width: number; lines: number }) {
  const inner = width - PANEL_COLS;
  const out = [
    ...packTokens(memories.scopes.map((t) => t), inner, 1),
    ...packTokens(memories.spaces, inner, 1),
    ...packTokens(memories.categories, inner, Math.max(1, lines - 2)),
  ].slice(0, lines);
  return (
    <Panel title={`Memories ${memories.total}`} width={width} rows={lines}>
      {out.map((line, i) => (
        <Text key={i} wrap="truncate" dimColor={i === 2 && memories.categories[0] === 'none yet'}>
          {line}
        </Text>
      ))}
    </Panel>
  );
}
