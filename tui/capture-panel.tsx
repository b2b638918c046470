/** Capture state: all sessions, then each active session, with the selection that p toggles. */
import { Text } from 'ink';
import type { SessionRow } from './dashboard-model.js';
import { cell } from './format.js';
import { windowStart } from './layout.js';
import { PANEL_COLS } from './layout.js';
import { Panel } from './panel.js';
import { useTheme } from './theme.js';

export interface CapturePanelProps {
  rows: SessionRow[];
  selected: number;
  globalPaused: boolean;
  /** Which pause applies (dashboard-model.ts pauseKind), shown in the title. */
  pause?: string | null;
  width: number;
  lines: number;
}

export function CapturePanel({ rows, selected, globalPaused, pause = null, width, lines }: CapturePanelProps) {
  const theme = useTheme();
  const inner = width - PANEL_COLS;
  const stateWidth = 12;
  const detailWidth = inner >= 56 ? 20 : 0;
  const labelWidth = Math.max(4, inner - 2 - stateWidth - (detailWidth ? detailWidth + 1 : 0));
  const start = windowStart(selected, rows.length, lines);
  const shown = rows.slice(start, start + lines);
  return (
    <Panel title={pause ? `Capture · ${pause}` : 'Capture'} tone={globalPaused || pause ? 'warn' : 'normal'} width={width} rows={lines}>
      {shown.map((r, i) => {
        const isSelected = start + i === selected;
        return (
          <Text key={r.sessionId ?? '*'} wrap="truncate">
            <Text color={theme.fg('accent')} bold>
              {isSelected ? '› ' : '  '}
            </Text>
            <Text bold={isSelected} inverse={isSelected && theme.color}>
              {cell(r.label, labelWidth)}
            </Text>
            <Text color={theme.fg(r.tone)}>{` ${cell(r.state, stateWidth - 1)}`}</Text>
            {detailWidth ? <Text dimColor>{` ${cell(r.detail, detailWidth)}`}</Text> : null}
          </Text>
        );
      })}
    </Panel>
  );
}
