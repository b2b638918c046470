/** The pipeline: journal and flush backlog, model, re-embedding, sync, exports and imports, last error. */
import { Text } from 'ink';
import type { PipelineLine } from './dashboard-model.js';
import { cell, progressBar } from './format.js';
import { PANEL_COLS } from './layout.js';
import { Panel } from './panel.js';
import { useTheme } from './theme.js';

const LABEL = 9;

export function PipelinePanel({ lines, width, rows }: { lines: PipelineLine[]; width: number; rows: number }) {
  const theme = useTheme();
  const inner = width - PANEL_COLS;
  const barWidth = Math.max(6, Math.min(24, Math.floor((inner - LABEL) / 4)));
  return (
    <Panel title="Pipeline" width={width} rows={rows}>
      {lines.slice(0, rows).map((l) => (
        <Text key={`${l.label}:${l.text}`} wrap="truncate">
          <Text dimColor>{cell(l.label, LABEL)}</Text>
          {l.progress !== undefined ? <Text color={theme.fg('accent')}>{`${progressBar(l.progress, barWidth)} `}</Text> : null}
          <Text color={theme.fg(l.tone)} dimColor={theme.dim(l.tone)}>
            {l.text}
          </Text>
        </Text>
      ))}
    </Panel>
  );
}
